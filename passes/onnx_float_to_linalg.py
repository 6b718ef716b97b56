"""`onnx-float-to-linalg`: the float ONNX ops left in the integer IR (float islands,
docs/float-islands.md) become `linalg.generic`s on f32 tensors, one IEEE binary32 operation at
a time, in the order written here (every backend and the interpreter then compute the same bits):

- elementwise, broadcasting as ONNX: Add, Sub, Mul, Div (`addf`/`subf`/`mulf`/`divf`), Relu
  (`maximumf(x, 0)`), Clip (`minimumf(maximumf(x, lo), hi)`, constant bounds), LeakyRelu
  (`x >= 0 ? x : x * alpha`), HardSigmoid (`min(max(x * alpha + beta, 0), 1)`), HardSwish
  (`x * HardSigmoid(x; 1/6, 1/2)`), Exp (`math.exp`), Tanh (`math.tanh`), Erf (`math.erf`), Sigmoid
  (`1 / (1 + math.exp(-x))`), Reciprocal (`1 / x`, correctly rounded: the reference's bits), Neg
  (`negf`: the sign bit flipped, exact), Sqrt (`math.sqrt`: correctly rounded, the reference's
  bits, the canonical NaN below 0), Gelu
  (`(x * 0.5) * (1 + math.erf(x * (1 / sqrt 2)))`, approximate "tanh":
  `(x * 0.5) * (1 + math.tanh((x + (0.044715 * x) * (x * x)) * sqrt(2 / pi)))`, constants rounded
  to f32), Mish (`x * (n / (n + 2))`, n = e (e + 2), e = `math.exp(x)`: tanh(ln(1 + e)) without a
  logarithm; x itself above 20, where the ratio is 1.0 in f32 and n would overflow), Pow by the
  constant 2 (`x * x`, correctly rounded: the reference's bits); `expand-float-math` then expands
  the `math` ops;
- contractions, `out = init + sum_r a * b` accumulated along the reduction loops in ascending
  lexicographic order (one `mulf` and one `addf` per term, no FMA), init the bias or 0.0:
  Conv (groups, pads as 0.0, strides, dilations: the loops of `contraction.conv_loops`), Gemm
  (init beta * C rounded to f32 once; B, alpha * B rounded once when alpha != 1), MatMul;
- BatchNormalization (inference): `x * a + b`, a = scale / sqrt(var + eps) and b = B - mean a
  computed in float64 and rounded to f32 once;
- MaxPool (padding the lowest f32), AveragePool (padding 0.0, sum then `divf` by the taps counted as
  ONNX does), GlobalAveragePool (sum then `divf` by the window size), ReduceMax / ReduceMin
  (init the lowest / highest f32), ReduceSum (`addf` from 0.0), ReduceMean (that sum, then `divf`
  by the number of elements reduced), Softmax along one axis (max, `exp(x - max)`, sum, `divf`),
  interpolating Resize (axis by axis: taps read by `tensor.extract`, f32 weights, summed from 0.0),
  LayerNormalization (mean, centered, mean square, `math.sqrt(var + eps)`, divide, scale, bias:
  `normalized`), InstanceNormalization (the same over the spatial axes, scale and bias per channel);
- QONNX FloatQuant (`float_quant_to_linalg.py`: qonnx's float algorithm, the binade from the bits);
- LSTM and GRU unrolled over their static sequence into the ops above
  (`recurrent_decomposition`);
- onnxruntime's dynamic quantization: DynamicQuantizeLinear, MatMulInteger, ConvInteger and Cast to f32
  (`dynamic_quantization_to_linalg`).

Data movement on f32 tensors (Reshape, Transpose, Pad, Concat, ...) stays for
`onnx-data-movement-to-linalg`. Any other ONNX op on floats, and ops on f16 / bf16 / f64
tensors, fail the pass with one line naming the node ("no float lowering")."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, math, tensor
from xdsl.dialects.builtin import AnyFloat, IndexType, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.transforms.dead_code_elimination import region_dce

from bitfold.dialects.onnx import replication, shape
from bitfold.dialects.onnx.base import OnnxOp, ints_or
from bitfold.dialects.onnx.constant import ConstantOp as OnnxConstantOp
from bitfold.dialects.onnx.constant import constant_array, dense_to_numpy
from bitfold.dialects.onnx.elementwise import (
    GELU_TANH_SCALE,
    AddOp,
    ClipOp,
    DivOp,
    ErfOp,
    ExpOp,
    GeluOp,
    HardSigmoidOp,
    HardSwishOp,
    LeakyReluOp,
    MishOp,
    MulOp,
    NegOp,
    PowOp,
    ReciprocalOp,
    ReluOp,
    SigmoidOp,
    SqrtOp,
    SubOp,
    TanhOp,
    WhereOp,
)
from bitfold.dialects.onnx.nn import (
    AveragePoolOp,
    BatchNormalizationOp,
    ConvOp,
    GemmOp,
    GlobalAveragePoolOp,
    InstanceNormalizationOp,
    LayerNormalizationOp,
    MatMulOp,
    MaxPoolOp,
    SlidingWindow,
    SoftmaxOp,
)
from bitfold.dialects.onnx.reduction import ReduceMaxOp, ReduceMeanOp, ReduceMinOp, ReduceSumOp
from bitfold.dialects.onnx.shape import (
    normalized_axes,
)
from bitfold.passes.dynamic_quantization_to_linalg import (
    LowerConvInteger,
    LowerDynamicQuantizeLinear,
    LowerIntegerCast,
    LowerMatMulInteger,
)
from bitfold.passes.float_generics import (
    F32,
    PASS_NAME,
    clamp_f32,
    elementwise,
    fail,
    float_operand,
    float_reduction,
    tensor_shape,
)
from bitfold.passes.float_quant_to_linalg import LowerFloatQuant
from bitfold.passes.onnx_data_movement_to_linalg import build_reshape
from bitfold.passes.quant_to_integer.contraction import conv_loops
from bitfold.passes.quant_to_integer.pooling import window_reduction
from bitfold.passes.recurrent_decomposition import DecomposeRecurrent
from bitfold.passes.utils.linalg_building import (
    I32,
    Body,
    affine_map,
    broadcast_map,
    build_generic,
    empty,
    filled,
    integer_constant,
)
from bitfold.passes.utils.onnx_cleanup import EraseUnusedOnnxOp
from bitfold.passes.utils.padding import padded

F32_LOWEST = float(np.finfo(np.float32).min)
"""-3.4028235e38, where MaxPool pads and max reductions start (ONNX: -inf; they differ only on a
window of -inf alone). xDSL 0.74 prints an infinite f32 constant as `dense<0xff800000>` and
parses that back as the integer 4286578688, so islands hold no infinite constants."""
F32_HIGHEST = float(np.finfo(np.float32).max)
DATA_MOVEMENT = (*shape.OPS, *replication.OPS, WhereOp, OnnxConstantOp)
"""ONNX ops left on floats for `onnx-data-movement-to-linalg` (and constants they read, as a
nearest Resize's `scales`)"""


def constant_floats(op: Operation, value: SSAValue, role: str) -> np.ndarray:
    """The float64 values of a constant operand (an `onnx.Constant`); anything else fails."""
    if not isinstance(value.owner, OnnxConstantOp):
        fail(op, f"{role} must be a constant in a float island")
    return np.asarray(dense_to_numpy(value.owner.value), dtype=np.float64)


def sigmoid(body: Body, x: SSAValue) -> SSAValue:
    """1 / (1 + exp(-x))."""
    one = body.constant(1.0, F32)
    exp = body.emit(math.ExpOp(body.emit(arith.NegfOp(x))))
    return body.emit(arith.DivfOp(one, body.emit(arith.AddfOp(one, exp))))


def hard_sigmoid(body: Body, x: SSAValue, alpha: float, beta: float) -> SSAValue:
    """min(max(x * alpha + beta, 0), 1)."""
    affine = body.emit(arith.AddfOp(body.emit(arith.MulfOp(x, body.constant(alpha, F32))), body.constant(beta, F32)))
    return clamp_f32(body, affine, 0.0, 1.0)


def leaky_relu(body: Body, x: SSAValue, alpha: float) -> SSAValue:
    """x >= 0 ? x : x * alpha."""
    non_negative = body.emit(arith.CmpfOp(x, body.constant(0.0, F32), "oge"))
    return body.emit(arith.SelectOp(non_negative, x, body.emit(arith.MulfOp(x, body.constant(alpha, F32)))))


def gelu(body: Body, x: SSAValue, approximate: str) -> SSAValue:
    """(x * 0.5) * (1 + erf(x * (1 / sqrt 2))), or with approximate "tanh"
    (x * 0.5) * (1 + tanh((x + (0.044715 * x) * (x * x)) * sqrt(2 / pi))); f32 constants."""
    if approximate == "tanh":
        cube = body.emit(arith.MulfOp(body.emit(arith.MulfOp(body.constant(0.044715, F32), x)), body.emit(arith.MulfOp(x, x))))
        inner = body.emit(arith.MulfOp(body.emit(arith.AddfOp(x, cube)), body.constant(GELU_TANH_SCALE, F32)))
        curve = body.emit(math.TanhOp(inner))
    else:
        curve = body.emit(math.ErfOp(body.emit(arith.MulfOp(x, body.constant(1 / np.sqrt(2), F32)))))
    half = body.emit(arith.MulfOp(x, body.constant(0.5, F32)))
    return body.emit(arith.MulfOp(half, body.emit(arith.AddfOp(body.constant(1.0, F32), curve))))


MISH_IDENTITY_ABOVE = 20.0
"""Mish(x) = x in f32 above this (1 - tanh(ln(1 + e^20)) is 8e-18, far below half an ulp of 1.0)"""


def mish(body: Body, x: SSAValue) -> SSAValue:
    """x > 20 ? x : x * (n / (n + 2)), n = e * (e + 2), e = exp(x) (module docstring)."""
    e = body.emit(math.ExpOp(x))
    n = body.emit(arith.MulfOp(e, body.emit(arith.AddfOp(e, body.constant(2.0, F32)))))
    ratio = body.emit(arith.DivfOp(n, body.emit(arith.AddfOp(n, body.constant(2.0, F32)))))
    above = body.emit(arith.CmpfOp(x, body.constant(MISH_IDENTITY_ABOVE, F32), "ogt"))
    return body.emit(arith.SelectOp(above, x, body.emit(arith.MulfOp(x, ratio))))


BINARY = {AddOp: arith.AddfOp, SubOp: arith.SubfOp, MulOp: arith.MulfOp, DivOp: arith.DivfOp}
UNARY: dict[type[OnnxOp], Callable[[Body, SSAValue, OnnxOp], SSAValue]] = {
    ReluOp: lambda b, x, op: b.emit(arith.MaximumfOp(x, b.constant(0.0, F32))),
    ExpOp: lambda b, x, op: b.emit(math.ExpOp(x)),
    ErfOp: lambda b, x, op: b.emit(math.ErfOp(x)),
    TanhOp: lambda b, x, op: b.emit(math.TanhOp(x)),
    SigmoidOp: lambda b, x, op: sigmoid(b, x),
    LeakyReluOp: lambda b, x, op: leaky_relu(b, x, op.float_attr("alpha")),
    HardSigmoidOp: lambda b, x, op: hard_sigmoid(b, x, op.float_attr("alpha"), op.float_attr("beta")),
    HardSwishOp: lambda b, x, op: b.emit(arith.MulfOp(x, hard_sigmoid(b, x, 1 / 6, 0.5))),
    ReciprocalOp: lambda b, x, op: b.emit(arith.DivfOp(b.constant(1.0, F32), x)),
    NegOp: lambda b, x, op: b.emit(arith.NegfOp(x)),
    SqrtOp: lambda b, x, op: b.emit(math.SqrtOp(x)),
    GeluOp: lambda b, x, op: gelu(b, x, op.string_attr("approximate")),
    MishOp: lambda b, x, op: mish(b, x),
}


class LowerElementwise(RewritePattern):
    """The binary and unary ops of the module docstring, and Clip with constant bounds."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, OnnxOp) or not _is_f32(op.results[0] if op.results else None):
            return
        if type(op) in BINARY:
            kind = BINARY[type(op)]
            elementwise(rewriter, op, op.operands, lambda body, a, b: body.emit(kind(a, b)))
        elif type(op) in UNARY:
            function = UNARY[type(op)]
            elementwise(rewriter, op, op.operands[:1], lambda body, x: function(body, x, op))
        elif isinstance(op, PowOp) and _is_square(op):
            elementwise(rewriter, op, [op.x], lambda body, x: body.emit(arith.MulfOp(x, x)))
        elif isinstance(op, ClipOp):
            low = None if op.min is None else float(constant_floats(op, op.min, "min").reshape(()))
            high = None if op.max is None else float(constant_floats(op, op.max, "max").reshape(()))
            elementwise(rewriter, op, [op.input], lambda body, x: clamp_f32(body, x, low, high))


def _is_square(op: PowOp) -> bool:
    """Pow(x, 2): the exponent one constant 2 that does not widen the result."""
    exponent = constant_array(op.y)
    return exponent is not None and exponent.size == 1 and exponent.reshape(-1)[0] == 2 and op.z.type == op.x.type


def _is_f32(value: SSAValue | None) -> bool:
    return value is not None and isinstance(value.type, TensorType) and value.type.element_type == F32


def broadcast_fill(rewriter: PatternRewriter, values: np.ndarray, shape: Sequence[int]) -> SSAValue:
    """A tensor of `shape` filled with `values` (rounded to f32 once) broadcast as ONNX does;
    the constant holds only the dims `values` does not broadcast."""
    offset = len(shape) - values.ndim
    dims = [offset + i for i, n in enumerate(values.shape) if n != 1]
    table = values.reshape([n for n in values.shape if n != 1]).astype(np.float32)
    return filled(rewriter, table, dims, shape, F32)


def contraction(
    rewriter: PatternRewriter,
    inputs: Sequence[tuple[SSAValue, list]],
    out_shape: Sequence[int],
    rank: int,
    reduction: Sequence[int],
    init: np.ndarray,
) -> SSAValue:
    """out[o] = init[o] + sum_r in0[.] * in1[.] (mulf, then addf onto the running sum, r
    ascending); `init` an f32 array broadcasting to `out_shape`."""
    out_dims = [AffineDimExpr(d) for d in range(rank) if d not in reduction]
    initialized = broadcast_fill(rewriter, np.asarray(init), out_shape)

    def multiply_accumulate(body: Body) -> SSAValue:
        product = body.emit(arith.MulfOp(body.values["in0"], body.values["in1"]))
        return body.emit(arith.AddfOp(body.values["output"], product))

    return build_generic(
        rewriter,
        [(v, affine_map(rank, exprs)) for v, exprs in inputs],
        (initialized, affine_map(rank, out_dims)),
        reduction,
        multiply_accumulate,
    )


class LowerConv(RewritePattern):
    """Conv on f32: the input padded with 0.0, then `contraction` from the bias."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, ConvOp) or not _is_f32(op.y):
            return
        weight_shape = tensor_shape(op.w)
        kernel = weight_shape[2:]
        window = SlidingWindow.from_op(op, tensor_shape(op.x)[2:], ints_or(op.attributes, "kernel_shape", kernel))
        channels = weight_shape[0]
        rank, x_map, w_map, reduction = conv_loops(window, channels, weight_shape[1], op.int_attr("group"))
        x = padded(rewriter, op.x, 0.0, window)
        bias = np.zeros(channels) if op.b is None else constant_floats(op, op.b, "the bias")
        out_shape = tensor_shape(op.y)
        init = bias.reshape(-1, *(1,) * (len(out_shape) - 2))
        inputs = [(x, x_map), (float_operand(rewriter, op.w), w_map)]
        rewriter.replace(op, [], [contraction(rewriter, inputs, out_shape, rank, reduction, init)])


class LowerGemm(RewritePattern):
    """Gemm on f32: `contraction` over (i, j | k) from beta * C, B scaled by alpha."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, GemmOp) or not _is_f32(op.y):
            return
        alpha, beta = op.float_attr("alpha"), op.float_attr("beta")
        b = float_operand(rewriter, op.b)
        if alpha != 1.0:
            b = integer_constant(rewriter, constant_floats(op, op.b, "B (alpha != 1)") * alpha, F32)
        init = np.zeros(()) if op.c is None else constant_floats(op, op.c, "C") * beta
        i, j, k = AffineDimExpr(0), AffineDimExpr(1), AffineDimExpr(2)
        a_map = [k, i] if op.int_attr("transA") else [i, k]
        b_map = [j, k] if op.int_attr("transB") else [k, j]
        inputs = [(float_operand(rewriter, op.a), a_map), (b, b_map)]
        rewriter.replace(op, [], [contraction(rewriter, inputs, tensor_shape(op.y), 3, [2], init)])


class LowerMatMul(RewritePattern):
    """MatMul on f32, (..., M, K) @ (K, N) or batched (..., K, N) of the same rank."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, MatMulOp) or not _is_f32(op.y):
            return
        a_shape, b_shape, out_shape = tensor_shape(op.a), tensor_shape(op.b), tensor_shape(op.y)
        if len(a_shape) < 2 or len(b_shape) not in (2, len(a_shape)):
            fail(op, "no float lowering for MatMul of these ranks (A at least 2-D, B 2-D or of A's rank)")
        batch = len(out_shape) - 2
        rank = batch + 3
        dims = [AffineDimExpr(d) for d in range(rank)]
        i, j, k = dims[batch], dims[batch + 1], dims[batch + 2]
        b_batch = dims[:batch] if len(b_shape) > 2 else []
        inputs = [(float_operand(rewriter, op.a), [*dims[:batch], i, k]),
                  (float_operand(rewriter, op.b), [*b_batch, k, j])]  # fmt: skip
        rewriter.replace(op, [], [contraction(rewriter, inputs, out_shape, rank, [rank - 1], np.zeros(()))])


class LowerBatchNorm(RewritePattern):
    """BatchNormalization (inference) on f32: x * a + b per channel (module docstring)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, BatchNormalizationOp) or not _is_f32(op.y):
            return
        if op.int_attr("training_mode") or any(r.uses for r in op.results[1:]):
            fail(op, "no float lowering for BatchNormalization in training mode")
        scale, bias, mean, var = (constant_floats(op, v, r) for v, r in
                                  ((op.scale, "scale"), (op.b, "B"), (op.input_mean, "mean"), (op.input_var, "var")))  # fmt: skip
        a = scale / np.sqrt(var + np.float32(op.float_attr("epsilon")))
        spatial = (1,) * (len(tensor_shape(op.x)) - 2)
        a_value = integer_constant(rewriter, a.reshape(-1, *spatial), F32)
        b_value = integer_constant(rewriter, (bias - mean * a).reshape(-1, *spatial), F32)
        elementwise(rewriter, op, [op.x, a_value, b_value],
                    lambda body, x, a, b: body.emit(arith.AddfOp(body.emit(arith.MulfOp(x, a)), b)))  # fmt: skip


def _pool_window(op: MaxPoolOp | AveragePoolOp) -> SlidingWindow:
    return SlidingWindow.from_op(op, tensor_shape(op.x)[2:], ints_or(op.attributes, "kernel_shape", ()), bool(op.int_attr("ceil_mode")))


def _window_reduce(rewriter: PatternRewriter, op, window: SlidingWindow, fill: float, combine) -> SSAValue:
    """combine over each window of op.x (padded with `fill`), from `fill` (`pooling.window_reduction`)."""
    x = padded(rewriter, op.x, fill, window)
    init = filled(rewriter, np.array(fill), [], tensor_shape(op.y), F32)
    return window_reduction(
        rewriter, x, init, window, lambda body: body.emit(combine(body.values["output"], body.values["in0"]))
    )


def _divided(rewriter: PatternRewriter, op: OnnxOp, total: SSAValue, counts: np.ndarray) -> None:
    """Replace op by total / counts (counts broadcasting to the result, as f32)."""
    divisor = integer_constant(rewriter, counts.astype(np.float32), F32)
    elementwise(rewriter, op, [total, divisor], lambda body, t, c: body.emit(arith.DivfOp(t, c)))


class LowerPools(RewritePattern):
    """MaxPool, AveragePool, GlobalAveragePool on f32 (module docstring)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, MaxPoolOp | AveragePoolOp | GlobalAveragePoolOp) or not _is_f32(op.y):
            return
        if isinstance(op, GlobalAveragePoolOp):
            shape = tensor_shape(op.x)
            rank = len(shape)
            reads = [AffineDimExpr(d) for d in range(rank)]
            total = float_reduction(rewriter, op.x, rank, reads, range(2, rank), shape[:2], 0.0, arith.AddfOp)
            ops, total = build_reshape(total, op.y.type)
            for reshape in ops:
                rewriter.insert(reshape)
            _divided(rewriter, op, total, np.array(float(np.prod(shape[2:]))))
            return
        window = _pool_window(op)
        if isinstance(op, MaxPoolOp):
            if op.indices is not None and op.indices.uses:
                fail(op, "no float lowering for MaxPool's indices")
            pooled = _window_reduce(rewriter, op, window, F32_LOWEST, arith.MaximumfOp)
            rewriter.replace(op, [], [pooled, *(None for _ in op.results[1:])])
            return
        total = _window_reduce(rewriter, op, window, 0.0, arith.AddfOp)
        inside = window.input_shape
        if op.int_attr("count_include_pad"):
            lower = [-b for b in window.pads_begin]
            counts = window.taps_inside(lower, [n + e for n, e in zip(inside, window.pads_end)])
        else:
            counts = window.taps_inside([0] * len(inside), inside)
        _divided(rewriter, op, total, counts.astype(np.float64))


