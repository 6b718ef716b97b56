"""onnxruntime contrib ops (domain `com.microsoft`) that its quantizer (`quantize_static`,
QuantFormat.QOperator) emits, with the conventions of `base.py`: `onnx.<OpType>`, operands
and results named after the contrib schema's inputs and outputs in snake_case, every
attribute present (onnx.defs has no schemas for this domain: the importer fills each class's
`ATTRIBUTE_DEFAULTS`, and `op_class_for` and `ATTRIBUTE_DEFAULTS` are its contract, as in
`bitfold.dialects.qonnx`). com.microsoft QuantizeLinear / DequantizeLinear are the standard
ops and have no class here.

Semantics are onnxruntime 1.31's CPU kernels on x86-64 (MLAS), bit for bit: the formulas name
every float32 step in onnxruntime's order, in the notation of `bitfold.dialects.onnx.mlas`
(`fl`, `cvt`, `sat`, `dq`, `quantize`, `requantize`).
"""

from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnrankedTensorType,
    f32,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    opt_operand_def,
    result_def,
    var_operand_def,
)

from bitfold.dialects.evaluation import named_operands, numpy_dtype_of
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.mlas import (
    F32,
    float_scalar,
    fused_multiply_add,
    integer_zero_point,
    mlas_dequantize,
    mlas_quantize,
    x86_round,
)
from bitfold.dialects.onnx.nn import SlidingWindow
from bitfold.dialects.onnx.quantization import element_type_of, requantize_output, saturation_range

DOMAIN = "com.microsoft"

OperandTypes = Sequence[Attribute | None]
"""The types of a node's inputs, in order (None: an absent optional input)."""


def lookup_table(op: OnnxOp, values: dict[str, np.ndarray | None], transform: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """onnxruntime's QLinearLookupBase: y = table[x] with, for every code x of the 8-bit type,
    table[x] = quantize(transform(dq(x))) (float32 `transform`, y's scale and zero point)."""
    x = values["x"]
    low, high = saturation_range(op.y.type)
    codes = np.arange(low, high + 1)
    dequantized = mlas_dequantize(codes, float_scalar(values["x_scale"]), integer_zero_point(values["x_zero_point"]))
    table = mlas_quantize(
        transform(dequantized), float_scalar(values["y_scale"]), integer_zero_point(values["y_zero_point"]), low, high
    )
    return op.result_array(table[x.astype(np.int64) - low])


def shape_of(value_type: Attribute | None) -> tuple[int, ...] | None:
    """A ranked tensor type's shape (DYNAMIC_INDEX for unknown dimensions), else None."""
    return value_type.get_shape() if isinstance(value_type, TensorType) else None


def tensor_type(element: Attribute, shape: Sequence[int] | None) -> Attribute:
    """A tensor type of `element`s: ranked with `shape`, unranked for None."""
    return TensorType(element, shape) if shape is not None else UnrankedTensorType(element)


def broadcast_shape(a: Sequence[int] | None, b: Sequence[int] | None) -> tuple[int, ...] | None:
    """numpy's broadcast of two valid shapes (None: unknown rank); a dimension is dynamic
    where both are dynamic, or one is and the other is 1."""
    if a is None or b is None:
        return None
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b)
    return tuple(y if x == 1 else x if y in (1, x) else max(x, y) for x, y in zip(a, b))  # DYNAMIC_INDEX is -1


def _flag(attributes: Mapping[str, Attribute], name: str) -> int:
    """An INT attribute's value."""
    attribute = attributes[name]
    assert isinstance(attribute, IntegerAttr)
    return attribute.value.data


class ContribOp(OnnxOp):
    """Base of the com.microsoft ops: the contrib schema's type inference
    (`infer_result_types`, which onnx cannot run for this domain). `ATTRIBUTE_DEFAULTS` are the
    contrib schema's defaults; attributes without one (QLinearConcat's `axis`,
    QLinearAveragePool's `kernel_shape`) are required, and `pads` / `strides` stay absent when
    the node omits them."""

    @classmethod
    def infer_result_types(cls, operand_types: OperandTypes, attributes: Mapping[str, Attribute]) -> list[Attribute]:
        """The result types of a node with inputs of `operand_types` and these attributes
        (defaults filled), as onnxruntime's schema infers them; dimensions it cannot know are
        dynamic."""
        raise NotImplementedError(f"{cls.name} states no result types")

    def round_and_saturate(self, values: np.ndarray) -> np.ndarray:
        """`sat(cvt(values))` for float32 `values`, in the result's element type."""
        return self.result_array(np.clip(x86_round(values), *saturation_range(self.results[0].type)))


