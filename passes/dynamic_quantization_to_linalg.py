"""onnxruntime's `quantize_dynamic` form (DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul by
the scales) as linalg, part of `onnx-float-to-linalg` (docs/float-islands.md):

- DynamicQuantizeLinear on f32, every step an f32 op in the order of its reference
  (`DynamicQuantizeLinearOp`), so the stored values, scale and zero point are its bits:
      hi = max(0, max x), lo = min(0, min x)                (maximumf / minimumf from 0.0)
      scale = (hi == lo ? 1 : hi - lo) / 255
      zp = roundeven(min(max(0 - lo / scale, 0), 255))
      y = min(max(roundeven(x / scale) + zp, 0), 255)
  y is held in i16 and zp in i32 (0..255, read by MatMulInteger / ConvInteger only: any other
  reader fails the pass naming the node);
- MatMulInteger with a constant 2-D B (the weights), exact in i32 (ONNX wraps; the sums of
  quantize_dynamic's 8-bit operands stay far inside i32 for K < 2^15): B' = B - zb is centered at
  compile time and the dynamic zero point za is folded out of the sum by B's column sums,
  computed once:
      acc[.., i, j] = sum_k a[.., i, k] B'[k, j] - za colsum(B')[j]
  A dynamic or batched B fails the pass naming the node. A signless or signed operand
  extends signed, an unsigned one unsigned (ONNX's int8 / uint8; DynamicQuantizeLinear's i16 and
  i32 hold values 0..255);
- ConvInteger with a constant weight: x - zx (i16), padded with 0 as ONNX pads after subtracting
  the zero point, contracted with W - zw (centered at compile time, per output channel) in i32;
- Cast from an integer type to f32 (`sitofp` / `uitofp`: round to nearest even, as the reference)."""

import numpy as np
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import IntegerType, Signedness
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.onnx.base import ints_or
from bitfold.dialects.onnx.constant import ConstantOp as OnnxConstantOp
from bitfold.dialects.onnx.constant import dense_to_numpy
from bitfold.dialects.onnx.elementwise import CastOp
from bitfold.dialects.onnx.nn import SlidingWindow
from bitfold.dialects.onnx.quantization import ConvIntegerOp, DynamicQuantizeLinearOp, MatMulIntegerOp
from bitfold.passes.float_generics import F32, clamp_f32, fail, float_reduction, tensor_shape
from bitfold.passes.quant_to_integer.contraction import conv_loops
from bitfold.passes.quant_to_integer.operands import narrowest_signed
from bitfold.passes.utils.linalg_building import I32, Body, affine_map, build_generic, empty, filled, integer_constant
from bitfold.passes.utils.padding import padded

I16 = IntegerType(16)
U8_HIGH = 255.0
"""DynamicQuantizeLinear's qmax (uint8; qmin is 0)"""


def _scalar(rewriter: PatternRewriter, inputs: list[SSAValue], element, build) -> SSAValue:
    """A rank-0 generic of `element` reading rank-0 `inputs`: build(body, *elements)."""
    scalar = AffineMap(0, 0, ())
    return build_generic(
        rewriter,
        [(v, scalar) for v in inputs],
        (empty(rewriter, [], element), scalar),
        [],
        lambda body: build(body, *(body.values[f"in{i}"] for i in range(len(inputs)))),
    )