def _reduced_shape(shape: Sequence[int], axes: Sequence[int]) -> list[int]:
    return [n for d, n in enumerate(shape) if d not in axes]


REDUCTIONS = {ReduceMaxOp: (F32_LOWEST, arith.MaximumfOp), ReduceMinOp: (F32_HIGHEST, arith.MinimumfOp),
              ReduceSumOp: (0.0, arith.AddfOp), ReduceMeanOp: (0.0, arith.AddfOp)}
"""reduction -> (start, combine); ReduceMean divides the sum by the count after"""


class LowerReductions(RewritePattern):
    """ReduceMax / ReduceMin / ReduceSum / ReduceMean on f32 with constant axes (module docstring)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if type(op) not in REDUCTIONS or not _is_f32(op.reduced):
            return
        shape = tensor_shape(op.data)
        rank = len(shape)
        axes = [] if op.axes is None else normalized_axes(constant_floats(op, op.axes, "axes").astype(np.int64).reshape(-1), rank)
        if not axes:
            if op.int_attr("noop_with_empty_axes"):
                rewriter.replace(op, [], [op.data])
                return
            axes = list(range(rank))
        start, combine = REDUCTIONS[type(op)]
        reads = [AffineDimExpr(d) for d in range(rank)]
        result = float_reduction(rewriter, op.data, rank, reads, axes, _reduced_shape(shape, axes), start, combine)
        if isinstance(op, ReduceMeanOp):
            result = _divided_by(rewriter, result, float(np.prod([shape[a] for a in axes])))
        _replace_reshaped(rewriter, op, result)


def _divided_by(rewriter: PatternRewriter, total: SSAValue, count: float) -> SSAValue:
    """total / count elementwise (`divf` by the f32 constant count)."""
    identity = AffineMap.identity(len(tensor_shape(total)))
    return build_generic(rewriter, [(total, identity)], (empty(rewriter, tensor_shape(total), F32), identity), [],
                         lambda body: body.emit(arith.DivfOp(body.values["in0"], body.constant(count, F32))))


def _replace_reshaped(rewriter: PatternRewriter, op: Operation, value: SSAValue) -> None:
    """Replace op's result by `value` reshaped to it (the kept dims of size 1 restored)."""
    ops, result = build_reshape(value, op.results[0].type)
    rewriter.replace(op, ops, [result])