# ----------------------------------------------------------------------------------------
# QGemm
# ----------------------------------------------------------------------------------------


@irdl_op_definition
class QGemmOp(ContribOp):
    """acc = (A' - a_zero_point) @ (B' - b_zero_point) + c in int32 (wrapping), A' = A^T if
    transA, B' = B^T if transB, b_zero_point per tensor or per column (N entries), c int32
    broadcast to M x N; scale[j] = fl(fl(fl(alpha * a_scale) * b_scale[j]) / y_scale)
    (b_scale per tensor or per column; no division without y_scale).

    Quantized result (ui8 / i8, y_zero_point's type): y = sat(requantize(acc, scale[j])).
    Float result (no y_scale / y_zero_point): y = fl(float(acc) * scale[j]).
    onnxruntime's special case K = 0 (an empty product) is not modelled."""

    name = "onnx.QGemm"
    a = operand_def()
    a_scale = operand_def()
    a_zero_point = operand_def()
    b = operand_def()
    b_scale = operand_def()
    b_zero_point = operand_def()
    c = opt_operand_def()
    y_scale = opt_operand_def()
    y_zero_point = opt_operand_def()
    y = result_def()
    alpha = attr_def(FloatAttr)
    transA = attr_def(IntegerAttr[I64])
    transB = attr_def(IntegerAttr[I64])
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    ATTRIBUTE_DEFAULTS: ClassVar[dict[str, Attribute]] = {
        "alpha": FloatAttr(1.0, f32),
        "transA": IntegerAttr(0, 64),
        "transB": IntegerAttr(0, 64),
    }

    @classmethod
    def infer_result_types(cls, operand_types: OperandTypes, attributes: Mapping[str, Attribute]) -> list[Attribute]:
        """M x N (from A' and B'), of y_zero_point's element type, else float32."""
        a, b = shape_of(operand_types[0]), shape_of(operand_types[3])
        rows = None if a is None else a[_flag(attributes, "transA")]
        columns = None if b is None else b[1 - _flag(attributes, "transB")]
        y_zero_point = operand_types[8] if len(operand_types) > 8 else None
        element = f32 if y_zero_point is None else element_type_of(y_zero_point)
        return [TensorType(element, [DYNAMIC_INDEX if d is None else d for d in (rows, columns)])]

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        a = values["a"].T if self.int_attr("transA") else values["a"]
        b = values["b"].T if self.int_attr("transB") else values["b"]
        b_zero_point = values["b_zero_point"].astype(np.int64).reshape(-1)
        accumulator = (a.astype(np.int64) - integer_zero_point(values["a_zero_point"])) @ (
            b.astype(np.int64) - (b_zero_point if b_zero_point.size > 1 else b_zero_point[0])
        )
        if values["c"] is not None:
            accumulator = accumulator + values["c"].astype(np.int64)
        accumulator = accumulator.astype(np.int32)
        scale = F32(F32(self.float_attr("alpha")) * float_scalar(values["a_scale"])) * values["b_scale"].astype(F32).reshape(-1)
        if values["y_scale"] is not None:
            scale = scale / float_scalar(values["y_scale"])
        if np.issubdtype(numpy_dtype_of(self.y.type), np.floating):
            return (accumulator.astype(F32) * scale,)
        return (requantize_output(self, accumulator, scale, values["y_zero_point"]),)


# ----------------------------------------------------------------------------------------
# QLinearAdd, QLinearMul
# ----------------------------------------------------------------------------------------