class LowerDynamicQuantizeLinear(RewritePattern):
    """DynamicQuantizeLinear on a static f32 tensor (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DynamicQuantizeLinearOp, rewriter: PatternRewriter) -> None:
        for result in (op.y, op.y_zero_point):
            for use in result.uses:
                if not isinstance(use.operation, MatMulIntegerOp | ConvIntegerOp):
                    fail(
                        op,
                        f"no lowering for DynamicQuantizeLinear's integers read by {use.operation.name} "
                        "(only MatMulInteger / ConvInteger read them)",
                    )
        shape = tensor_shape(op.x)
        if any(n < 0 for n in shape):
            fail(op, "no float lowering for dynamic shapes (float islands need static ones)")
        every = range(len(shape))  # over every element, from 0.0
        reads = [AffineDimExpr(d) for d in every]
        high = float_reduction(rewriter, op.x, len(shape), reads, every, [], 0.0, arith.MaximumfOp)
        low = float_reduction(rewriter, op.x, len(shape), reads, every, [], 0.0, arith.MinimumfOp)

        def scale_of(body: Body, hi: SSAValue, lo: SSAValue) -> SSAValue:
            same = body.emit(arith.CmpfOp(hi, lo, "oeq"))
            span = body.emit(arith.SelectOp(same, body.constant(1.0, F32), body.emit(arith.SubfOp(hi, lo))))
            return body.emit(arith.DivfOp(span, body.constant(U8_HIGH, F32)))

        scale = _scalar(rewriter, [high, low], F32, scale_of)

        def zero_point_of(body: Body, lo: SSAValue, s: SSAValue) -> SSAValue:
            shifted = body.emit(arith.SubfOp(body.constant(0.0, F32), body.emit(arith.DivfOp(lo, s))))
            return body.emit(math.RoundEvenOp(clamp_f32(body, shifted, 0.0, U8_HIGH)))

        zero_point = _scalar(rewriter, [low, scale], F32, zero_point_of)
        rank = len(shape)
        scalar = affine_map(rank, [])

        def quantize(body: Body) -> SSAValue:
            x, s, z = body.values["in0"], body.values["in1"], body.values["in2"]
            rounded = body.emit(math.RoundEvenOp(body.emit(arith.DivfOp(x, s))))
            stored = body.emit(arith.FPToSIOp(clamp_f32(body, body.emit(arith.AddfOp(rounded, z)), 0.0, U8_HIGH), I32))
            return body.emit(arith.TruncIOp(stored, I16))

        y = build_generic(
            rewriter,
            [(op.x, AffineMap.identity(rank)), (scale, scalar), (zero_point, scalar)],
            (empty(rewriter, shape, I16), AffineMap.identity(rank)),
            [],
            quantize,
        )
        stored_zero_point = _scalar(rewriter, [zero_point], I32, lambda body, z: body.emit(arith.FPToSIOp(z, I32)))
        rewriter.replace(op, [], [y, scale, stored_zero_point])


def _extended(body: Body, value: SSAValue, element: IntegerType) -> SSAValue:
    """An integer element as the i32 number it stands for (unsigned types extend unsigned)."""
    if element.width.data == 32:
        return value
    unsigned = element.signedness.data == Signedness.UNSIGNED
    return body.emit((arith.ExtUIOp if unsigned else arith.ExtSIOp)(value, I32))


def _constant_integers(value: SSAValue | None) -> np.ndarray | None:
    if value is not None and isinstance(value.owner, OnnxConstantOp):
        return dense_to_numpy(value.owner.value).astype(np.int64)
    return None


def _signless(rewriter: PatternRewriter, value: SSAValue) -> SSAValue:
    """A constant operand as an `arith.constant` of its signless integers, else the value."""
    values = _constant_integers(value)
    if values is None:
        return value
    return integer_constant(rewriter, values, IntegerType(value.type.element_type.width.data))


class LowerMatMulInteger(RewritePattern):
    """MatMulInteger, (..., M, K) @ a constant (K, N) (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatMulIntegerOp, rewriter: PatternRewriter) -> None:
        a_shape, out_shape = tensor_shape(op.a), tensor_shape(op.y)
        b = _constant_integers(op.b)
        if b is None or b.ndim != 2 or len(a_shape) < 2 or any(n < 0 for n in out_shape):
            fail(op, "no lowering for MatMulInteger but (..., M, K) @ a 2-D constant B (quantize_dynamic's form)")
        a_element = op.a.type.element_type
        if a_element.signedness.data != Signedness.SIGNLESS and _constant_integers(op.a) is None:
            fail(op, "no lowering for MatMulInteger on a dynamic A of the model's own uint8 / int8 type")
        if op.a_zero_point is not None and int(np.prod(tensor_shape(op.a_zero_point))) != 1:
            fail(op, "no lowering for a per-row a_zero_point")
        zero_b = _constant_integers(op.b_zero_point)
        if op.b_zero_point is not None and zero_b is None:
            fail(op, "no lowering for a dynamic b_zero_point")
        centered = b - (0 if zero_b is None else zero_b.reshape(-1))
        stored = integer_constant(rewriter, centered, narrowest_signed(centered))
        batch = len(out_shape) - 2
        rank = batch + 3
        dims = [AffineDimExpr(d) for d in range(rank)]
        i, j, k = dims[batch], dims[batch + 1], dims[batch + 2]

        def multiply_accumulate(body: Body) -> SSAValue:
            a_value = _extended(body, body.values["in0"], a_element)
            product = body.emit(arith.MuliOp(a_value, _extended(body, body.values["in1"], stored.type.element_type)))
            return body.emit(arith.AddiOp(body.values["output"], product))

        init = filled(rewriter, np.array(0), [], out_shape, I32)
        reads = [
            (_signless(rewriter, op.a), affine_map(rank, [*dims[:batch], i, k])),
            (stored, affine_map(rank, [k, j])),
        ]
        acc = build_generic(
            rewriter, reads, (init, affine_map(rank, [*dims[:batch], i, j])), [rank - 1], multiply_accumulate
        )
        if op.a_zero_point is not None:
            acc = self._minus_zero_point_sums(rewriter, acc, _signless(rewriter, op.a_zero_point), centered.sum(axis=0))
        rewriter.replace(op, [], [acc])

    @staticmethod
    def _minus_zero_point_sums(
        rewriter: PatternRewriter, acc: SSAValue, zero_a: SSAValue, sums: np.ndarray
    ) -> SSAValue:
        """acc[.., j] - za colsum(B')[j], za read from its one element."""
        shape = tensor_shape(acc)
        rank = len(shape)
        identity = AffineMap.identity(rank)
        columns = affine_map(rank, [AffineDimExpr(rank - 1)])
        zero_read = affine_map(rank, [AffineConstantExpr(0)] * len(tensor_shape(zero_a)))

        def corrected(body: Body) -> SSAValue:
            z = _extended(body, body.values["in2"], zero_a.type.element_type)
            return body.emit(arith.SubiOp(body.values["in0"], body.emit(arith.MuliOp(z, body.values["in1"]))))

        inputs = [(acc, identity), (integer_constant(rewriter, sums, I32), columns), (zero_a, zero_read)]
        return build_generic(rewriter, inputs, (empty(rewriter, shape, I32), identity), [], corrected)