class LowerSoftmax(RewritePattern):
    """Softmax on f32 along `axis`: m = max, e = exp(x - m), s = sum e (ascending), e / s."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, SoftmaxOp) or not _is_f32(op.output):
            return
        shape = tensor_shape(op.input)
        rank = len(shape)
        (axis,) = normalized_axes([op.int_attr("axis")], rank)
        reads = [AffineDimExpr(d) for d in range(rank)]
        reduced = _reduced_shape(shape, [axis])
        kept = affine_map(rank, [AffineDimExpr(d) for d in range(rank) if d != axis])
        identity = AffineMap.identity(rank)
        high = float_reduction(rewriter, op.input, rank, reads, [axis], reduced, F32_LOWEST, arith.MaximumfOp)

        def exp_shifted(body: Body) -> SSAValue:
            return body.emit(math.ExpOp(body.emit(arith.SubfOp(body.values["in0"], body.values["in1"]))))

        exps = build_generic(rewriter, [(op.input, identity), (high, kept)], (empty(rewriter, shape, F32), identity), [],
                             exp_shifted)  # fmt: skip
        total = float_reduction(rewriter, exps, rank, reads, [axis], reduced, 0.0, arith.AddfOp)
        result = build_generic(rewriter, [(exps, identity), (total, kept)], (empty(rewriter, shape, F32), identity), [],
                               lambda body: body.emit(arith.DivfOp(body.values["in0"], body.values["in1"])))  # fmt: skip
        rewriter.replace(op, [], [result])


def normalized(rewriter: PatternRewriter, x: SSAValue, axes: list[int], epsilon: float,
               affine: list[tuple[SSAValue, AffineMap]]) -> SSAValue:
    """x normalized over `axes` (n elements each): mean = sum x / n, d = x - mean,
    var = sum d * d / n (sums ascending), r = sqrt(var + eps) (`math.sqrt`), y = d / r * scale
    (+ bias), `affine` the scale and the bias if any, each with its indexing map."""
    shape = tensor_shape(x)
    rank = len(shape)
    count = float(np.prod([shape[a] for a in axes]))
    reduced = _reduced_shape(shape, axes)
    kept = affine_map(rank, [AffineDimExpr(d) for d in range(rank) if d not in axes])
    identity = AffineMap.identity(rank)

    def per_row(value: SSAValue, build) -> SSAValue:
        row = AffineMap.identity(len(reduced))
        return build_generic(rewriter, [(value, row)], (empty(rewriter, reduced, F32), row), [], build)

    def root(body: Body) -> SSAValue:
        return body.emit(math.SqrtOp(body.emit(arith.AddfOp(body.values["in0"], body.constant(epsilon, F32)))))

    def add_square(body: Body) -> SSAValue:
        square = body.emit(arith.MulfOp(body.values["in0"], body.values["in0"]))
        return body.emit(arith.AddfOp(body.values["output"], square))

    reads = [AffineDimExpr(d) for d in range(rank)]
    mean = _divided_by(rewriter, float_reduction(rewriter, x, rank, reads, axes, reduced, 0.0, arith.AddfOp), count)
    centered = build_generic(rewriter, [(x, identity), (mean, kept)], (empty(rewriter, shape, F32), identity), [],
                             lambda body: body.emit(arith.SubfOp(body.values["in0"], body.values["in1"])))  # fmt: skip
    zeros = filled(rewriter, np.array(0.0), [], reduced, F32)
    squares = build_generic(rewriter, [(centered, identity)], (zeros, kept), axes, add_square)
    operands = [(centered, identity), (per_row(_divided_by(rewriter, squares, count), root), kept), *affine]

    def normalize(body: Body) -> SSAValue:
        ratio = body.emit(arith.DivfOp(body.values["in0"], body.values["in1"]))
        scaled = body.emit(arith.MulfOp(ratio, body.values["in2"]))
        return scaled if len(affine) == 1 else body.emit(arith.AddfOp(scaled, body.values["in3"]))

    return build_generic(rewriter, operands, (empty(rewriter, shape, F32), identity), [], normalize)


class LowerLayerNorm(RewritePattern):
    """LayerNormalization on f32 over the axes from `axis` (`normalized`, Scale and B
    broadcast as ONNX does); the Mean / InvStdDev outputs are not lowered."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, LayerNormalizationOp) or not _is_f32(op.y):
            return
        if any(r.uses for r in op.results[1:]):
            fail(op, "no float lowering for LayerNormalization's Mean and InvStdDev outputs")
        rank = len(tensor_shape(op.x))
        axes = list(range(op.int_attr("axis") % rank, rank))
        affine = [(float_operand(rewriter, v), broadcast_map(tensor_shape(v), rank)) for v in (op.scale, op.b) if v is not None]
        result = normalized(rewriter, op.x, axes, float(np.float32(op.float_attr("epsilon"))), affine)
        rewriter.replace(op, [], [result, *(None for _ in op.results[1:])])