class QLinearBinaryOp(ContribOp):
    """Operands and broadcasting (numpy rules) of QLinearAdd and QLinearMul; every scale and
    zero point is per tensor."""

    a = operand_def()
    a_scale = operand_def()
    a_zero_point = opt_operand_def()
    b = operand_def()
    b_scale = operand_def()
    b_zero_point = opt_operand_def()
    c_scale = operand_def()
    c_zero_point = opt_operand_def()
    c = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def infer_result_types(cls, operand_types: OperandTypes, attributes: Mapping[str, Attribute]) -> list[Attribute]:
        """A's element type, the broadcast shape of A and B."""
        a, b = operand_types[0], operand_types[3]
        return [tensor_type(element_type_of(a), broadcast_shape(shape_of(a), shape_of(b)))]

    def parameters(self, operands: Sequence[np.ndarray]):
        """(a, sa, za, b, sb, zb, sc, zc): arrays, float32 scales, int zero points."""
        v = named_operands(self, operands)
        return (
            v["a"], float_scalar(v["a_scale"]), integer_zero_point(v["a_zero_point"]),
            v["b"], float_scalar(v["b_scale"]), integer_zero_point(v["b_zero_point"]),
            float_scalar(v["c_scale"]), integer_zero_point(v["c_zero_point"]),
        )  # fmt: skip


def a_is_span_scalar(a_shape: Sequence[int], b_shape: Sequence[int]) -> bool:
    """Whether onnxruntime's broadcast loop runs QLinearAdd with A as the scalar of each span
    (and so hands B to MLAS as its first operand): along the innermost axis where the output
    is longer than 1, A has size 1; also for a one-element output (the loop tries A first)."""
    rank = max(len(a_shape), len(b_shape))
    a_dims = (1,) * (rank - len(a_shape)) + tuple(a_shape)
    b_dims = (1,) * (rank - len(b_shape)) + tuple(b_shape)
    for a_dim, b_dim in zip(reversed(a_dims), reversed(b_dims)):
        if max(a_dim, b_dim) > 1:
            return a_dim == 1
    return True


@irdl_op_definition
class QLinearAddOp(QLinearBinaryOp):
    """C = sat(cvt(fma(P, ratio_p, fma(Q, ratio_q, fixed)))), elementwise with numpy
    broadcasting, where fma rounds once to float32 and
    ratio_x = fl(x_scale / C_scale) for x in {A, B},
    fixed = fl(float(C_zp) - fma(ratio_p, float(P_zp), fl(ratio_q * float(Q_zp)))),
    on the raw stored integers (the zero points are in `fixed`). (P, Q) is (A, B), or (B, A)
    where onnxruntime's broadcast loop has A as the scalar of a span (`a_is_span_scalar`).
    This is MLAS's AVX2 kernel (qladd_avx2.cpp, FMA3; onnxruntime's build contracts the scalar
    products of `fixed` into an fma too), which every x86-64 with AVX2 runs. x86-64 CPUs
    without AVX2 run the SSE2 kernel (separate multiplies and adds), whose result differs by
    one where the sum lies within a float32 rounding of a tie."""

    name = "onnx.QLinearAdd"

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        a, sa, za, b, sb, zb, sc, zc = self.parameters(operands)
        (p, ratio_p, zp), (q, ratio_q, zq) = (a, sa / sc, za), (b, sb / sc, zb)
        if a_is_span_scalar(a.shape, b.shape):
            (p, ratio_p, zp), (q, ratio_q, zq) = (q, ratio_q, zq), (p, ratio_p, zp)
        fixed = F32(zc) - fused_multiply_add(ratio_p, F32(zp), ratio_q * F32(zq))
        inner = fused_multiply_add(q.astype(F32), ratio_q, fixed)
        return (self.round_and_saturate(fused_multiply_add(p.astype(F32), ratio_p, inner)),)


@irdl_op_definition
class QLinearMulOp(QLinearBinaryOp):
    """C = sat(cvt(fl(fl(float((A - A_zp) * (B - B_zp)) * ratio) + float(C_zp)))),
    elementwise with numpy broadcasting, ratio = fl(fl(A_scale * B_scale) / C_scale); the
    integer product is exact (|product| <= 65025). (MLAS's SSE2 QLinearMul kernel.)"""

    name = "onnx.QLinearMul"

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        a, sa, za, b, sb, zb, sc, zc = self.parameters(operands)
        product = (a.astype(np.int64) - za) * (b.astype(np.int64) - zb)
        return (self.round_and_saturate(product.astype(F32) * ((sa * sb) / sc) + F32(zc)),)


