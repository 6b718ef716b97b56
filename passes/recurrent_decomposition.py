"""LSTM and GRU on f32 (`dialects/onnx/recurrent.py`, the form torch exports) unrolled over
their static sequence into ONNX ops that `onnx-float-to-linalg` and
`onnx-data-movement-to-linalg` lower: a float island evaluated step by step in this order.

Per direction, with per-gate constants W_g' (I x H), R_g' (H x H):

    XW_g = MatMul(X, W_g') + bias_g      (seq x batch x H, once)    Split along the sequence
    per step t (backwards for the reverse direction), h and c of shape 1 x batch x H:
      LSTM  i = Sigmoid(XW_i[t] + MatMul(h, R_i') (+ P_i c))      f likewise with P_f
            g = Tanh(XW_c[t] + MatMul(h, R_c'))                   c = f c + i g
            o = Sigmoid(XW_o[t] + MatMul(h, R_o') (+ P_o c))       h = o Tanh(c)
      GRU   z, r = Sigmoid(XW_z,r[t] + MatMul(h, R_z,r'))
            n = Tanh(XW_h[t] + MatMul(r h, R_h'))                 (linear_before_reset = 0)
            n = Tanh(XW_h[t] + r (MatMul(h, R_h') + Rb_h))        (linear_before_reset = 1)
            h = (1 - z) n + z h
    Y = Concat of the steps' h along the sequence, Unsqueeze'd at axis 1, Concat of the
    directions; Y_h / Y_c = Concat of the directions' last h / c.

bias_g = Wb_g + Rb_g (rounded to f32 once), except GRU's Rb_h with linear_before_reset = 1, added
inside. The reference (float64, rounded once) and onnxruntime differ from this by float32
rounding; the interpreter and every backend compute these bits."""

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from bitfold.dialects.onnx.constant import ConstantOp, constant_array, dense_attr
from bitfold.dialects.onnx.elementwise import AddOp, MulOp, SigmoidOp, SubOp, TanhOp
from bitfold.dialects.onnx.nn import MatMulOp
from bitfold.dialects.onnx.recurrent import GRUOp, LSTMOp, RecurrentOp
from bitfold.dialects.onnx.shape import ConcatOp, SplitOp, UnsqueezeOp
from bitfold.passes.float_generics import F32, fail