class LowerInstanceNorm(RewritePattern):
    """InstanceNormalization on f32: `normalized` over the spatial axes (2 ..) of each sample
    and channel, scale[c] and B[c] along axis 1."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, InstanceNormalizationOp) or not _is_f32(op.output):
            return
        rank = len(tensor_shape(op.input))
        channel = affine_map(rank, [AffineDimExpr(1)])
        affine = [(float_operand(rewriter, v), channel) for v in (op.scale, op.b)]
        result = normalized(rewriter, op.input, list(range(2, rank)), float(np.float32(op.float_attr("epsilon"))), affine)
        rewriter.replace(op, [], [result])


class LowerInterpolatingResize(RewritePattern):
    """Resize on f32 that interpolates (linear, cubic; or nearest with tf_crop_and_resize), one
    axis after another: y[.., o, ..] = sum over taps t (ascending, from 0.0) of
    w[o, t] * x[.., i[o, t], ..], with the tap tables of `ResizeOp.axis_maps` as constants (the
    weights rounded to f32). An output that tf_crop_and_resize extrapolates fails the pass."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, shape.ResizeOp) or op.selects_elements() or not _is_f32(op.y):
            return
        parameters = [None if v is None else constant_floats(op, v, "a Resize parameter")
                      for v in (op.roi, op.scales, op.sizes)]  # fmt: skip
        y = op.x
        for axis, indices, weights, outside in op.axis_maps(tensor_shape(op.x), *parameters):
            if outside.any():
                fail(op, "outputs outside tf_crop_and_resize's region (extrapolation_value) have no float lowering")
            y = _interpolated(rewriter, y, axis, indices, np.ones(indices.shape) if weights is None else weights)
        rewriter.replace(op, [], [y])