# ----------------------------------------------------------------------------------------
# Pooling: QLinearGlobalAveragePool, QLinearAveragePool
# ----------------------------------------------------------------------------------------


def channels_first(x: np.ndarray, channels_last: bool) -> np.ndarray:
    """An N x D1.. x C tensor as N x C x D1.. when `channels_last`, else `x`."""
    return np.moveaxis(x, -1, 1) if channels_last else x


def restore_layout(y: np.ndarray, channels_last: bool) -> np.ndarray:
    """The inverse of `channels_first`."""
    return np.moveaxis(y, 1, -1) if channels_last else y


def global_average_pool(op: OnnxOp, x: np.ndarray, values: dict[str, np.ndarray | None]) -> np.ndarray:
    """MLAS QLinearGlobalAveragePool of N x C x D1.. `x`, in y's type (N x C x 1..):
    acc = sum(x) - x_zp * size in int32 over the `size` spatial positions,
    scale = fl(x_scale / fl(y_scale * float(size))), y = sat(requantize(acc, scale)).
    onnxruntime refuses size >= 2^24 and scale outside [2^-32, 256); so does this."""
    size = int(np.prod(x.shape[2:]))
    scale = float_scalar(values["x_scale"]) / (float_scalar(values["y_scale"]) * F32(size))
    if size >= 2**24 or not 2.0**-32 <= scale < 256.0:
        raise ValueError(f"{op.node_name}: QLinearGlobalAveragePool parameter out of computation range")
    sums = x.reshape(*x.shape[:2], -1).astype(np.int64).sum(axis=-1)
    accumulator = (sums - integer_zero_point(values["x_zero_point"]) * size).reshape(*x.shape[:2], *[1] * (x.ndim - 2))
    return requantize_output(op, accumulator, scale, values["y_zero_point"])


@irdl_op_definition
class QLinearGlobalAveragePoolOp(ContribOp):
    """Y = average of X over its spatial axes (N x C x D1.. -> N x C x 1..; N x D1.. x C ->
    N x 1.. x C with channels_last), in integers: `global_average_pool`."""

    name = "onnx.QLinearGlobalAveragePool"
    x = operand_def()
    x_scale = operand_def()
    x_zero_point = operand_def()
    y_scale = operand_def()
    y_zero_point = operand_def()
    y = result_def()
    channels_last = attr_def(IntegerAttr[I64])

    ATTRIBUTE_DEFAULTS: ClassVar[dict[str, Attribute]] = {"channels_last": IntegerAttr(0, 64)}

    @classmethod
    def infer_result_types(cls, operand_types: OperandTypes, attributes: Mapping[str, Attribute]) -> list[Attribute]:
        """X's element type and shape with every spatial dimension 1."""
        x = operand_types[0]
        shape = shape_of(x)
        if shape is not None:
            spatial = range(1, len(shape) - 1) if _flag(attributes, "channels_last") else range(2, len(shape))
            shape = tuple(1 if axis in spatial else d for axis, d in enumerate(shape))
        return [tensor_type(element_type_of(x), shape)]

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        last = bool(self.int_attr("channels_last"))
        return (restore_layout(global_average_pool(self, channels_first(values["x"], last), values), last),)


class QLinearOneInputOp(ContribOp):
    """Operands of the QLinear ops with one input: X, its per-tensor scale and zero point
    (optional), Y's scale and zero point (optional), and Y."""

    x = operand_def()
    x_scale = operand_def()
    x_zero_point = opt_operand_def()
    y_scale = operand_def()
    y_zero_point = opt_operand_def()
    y = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)