class LowerConvInteger(RewritePattern):
    """ConvInteger with a constant weight (module docstring): x - zx in i16, padded with 0 (ONNX
    pads after subtracting the zero point), contracted with the centered weights in i32."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvIntegerOp, rewriter: PatternRewriter) -> None:
        x_shape, out_shape = tensor_shape(op.x), tensor_shape(op.y)
        weight = _constant_integers(op.w)
        if weight is None or any(n < 0 for n in (*x_shape, *out_shape)):
            fail(op, "no lowering for ConvInteger with a dynamic weight or shape")
        zero_w = _constant_integers(op.w_zero_point)
        if op.w_zero_point is not None and zero_w is None:
            fail(op, "no lowering for ConvInteger with a dynamic w_zero_point")
        x_element = op.x.type.element_type
        if x_element.signedness.data != Signedness.SIGNLESS and _constant_integers(op.x) is None:
            fail(op, "no lowering for ConvInteger on a dynamic x of the model's own uint8 / int8 type")
        centered = weight - (0 if zero_w is None else zero_w.reshape(-1, *(1,) * (weight.ndim - 1)))
        rank = len(x_shape)
        identity = AffineMap.identity(rank)
        inputs = [(_signless(rewriter, op.x), identity)]
        if op.x_zero_point is not None:
            zero_x = _signless(rewriter, op.x_zero_point)
            inputs.append((zero_x, affine_map(rank, [AffineConstantExpr(0)] * len(tensor_shape(zero_x)))))

        def shift(body: Body) -> SSAValue:
            value = _extended(body, body.values["in0"], x_element)
            if op.x_zero_point is not None:
                value = body.emit(arith.SubiOp(value, _extended(body, body.values["in1"], zero_x.type.element_type)))
            return body.emit(arith.TruncIOp(value, I16))

        shifted = build_generic(rewriter, inputs, (empty(rewriter, x_shape, I16), identity), [], shift)
        window = SlidingWindow.from_op(op, x_shape[2:], ints_or(op.attributes, "kernel_shape", weight.shape[2:]))
        storage = padded(rewriter, shifted, 0, window)
        loops, x_map, w_map, reduction = conv_loops(window, weight.shape[0], weight.shape[1], op.int_attr("group"))
        weights = integer_constant(rewriter, centered, narrowest_signed(centered))

        def multiply_accumulate(body: Body) -> SSAValue:
            product = body.emit(
                arith.MuliOp(
                    _extended(body, body.values["in0"], I16),
                    _extended(body, body.values["in1"], weights.type.element_type),
                )
            )
            return body.emit(arith.AddiOp(body.values["output"], product))

        out_map = affine_map(loops, [AffineDimExpr(d) for d in range(loops) if d not in reduction])
        acc = build_generic(
            rewriter,
            [(storage, affine_map(loops, x_map)), (weights, affine_map(loops, w_map))],
            (filled(rewriter, np.array(0), [], out_shape, I32), out_map),
            reduction,
            multiply_accumulate,
        )
        rewriter.replace(op, [], [acc])


class LowerIntegerCast(RewritePattern):
    """Cast of an integer tensor to f32: `sitofp` (signless or signed) / `uitofp` (unsigned)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CastOp, rewriter: PatternRewriter) -> None:
        source = op.input.type.element_type
        if op.output.type.element_type != F32 or not isinstance(source, IntegerType):
            return
        shape = tensor_shape(op.output)
        rank = len(shape)
        convert = arith.UIToFPOp if source.signedness.data == Signedness.UNSIGNED else arith.SIToFPOp
        value = _signless(rewriter, op.input)
        result = build_generic(
            rewriter,
            [(value, AffineMap.identity(rank))],
            (empty(rewriter, shape, F32), AffineMap.identity(rank)),
            [],
            lambda body: body.emit(convert(body.values["in0"], F32)),
        )
        rewriter.replace(op, [], [result])