def _interpolated(
    rewriter: PatternRewriter, x: SSAValue, axis: int, indices: np.ndarray, weights: np.ndarray
) -> SSAValue:
    """One axis of `LowerInterpolatingResize`: loops over the output and the taps (reduction)."""
    out_shape = list(tensor_shape(x))
    out_shape[axis] = indices.shape[0]
    rank = len(out_shape)
    dims = [AffineDimExpr(d) for d in range(rank + 1)]
    table = affine_map(rank + 1, [dims[axis], dims[rank]])
    index_table = integer_constant(rewriter, indices.astype(np.int64), I32)
    weight_table = integer_constant(rewriter, weights.astype(np.float32), F32)

    def accumulate(body: Body) -> SSAValue:
        position = [body.index(d) for d in range(rank)]
        position[axis] = body.emit(arith.IndexCastOp(body.values["in0"], IndexType()))
        element = body.emit(tensor.ExtractOp(x, position, F32))
        return body.emit(arith.AddfOp(body.values["output"], body.emit(arith.MulfOp(body.values["in1"], element))))

    init = filled(rewriter, np.array(0.0), [], out_shape, F32)
    return build_generic(rewriter, [(index_table, table), (weight_table, table)],
                         (init, affine_map(rank + 1, dims[:rank])), [rank], accumulate)  # fmt: skip