@irdl_op_definition
class QLinearAveragePoolOp(QLinearOneInputOp):
    """Average pooling of dq(X) (N x C x D1.., or N x D1.. x C with channels_last) over the
    `SlidingWindow` of kernel_shape, strides, pads / auto_pad and ceil_mode (no dilations):
    sum = the float32 sum, in window order (row-major over the kernel, from 0.0), of dq(X) at
    the window's positions inside the input; count = prod(kernel_shape) with
    count_include_pad, else the number of those positions;
    Y = sat(cvt(fl(fl(fl(sum / float(count)) / y_scale) + float(y_zp)))) (the zero point is
    added before rounding). When the kernel covers the whole input and there is no padding,
    onnxruntime computes `global_average_pool` instead, and so does this op."""

    name = "onnx.QLinearAveragePool"
    auto_pad = attr_def(StringAttr)
    ceil_mode = attr_def(IntegerAttr[I64])
    channels_last = attr_def(IntegerAttr[I64])
    count_include_pad = attr_def(IntegerAttr[I64])
    kernel_shape = attr_def(DenseArrayBase[I64])
    pads = opt_attr_def(DenseArrayBase[I64])
    strides = opt_attr_def(DenseArrayBase[I64])

    ATTRIBUTE_DEFAULTS: ClassVar[dict[str, Attribute]] = {
        "auto_pad": StringAttr("NOTSET"),
        "ceil_mode": IntegerAttr(0, 64),
        "channels_last": IntegerAttr(0, 64),
        "count_include_pad": IntegerAttr(0, 64),
    }

    @classmethod
    def infer_result_types(cls, operand_types: OperandTypes, attributes: Mapping[str, Attribute]) -> list[Attribute]:
        """X's element type; N, C and the `SlidingWindow`'s output shape (spatial dimensions
        dynamic where one of X's is)."""
        x = operand_types[0]
        shape = shape_of(x)
        if shape is not None:
            last = _flag(attributes, "channels_last")
            batch, channels, spatial = shape[0], shape[-1 if last else 1], shape[1:-1] if last else shape[2:]
            kernel = attributes["kernel_shape"]
            assert isinstance(kernel, DenseArrayBase)
            if DYNAMIC_INDEX in spatial:
                pooled = (DYNAMIC_INDEX,) * len(spatial)
            else:
                window = SlidingWindow.from_attributes(attributes, spatial, kernel.get_values(), bool(_flag(attributes, "ceil_mode")))
                pooled = window.output_shape
            shape = (batch, *pooled, channels) if last else (batch, channels, *pooled)
        return [tensor_type(element_type_of(x), shape)]

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        last = bool(self.int_attr("channels_last"))
        x = channels_first(values["x"], last)
        kernel = self.ints_attr("kernel_shape")
        window = SlidingWindow.from_op(self, x.shape[2:], kernel, bool(self.int_attr("ceil_mode")))
        if tuple(kernel) == x.shape[2:] and not any(window.pads_begin + window.pads_end):
            pooled = global_average_pool(self, x, values)
        else:
            pooled = self.float_pool(x, window, values)
        return (restore_layout(pooled, last),)

    def float_pool(self, x: np.ndarray, window: SlidingWindow, values: dict[str, np.ndarray | None]) -> np.ndarray:
        """onnxruntime's float path (the formula of the class docstring), in y's type."""
        dequantized = mlas_dequantize(x, float_scalar(values["x_scale"]), integer_zero_point(values["x_zero_point"]))
        taps = window.windows(dequantized, 0.0).reshape(*x.shape[:2], *window.output_shape, -1)
        total = np.zeros(taps.shape[:-1], dtype=F32)
        for tap in np.moveaxis(taps, -1, 0):  # float32 sums in window order; padding adds 0.0
            total = total + tap
        if self.int_attr("count_include_pad"):
            count = np.full(window.output_shape, window.taps)
        else:
            count = window.taps_inside([0] * len(window.kernel), list(x.shape[2:]))
        average = total / count.astype(F32)
        zero_point = integer_zero_point(values["y_zero_point"])
        return self.round_and_saturate(average / float_scalar(values["y_scale"]) + F32(zero_point))


# ----------------------------------------------------------------------------------------
# QLinearConcat
# ----------------------------------------------------------------------------------------