class Builder:
    """ONNX ops appended in order, each located at the recurrent node."""

    def __init__(self, op: Operation):
        self.op = op
        self.ops: list[Operation] = []

    def add(self, new: Operation) -> Operation:
        new.location = self.op.location
        self.ops.append(new)
        return new

    def constant(self, values: np.ndarray) -> SSAValue:
        values = np.asarray(values)
        element = F32 if values.dtype.kind == "f" else i64
        return self.add(
            ConstantOp.build(
                attributes={"value": dense_attr(values, element)}, result_types=[TensorType(element, values.shape)]
            )
        ).results[0]

    def f32(self, kind, operands: list[SSAValue], shape) -> SSAValue:
        return self.add(kind.build(operands=operands, result_types=[TensorType(F32, shape)])).results[0]

    def add_values(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.f32(AddOp, [a, b], a.type.get_shape())

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.f32(MulOp, [a, b], a.type.get_shape())

    def matmul(self, a: SSAValue, weight: np.ndarray) -> SSAValue:
        return self.f32(
            MatMulOp, [a, self.constant(weight.astype(np.float32))], [*a.type.get_shape()[:-1], weight.shape[1]]
        )

    def unary(self, kind, a: SSAValue) -> SSAValue:
        return self.f32(kind, [a], a.type.get_shape())

    def split(self, value: SSAValue, pieces: int) -> list[SSAValue]:
        shape = value.type.get_shape()
        split = self.add(
            SplitOp.build(
                operands=[value, []],
                attributes={"axis": IntegerAttr(0, 64)},
                result_types=[[TensorType(F32, [1, *shape[1:]])] * pieces],
            )
        )
        return list(split.results)

    def concat(self, values: list[SSAValue], axis: int) -> SSAValue:
        shape = list(values[0].type.get_shape())
        shape[axis] = sum(v.type.get_shape()[axis] for v in values)
        return self.add(
            ConcatOp.build(
                operands=[values], attributes={"axis": IntegerAttr(axis, 64)}, result_types=[TensorType(F32, shape)]
            )
        ).results[0]

    def unsqueeze(self, value: SSAValue, axis: int) -> SSAValue:
        shape = list(value.type.get_shape())
        shape.insert(axis, 1)
        return self.f32(UnsqueezeOp, [value, self.constant(np.array([axis], np.int64))], shape)


def _constant(op: RecurrentOp, value: SSAValue | None, role: str) -> np.ndarray | None:
    if value is None:
        return None
    array = constant_array(value)
    if array is None:
        fail(op, f"{role} must be a constant to unroll the recurrence")
    return np.asarray(array, np.float64)


class DecomposeRecurrent(RewritePattern):
    """LSTM / GRU on f32 -> the unrolled ONNX ops of the module docstring."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, LSTMOp | GRUOp) or op.x.type.element_type != F32:
            return
        try:
            op.check_supported()
        except ValueError as error:
            fail(op, str(error))
        shape = op.x.type.get_shape()
        if any(n < 0 for n in shape):
            fail(op, "no float lowering for dynamic shapes (the recurrence is unrolled over a static sequence)")
        lstm = isinstance(op, LSTMOp)
        w, r = _constant(op, op.w, "W"), _constant(op, op.r, "R")
        hidden, gates = r.shape[-1], op.GATES
        b = _constant(op, op.b, "B")
        b = np.zeros((w.shape[0], 2 * gates * hidden)) if b is None else b
        peepholes = _constant(op, op.p, "P") if lstm else None
        build = Builder(op)
        seq, batch = shape[0], shape[1]
        outputs = []
        initial_h = None if op.initial_h is None else build.split(op.initial_h, w.shape[0])
        initial_c = None if not lstm or op.initial_c is None else build.split(op.initial_c, w.shape[0])
        for d, backwards in enumerate(op.directions()):
            block = lambda a, g: a[g * hidden : (g + 1) * hidden]
            wb, rb = b[d][: gates * hidden], b[d][gates * hidden :]
            keep_rb_h = not lstm and op.int_attr("linear_before_reset")
            inputs = []
            for g in range(gates):
                bias = block(wb, g) + (0 if keep_rb_h and g == 2 else block(rb, g))
                projected = build.add_values(
                    build.matmul(op.x, block(w[d], g).T), build.constant(bias.astype(np.float32))
                )
                inputs.append(build.split(projected, seq))
            zeros = np.zeros((1, batch, hidden), np.float32)
            h = build.constant(zeros) if initial_h is None else initial_h[d]
            c = (build.constant(zeros) if initial_c is None else initial_c[d]) if lstm else None
            steps = [None] * seq
            weights = [block(r[d], g).T for g in range(gates)]
            for t in reversed(range(seq)) if backwards else range(seq):
                if lstm:
                    h, c = self._lstm_step(
                        build,
                        [x[t] for x in inputs],
                        [build.matmul(h, wg) for wg in weights],
                        c,
                        None if peepholes is None else peepholes[d],
                        hidden,
                    )
                else:
                    h = self._gru_step(build, [x[t] for x in inputs], h, weights, block(rb, 2) if keep_rb_h else None)
                steps[t] = h
            outputs.append((build.unsqueeze(build.concat(steps, 0), 1), h, c))
        results = [build.concat([o[0] for o in outputs], 1), build.concat([o[1] for o in outputs], 0)]
        if lstm:
            results.append(build.concat([o[2] for o in outputs], 0))
        present = [value for value, result in zip(results, op.results_by_role()) if result is not None]
        rewriter.replace(op, build.ops, present)

    @staticmethod
    def _lstm_step(build: Builder, x, recurrent, c, peepholes, hidden):
        def gate(g: int, state: SSAValue | None, peephole: int) -> SSAValue:
            value = build.add_values(x[g], recurrent[g])
            if peepholes is not None and state is not None:
                p = peepholes[peephole * hidden : (peephole + 1) * hidden].astype(np.float32)
                value = build.add_values(value, build.mul(state, build.constant(p)))
            return build.unary(SigmoidOp, value)

        i, f = gate(0, c, 0), gate(2, c, 2)
        g = build.unary(TanhOp, build.add_values(x[3], recurrent[3]))
        c = build.add_values(build.mul(f, c), build.mul(i, g))
        o = gate(1, c, 1)
        return build.mul(o, build.unary(TanhOp, c)), c

    @staticmethod
    def _gru_step(build: Builder, x, h, weights, rb_h):
        z = build.unary(SigmoidOp, build.add_values(x[0], build.matmul(h, weights[0])))
        reset = build.unary(SigmoidOp, build.add_values(x[1], build.matmul(h, weights[1])))
        if rb_h is None:
            candidate = build.matmul(build.mul(reset, h), weights[2])
        else:
            candidate = build.mul(
                reset, build.add_values(build.matmul(h, weights[2]), build.constant(rb_h.astype(np.float32)))
            )
        n = build.unary(TanhOp, build.add_values(x[2], candidate))
        keep = build.f32(SubOp, [build.constant(np.array(1.0, np.float32)), z], z.type.get_shape())
        return build.add_values(build.mul(keep, n), build.mul(z, h))