def check_static(module: ModuleOp) -> None:
    """Fail on the first ONNX op on f32 tensors of a dynamic shape (the generics need static ones)."""
    for op in module.walk():
        values = (*op.operands, *op.results) if isinstance(op, OnnxOp) else ()
        if any(isinstance(v.type, TensorType) and v.type.element_type == F32 and not v.type.has_static_shape()
               for v in values):  # fmt: skip
            fail(op, "no float lowering for dynamic shapes (float islands need static ones)")


def check_lowered(module: ModuleOp) -> None:
    """Fail on the first ONNX op left on floats that is no data movement, and on any ONNX op
    on a float type other than f32."""
    for op in module.walk():
        if not isinstance(op, OnnxOp) or isinstance(op, OnnxConstantOp):
            continue
        floats = [v.type.element_type for v in (*op.operands, *op.results)
                  if isinstance(v.type, TensorType) and isinstance(v.type.element_type, AnyFloat)]  # fmt: skip
        if any(f != F32 for f in floats):
            fail(op, f"no float lowering for {floats[0]} (float islands compute in f32)")
        if floats and not isinstance(op, DATA_MOVEMENT):
            fail(op, "no float lowering for this op (it has no integer form either)")


@dataclass(frozen=True)
class OnnxFloatToLinalgPass(ModulePass):
    """Lower every float ONNX op of a float island to f32 linalg (module docstring); fail on
    one with no float lowering."""

    name = PASS_NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [LowerElementwise(), LowerConv(), LowerGemm(), LowerMatMul(), LowerBatchNorm(), LowerPools(),
                    LowerReductions(), LowerSoftmax(), LowerFloatQuant(), LowerLayerNorm(), LowerInstanceNorm(),
                    LowerDynamicQuantizeLinear(), LowerMatMulInteger(), LowerConvInteger(), LowerIntegerCast(),
                    DecomposeRecurrent(), LowerInterpolatingResize(), EraseUnusedOnnxOp()]  # fmt: skip
        check_static(op)
        walker = PatternRewriteWalker(GreedyRewritePatternApplier(patterns), post_walk_func=region_dce)
        walker.rewrite_module(op)
        check_lowered(op)