@irdl_op_definition
class QLinearConcatOp(ContribOp):
    """`inputs` is (X_i, X_i_scale, X_i_zero_point) for each tensor i; Y is the concatenation
    along `axis` of quantize(dq(X_i)) (with Y's scale and zero point). For X_i already in Y's
    quantization this is X_i: fl(fl(s * k) / s) is within an ulp of k for |k| <= 255."""

    name = "onnx.QLinearConcat"
    y_scale = operand_def()
    y_zero_point = operand_def()
    inputs = var_operand_def()
    y = result_def()
    axis = attr_def(IntegerAttr[I64])

    @classmethod
    def infer_result_types(cls, operand_types: OperandTypes, attributes: Mapping[str, Attribute]) -> list[Attribute]:
        """y_zero_point's element type; the tensors' shape with their `axis` dimensions summed
        (dynamic where one is)."""
        shapes = [shape_of(t) for t in operand_types[2::3]]
        element = element_type_of(operand_types[1])
        if any(shape is None for shape in shapes):
            return [UnrankedTensorType(element)]
        axis = _flag(attributes, "axis") % len(shapes[0])
        sizes = [shape[axis] for shape in shapes]
        joined = DYNAMIC_INDEX if DYNAMIC_INDEX in sizes else sum(sizes)
        return [TensorType(element, [*shapes[0][:axis], joined, *shapes[0][axis + 1:]])]

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        y_scale, y_zero_point, *inputs = operands
        scale, zero_point = float_scalar(y_scale), integer_zero_point(y_zero_point)
        low, high = saturation_range(self.y.type)
        parts = [
            mlas_quantize(mlas_dequantize(x, float_scalar(s), integer_zero_point(z)), scale, zero_point, low, high)
            for x, s, z in zip(inputs[0::3], inputs[1::3], inputs[2::3], strict=True)
        ]
        return (self.result_array(np.concatenate(parts, axis=self.int_attr("axis"))),)


# ----------------------------------------------------------------------------------------
# Lookup-table activations: QLinearSigmoid, QLinearLeakyRelu
# ----------------------------------------------------------------------------------------


class QLinearUnaryOp(QLinearOneInputOp):
    """The activations (QLinearSigmoid and QLinearLeakyRelu by lookup table, QLinearSoftmax): Y of X's
    type."""

    @classmethod
    def infer_result_types(cls, operand_types: OperandTypes, attributes: Mapping[str, Attribute]) -> list[Attribute]:
        """X's type."""
        return [operand_types[0]]


LOGISTIC_RANGE = (F32(-18.0), F32(18.0))
LOGISTIC_NUMERATOR = tuple(map(F32, (4.37031012579801e-11, 1.15627324459942e-07, 6.08574864600143e-05,
                                     8.51377133304701e-03, 2.48287947061529e-01)))  # fmt: skip
LOGISTIC_DENOMINATOR = tuple(map(F32, (6.10247389755681e-13, 5.76102136993427e-09, 6.29106785017040e-06,
                                       1.70198817374094e-03, 1.16817656904453e-01, 9.93151921023180e-01)))  # fmt: skip
"""MLAS's rational approximation of the logistic function (`MlasLogisticConstants`): the odd
numerator's coefficients of v^9, v^7, .., v and the even denominator's of v^10, v^8, .., 1."""


def mlas_logistic(values: np.ndarray) -> np.ndarray:
    """MLAS `MlasComputeLogistic` (its FMA3 kernel), float32: v = clamp(values, -18, 18),
    w = fl(v * v), p = fl(horner(w, numerator) * v), q = horner(w, denominator) where each
    Horner step is one fused multiply-add, result = clamp(fl(fl(p / q) + 0.5), 0, 1)."""
    v = np.clip(values, *LOGISTIC_RANGE)
    square = v * v
    numerator, denominator = LOGISTIC_NUMERATOR[0], LOGISTIC_DENOMINATOR[0]
    for coefficient in LOGISTIC_NUMERATOR[1:]:
        numerator = fused_multiply_add(numerator, square, coefficient)
    for coefficient in LOGISTIC_DENOMINATOR[1:]:
        denominator = fused_multiply_add(denominator, square, coefficient)
    return np.clip((numerator * v) / denominator + F32(0.5), F32(0.0), F32(1.0))


@irdl_op_definition
class QLinearSigmoidOp(QLinearUnaryOp):
    """Y = table[X], table[x] = quantize(mlas_logistic(dq(x))) (`lookup_table`): MLAS's
    rational approximation of 1 / (1 + exp(-v)), not the exact function."""

    name = "onnx.QLinearSigmoid"

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return (lookup_table(self, named_operands(self, operands), mlas_logistic),)


@irdl_op_definition
class QLinearLeakyReluOp(QLinearUnaryOp):
    """Y = table[X], table[x] = quantize(v if v >= 0 else fl(v * alpha)) with v = dq(x)
    (`lookup_table`), alpha as float32."""

    name = "onnx.QLinearLeakyRelu"
    alpha = attr_def(FloatAttr)

    ATTRIBUTE_DEFAULTS: ClassVar[dict[str, Attribute]] = {"alpha": FloatAttr(0.01, f32)}

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        alpha = F32(self.float_attr("alpha"))
        return (lookup_table(self, named_operands(self, operands), lambda v: np.where(v >= 0, v, v * alpha)),)


@irdl_op_definition
class QLinearSoftmaxOp(QLinearUnaryOp):
    """onnxruntime's QLinearSoftmax (`qlinear_softmax.cc`), 8-bit X and Y. Along `axis` (default
    -1, the schema's, whatever `opset`; `opset` >= 13: that axis, below: the dimensions from
    `axis` on), with d = x - max(x) and in float32 unless stated:

        e(d) = fl32(exp((d + c) * X_scale))        in float64, c = max(0, ln(fl32(FLT_MAX / D)) - 5) / X_scale
        S    = e(d_0) + e(d_1) + ...               summed in order
        y    = saturate(nearbyint(e(d) * floor(1 / Y_scale) / S) + Y_zero_point)

    X's zero point cancels. (Older onnxruntime sources read an int8 y above 127 as its low
    byte; 1.32 saturates, as here.)"""

    name = "onnx.QLinearSoftmax"
    axis = attr_def(IntegerAttr[I64])
    opset = attr_def(IntegerAttr[I64])

    ATTRIBUTE_DEFAULTS: ClassVar[dict[str, Attribute]] = {"axis": IntegerAttr(-1, 64)}

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        x = values["x"]
        opset = self.int_attr("opset")
        axis = self.int_attr("axis") % x.ndim
        rows = np.moveaxis(x, axis, -1) if opset >= 13 else x.reshape(*x.shape[:axis], -1)
        length = rows.shape[-1]
        x_scale = float_scalar(values["x_scale"])
        shift = max(0.0, float(np.log(np.float64(np.finfo(F32).max / F32(length)))) - 5) / np.float64(x_scale)
        d = rows.astype(np.int64) - rows.max(axis=-1, keepdims=True).astype(np.int64)
        e = np.exp((d.astype(np.float64) + shift) * np.float64(x_scale)).astype(F32)
        total = np.cumsum(e, axis=-1, dtype=F32)[..., -1:]
        inverse = np.floor(F32(1) / float_scalar(values["y_scale"]))
        y = np.rint(e * inverse / total).astype(np.int64) + integer_zero_point(values["y_zero_point"])
        y = np.clip(y, *saturation_range(self.x.type))
        y = np.moveaxis(y, -1, axis) if opset >= 13 else y.reshape(x.shape)
        return (self.result_array(y),)


# ----------------------------------------------------------------------------------------
# MatMulNBits (weight-only blocked quantization, onnxruntime's MatMulNBitsQuantizer)
# ----------------------------------------------------------------------------------------


def unpack_bits(packed: np.ndarray, bits: int, count: int) -> np.ndarray:
    """The first `count` `bits`-bit unsigned values of each row of uint8 `packed` (last axis),
    the lowest bits of each byte first (onnxruntime's layout)."""
    per_byte = 8 // bits
    shifts = np.arange(per_byte, dtype=np.uint8) * bits
    values = (packed[..., None] >> shifts) & ((1 << bits) - 1)
    return values.reshape(*packed.shape[:-1], -1)[..., :count].astype(np.int64)


@irdl_op_definition
class MatMulNBitsOp(ContribOp):
    """Y = A @ W^T (+ bias), W the N x K weight stored as `bits`-bit unsigned integers in blocks
    of `block_size` along K: B is N x n_blocks x (block_size bits / 8) uint8, lowest bits first;
    scales N x n_blocks (flattened or not), zero points packed the same way per row (absent:
    2^(bits - 1)) or float (N x n_blocks); W[n, k] = (q[n, k] - zp[n, k / block_size]) *
    scales[n, k / block_size] in float32. The product is computed in float64 and rounded once
    to float32 (onnxruntime's fp32 kernel accumulates in float32: the bound of the float MatMul).
    g_idx (act-order) and weight_prepacked are not supported."""

    name = "onnx.MatMulNBits"
    a = operand_def()
    b = operand_def()
    scales = operand_def()
    zero_points = opt_operand_def()
    g_idx = opt_operand_def()
    bias = opt_operand_def()
    y = result_def()
    K = attr_def(IntegerAttr[I64])
    N = attr_def(IntegerAttr[I64])
    bits = attr_def(IntegerAttr[I64])
    block_size = attr_def(IntegerAttr[I64])
    accuracy_level = attr_def(IntegerAttr[I64])
    weight_prepacked = attr_def(IntegerAttr[I64])
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    ATTRIBUTE_DEFAULTS: ClassVar[dict[str, Attribute]] = {"bits": IntegerAttr(4, 64),
                                                          "accuracy_level": IntegerAttr(0, 64),
                                                          "weight_prepacked": IntegerAttr(0, 64)}

    @classmethod
    def infer_result_types(cls, operand_types: OperandTypes, attributes: Mapping[str, Attribute]) -> list[Attribute]:
        """A's shape with its last dimension N, of A's element type."""
        a = shape_of(operand_types[0])
        n = attributes["N"].value.data  # pyright: ignore[reportAttributeAccessIssue]
        return [tensor_type(element_type_of(operand_types[0]), None if a is None else (*a[:-1], n))]

    def weight_parameters(self, values: Mapping[str, np.ndarray | None]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(q, zero points, scales): the N x K stored integers, the N x n_blocks zero points (int64,
        or float32 when the model gives floats) and float32 scales."""
        k, n, bits = self.int_attr("K"), self.int_attr("N"), self.int_attr("bits")
        if self.g_idx is not None:
            raise ValueError("MatMulNBits with g_idx (act-order) is not supported")
        if self.int_attr("weight_prepacked"):
            raise ValueError("MatMulNBits with weight_prepacked (a kernel's own layout) is not supported")
        if bits not in (2, 4, 8):
            raise ValueError(f"MatMulNBits with bits={bits} is not supported (2, 4 or 8)")
        blocks = -(-k // self.int_attr("block_size"))
        q = unpack_bits(values["b"].reshape(n, -1), bits, k)
        scales = values["scales"].astype(F32).reshape(n, blocks)
        zero_points = values["zero_points"]
        if zero_points is None:
            zero_points = np.full((n, blocks), 1 << (bits - 1), np.int64)
        elif np.issubdtype(zero_points.dtype, np.floating):
            zero_points = zero_points.astype(F32).reshape(n, blocks)
        else:
            zero_points = unpack_bits(zero_points.reshape(n, -1), bits, blocks)
        return q, zero_points, scales

    def weights(self, values: Mapping[str, np.ndarray | None]) -> np.ndarray:
        """W (N x K, float32), dequantized as onnxruntime does."""
        q, zero_points, scales = self.weight_parameters(values)
        block_size = self.int_attr("block_size")
        expand = lambda table: np.repeat(table, block_size, axis=1)[:, : q.shape[1]]
        return ((q - expand(zero_points)).astype(F32) * expand(scales)).astype(F32)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        y = np.matmul(values["a"].astype(np.float64), self.weights(values).T.astype(np.float64))
        if values["bias"] is not None:
            y = y + values["bias"].astype(np.float64)
        return (y.astype(values["a"].dtype),)


# ----------------------------------------------------------------------------------------
# The importer's contract
# ----------------------------------------------------------------------------------------

OPS = [
    QGemmOp,
    QLinearAddOp,
    QLinearMulOp,
    QLinearGlobalAveragePoolOp,
    QLinearAveragePoolOp,
    QLinearConcatOp,
    QLinearSigmoidOp,
    QLinearLeakyReluOp,
    QLinearSoftmaxOp,
    MatMulNBitsOp,
]

_OP_CLASSES: dict[str, type[ContribOp]] = {op.name.removeprefix("onnx."): op for op in OPS}


def op_class_for(op_type: str, version: int) -> type[ContribOp] | None:
    """The op class of a com.microsoft node at that domain's opset `version` (each op here
    exists since version 1); None for other op types (QuantizeLinear and DequantizeLinear of
    this domain are the standard ops: the importer maps them) and versions below 1."""
    return _OP_CLASSES.get(op_type) if version >= 1 else None
