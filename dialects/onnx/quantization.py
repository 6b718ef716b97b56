"""ONNX quantization ops (see `base.py` for the conventions every onnx op follows).

QuantizeLinear and DequantizeLinear have opset 25's signature (the importer upgrades opsets
10 to 24; `precision` of opset 23+ is kept); the QLinear and Integer ops have their only (or
newest) signature. The formulas below are the ONNX specification's, with the float arithmetic
of onnx's reference implementation where the specification leaves it open, so that results
match onnx's node tests bit for bit; except QLinearConv and QLinearMatMul, which requantize
in float32 as onnxruntime does (`bitfold.dialects.onnx.mlas`; their docstrings say where
onnx's reference differs).

Shared notation:
- `round` is round half to even; `saturate(v)` clamps to the range of the result's integer
  type (`i8` [-128, 127], `ui8` [0, 255], `i16`, `ui16`, `i4` [-8, 7], `ui4`, `i2` [-2, 1],
  `ui2`), whose element type is the op's result type (the importer takes it from ONNX's
  shape inference: the zero point's type, else `output_dtype`, else uint8);
- a missing zero point is 0;
- scale and zero point broadcast as `expand(p, shape, axis, block_size)`: a scalar or
  one-element tensor applies to every element (per tensor); otherwise with `block_size == 0`
  a 1-D tensor applies along `axis` (per axis); with `block_size > 0` `p` has the input's rank
  and entry `p[..., i // block_size, ...]` (along `axis`) applies to element `i` (blocked).

Float storage (float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz, float4e2m1, opsets
19 and 23): `round` is then rounding to the nearest value of the format, half to even, and
`saturate` the `saturate` attribute's choice for values beyond the format's largest one,
both as `bitfold.dialects.minifloat.encode` states them (ONNX's Cast tables); the zero point
must be zero (a float4 zero point is added to x / y_scale all the same, which makes -0 +0,
as onnx's reference does). Values are held as ml_dtypes arrays, one byte each.

Values of type bf16 are held in float32 (see `bitfold.dialects.evaluation`), so bf16
arithmetic here is float32 arithmetic.
"""

from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.dialects.builtin import (
    I64,
    ContainerType,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    result_def,
)
from xdsl.utils.exceptions import VerifyException

from bitfold.dialects.evaluation import named_operands, numpy_dtype_of
from bitfold.dialects.minifloat import decode, encode, is_float_storage
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.mlas import integer_zero_point, mlas_requantize, requantization_scale
from bitfold.dialects.onnx.nn import ConvolutionOp
from bitfold.dialects.onnx.quantization_parameters import PRECISION_DTYPES, verify_qdq
from bitfold.dialects.quant import integer_range

ACCUMULATOR = np.int32
"""ONNX's integer ops accumulate in int32, wrapping on overflow."""


# ----------------------------------------------------------------------------------------
# Shared arithmetic
# ----------------------------------------------------------------------------------------


def integer_element(value_type: Attribute) -> IntegerType:
    """The integer element type of a tensor type (verifiers ensure it is one)."""
    element = value_type.element_type if isinstance(value_type, TensorType) else value_type
    assert isinstance(element, IntegerType)
    return element


def with_element_type(value_type: Attribute, element: Attribute) -> TensorType | UnrankedTensorType:
    """A tensor type of `value_type`'s shape (ranked or unranked) with `element` elements."""
    if isinstance(value_type, TensorType):
        return TensorType(element, value_type.get_shape())
    return UnrankedTensorType(element)


def element_type_of(value_type: Attribute) -> Attribute:
    """The element type of a tensor type."""
    assert isinstance(value_type, ContainerType)
    return value_type.get_element_type()


def saturation_range(value_type: Attribute) -> tuple[int, int]:
    """Inclusive range of a tensor's integer element type (signless counts as signed)."""
    element = integer_element(value_type)
    return integer_range(element.width.data, element.signedness.data != Signedness.UNSIGNED)


def expand(parameter: np.ndarray, shape: Sequence[int], axis: int, block_size: int) -> np.ndarray:
    """Broadcast a scale or zero point to `shape`: per tensor, per axis or blocked (see the
    module docstring); ONNX's `reshape_input`."""
    if parameter.size == 1:
        return parameter.reshape(())
    axis %= len(shape)
    if block_size <= 0:
        dims = [1] * len(shape)
        dims[axis] = parameter.size
        return parameter.reshape(dims)
    return np.repeat(parameter, block_size, axis=axis).take(range(shape[axis]), axis=axis)


def saturate_integers(values: np.ndarray, low: int, high: int, dtype: np.dtype) -> np.ndarray:
    """`saturate(values)` of integer-valued floats (already rounded) as `dtype`. NaN, which
    ONNX leaves unspecified, becomes `low` as in onnxruntime (int8 -128, uint8 0)."""
    return np.clip(np.nan_to_num(values.astype(np.float64), nan=low), low, high).astype(dtype)


def minus_zero_point(values: np.ndarray, zero_point: np.ndarray | None) -> np.ndarray:
    """`values - zero_point` in int64 (exact), a missing zero point being 0."""
    wide = values.astype(np.int64)
    return wide if zero_point is None else wide - zero_point.astype(np.int64)


def matmul_integer(a: np.ndarray, a_zero_point: np.ndarray | None,
                   b: np.ndarray, b_zero_point: np.ndarray | None) -> np.ndarray:
    """`(a - a_zero_point) @ (b - b_zero_point)` with numpy matmul broadcasting, in int32
    (wrapping). A 1-D `a_zero_point` of M entries applies per row of the M x K matrix `a`, a
    1-D `b_zero_point` of N entries per column of the K x N matrix `b` (the ONNX schema)."""
    if a_zero_point is not None and a_zero_point.ndim == 1 and a_zero_point.size > 1:
        a_zero_point = a_zero_point.reshape(-1, 1)
    return np.matmul(minus_zero_point(a, a_zero_point), minus_zero_point(b, b_zero_point)).astype(ACCUMULATOR)


def convolve_integers(op: ConvolutionOp, x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """`op.convolve(x, w, b)` (`ConvolutionOp.convolve`: zero padding) in exact int64
    arithmetic, returned in int32 (wrapping)."""
    return op.convolve(x.astype(np.int64), w.astype(np.int64), None if b is None else b.astype(np.int64)).astype(ACCUMULATOR)


def per_output_channel(parameter: np.ndarray | None, rank: int) -> np.ndarray | None:
    """A per-tensor or per-output-channel (1-D, M entries) weight parameter, shaped to
    broadcast against an M x C x K1... weight (or an N x M x O1... output) of `rank`."""
    if parameter is None or parameter.size == 1:
        return None if parameter is None else parameter.reshape(())
    return parameter.reshape(-1, *[1] * (rank - 1))


# ----------------------------------------------------------------------------------------
# QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear
# ----------------------------------------------------------------------------------------


def _verify_integer_result(value_type: Attribute, role: str) -> None:
    element = value_type.element_type if isinstance(value_type, TensorType) else value_type
    if not isinstance(element, IntegerType) or element.width.data > 16:
        raise VerifyException(f"{role} must be a tensor of 2 to 16-bit integers, got {value_type}")


@irdl_op_definition
class QuantizeLinearOp(OnnxOp):
    """y = saturate(round(x / y_scale) + y_zero_point), elementwise with
    `expand(y_scale / y_zero_point, x.shape, axis, block_size)`. The division is computed in
    the `precision` type when it is set (an ONNX data type code), else in `y_scale`'s type
    (x converted to it first); rounding happens before the zero point is added. A float8 or
    float4 result is `encode(x / y_scale, saturate)` (module docstring). `output_dtype` (0:
    take the zero point's type, else uint8) is reflected in the result type."""

    name = "onnx.QuantizeLinear"
    x = operand_def()
    y_scale = operand_def()
    y_zero_point = opt_operand_def()
    y = result_def()
    axis = attr_def(IntegerAttr[I64])
    block_size = attr_def(IntegerAttr[I64])
    output_dtype = attr_def(IntegerAttr[I64])
    precision = attr_def(IntegerAttr[I64])
    saturate = attr_def(IntegerAttr[I64])
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        """`quantization_parameters.verify_qdq`: types, shapes and constant scales as
        onnxruntime checks them."""
        verify_qdq(self, self.x, self.y_scale, self.y_zero_point, self.y.type,
                   ("result 'y'", "y_scale", "y_zero_point"), dequantize=False)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute | None], attributes: Mapping[str, Attribute]) -> list[Attribute]:
        """For com.microsoft QuantizeLinear (onnx types the standard one): x's shape,
        y_zero_point's element type, else uint8 (that domain has no `output_dtype`)."""
        x, _, *zero_point = operand_types
        element = element_type_of(zero_point[0]) if zero_point and zero_point[0] is not None else IntegerType(8, Signedness.UNSIGNED)
        return [with_element_type(x, element)]

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        x, scale, zero_point = values["x"], values["y_scale"], values["y_zero_point"]
        axis, block_size = self.int_attr("axis"), self.int_attr("block_size")
        dtype = PRECISION_DTYPES.get(self.int_attr("precision"), scale.dtype)
        quotient = x.astype(dtype) / expand(scale, x.shape, axis, block_size).astype(dtype)
        element = element_type_of(self.y.type)
        if is_float_storage(element):
            if zero_point is not None:
                zero_point = expand(zero_point, x.shape, axis, block_size)
            return (self._quantize_to_float(quotient, zero_point, element),)
        shifted = np.rint(quotient).astype(np.float64)
        if zero_point is not None:
            shifted = shifted + expand(zero_point, x.shape, axis, block_size)
        low, high = saturation_range(self.y.type)
        return (saturate_integers(shifted, low, high, numpy_dtype_of(self.y.type)),)

    def _quantize_to_float(self, quotient: np.ndarray, zero_point: np.ndarray | None, element: Attribute) -> np.ndarray:
        quotient = quotient.astype(np.float32)
        if zero_point is not None and element.bitwidth == 4:
            quotient = quotient + zero_point.astype(np.float32)
        bits = encode(quotient, element.SEMANTICS, saturate=self.int_attr("saturate") == 1)
        return bits.view(numpy_dtype_of(self.y.type))


@irdl_op_definition
class DequantizeLinearOp(OnnxOp):
    """y = float32(x - x_zero_point) * float32(x_scale), rounded to the result type
    (`output_dtype`, else x_scale's type), elementwise with
    `expand(x_scale / x_zero_point, x.shape, axis, block_size)`. The subtraction is exact.
    A float8 or float4 x is `decode(x)` (exact; its zero point is zero) times x_scale."""

    name = "onnx.DequantizeLinear"
    x = operand_def()
    x_scale = operand_def()
    x_zero_point = opt_operand_def()
    y = result_def()
    axis = attr_def(IntegerAttr[I64])
    block_size = attr_def(IntegerAttr[I64])
    output_dtype = attr_def(IntegerAttr[I64])
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        """`quantization_parameters.verify_qdq` (x may also be int32)."""
        verify_qdq(self, self.x, self.x_scale, self.x_zero_point, self.x.type,
                   ("operand 'x'", "x_scale", "x_zero_point"), dequantize=True)

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute | None], attributes: Mapping[str, Attribute]) -> list[Attribute]:
        """For com.microsoft DequantizeLinear (onnx types the standard one): x's shape,
        x_scale's element type."""
        return [with_element_type(operand_types[0], element_type_of(operand_types[1]))]

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        x, scale, zero_point = values["x"], values["x_scale"], values["x_zero_point"]
        axis, block_size = self.int_attr("axis"), self.int_attr("block_size")
        element = element_type_of(self.x.type)
        if is_float_storage(element):
            difference = decode(x, element.SEMANTICS)
        else:
            if zero_point is not None:
                zero_point = expand(zero_point, x.shape, axis, block_size)
            difference = minus_zero_point(x, zero_point).astype(np.float32)
        product = difference * expand(scale, x.shape, axis, block_size).astype(np.float32)
        return (product.astype(numpy_dtype_of(self.y.type)),)


@irdl_op_definition
class DynamicQuantizeLinearOp(OnnxOp):
    """uint8 quantization of x with parameters computed from x, all in float32:
    y_scale = (max(0, max(x)) - min(0, min(x))) / 255 (1 / 255 when the two are equal),
    y_zero_point = round(clamp(0 - min(0, min(x)) / y_scale, 0, 255)),
    y = saturate(round(x / y_scale) + y_zero_point)."""

    name = "onnx.DynamicQuantizeLinear"
    x = operand_def()
    y = result_def()
    y_scale = result_def()
    y_zero_point = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        low, high = 0, 255
        x_max = np.float32(max(0.0, x.max()))
        x_min = np.float32(min(0.0, x.min()))
        scale = np.float32(1.0 if x_max == x_min else x_max - x_min) / np.float32(high - low)
        zero_point = np.rint(np.clip(np.float32(low) - x_min / scale, low, high))
        y = saturate_integers(np.rint(x / scale) + zero_point, low, high, np.uint8)
        return y, np.array(scale, dtype=np.float32), np.array(zero_point, dtype=np.uint8)


# ----------------------------------------------------------------------------------------
# Integer ops: MatMulInteger, ConvInteger, QLinearMatMul, QLinearConv
# ----------------------------------------------------------------------------------------


@irdl_op_definition
class MatMulIntegerOp(OnnxOp):
    """y = (a - a_zero_point) @ (b - b_zero_point) in int32 (see `matmul_integer`)."""

    name = "onnx.MatMulInteger"
    a = operand_def()
    b = operand_def()
    a_zero_point = opt_operand_def()
    b_zero_point = opt_operand_def()
    y = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        return (matmul_integer(values["a"], values["a_zero_point"], values["b"], values["b_zero_point"]),)


@irdl_op_definition
class ConvIntegerOp(ConvolutionOp):
    """y = Conv(x - x_zero_point, w - w_zero_point) in int32, zero padding after the zero
    point is subtracted (`convolve_integers`); `x_zero_point` is per tensor,
    `w_zero_point` per tensor or per output channel."""

    name = "onnx.ConvInteger"
    x = operand_def()
    w = operand_def()
    x_zero_point = opt_operand_def()
    w_zero_point = opt_operand_def()
    y = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        x, w = values["x"], values["w"]
        x_zero_point = values["x_zero_point"]
        x_shifted = minus_zero_point(x, None if x_zero_point is None else x_zero_point.reshape(()))
        w_shifted = minus_zero_point(w, per_output_channel(values["w_zero_point"], w.ndim))
        return (convolve_integers(self, x_shifted, w_shifted),)


def requantize_output(op: OnnxOp, accumulator: np.ndarray, scale: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
    """`sat(requantize(accumulator, scale))` (`bitfold.dialects.onnx.mlas`) as the type of
    `op`'s result `y`, with y's per-tensor `zero_point`."""
    low, high = saturation_range(op.y.type)
    return op.result_array(mlas_requantize(accumulator, scale, integer_zero_point(zero_point), low, high))


@irdl_op_definition
class QLinearMatMulOp(OnnxOp):
    """y = sat(requantize(acc, scale)) as onnxruntime computes it (MLAS on x86-64, notation of
    `bitfold.dialects.onnx.mlas`): acc = (a - a_zero_point) @ (b - b_zero_point) in int32
    (see `matmul_integer`), scale = fl(fl(a_scale * b_scale) / y_scale) in float32 (per
    column of b where b_scale is, per row of a where a_scale is), rounded half to even before
    y_zero_point is added. onnx's reference instead rounds float64(acc) * scale + y_zero_point:
    the two differ where that sum is a tie and y_zero_point odd, or where float32 rounding of
    the product moves it across a rounding boundary. The result type is y_zero_point's."""

    name = "onnx.QLinearMatMul"
    a = operand_def()
    a_scale = operand_def()
    a_zero_point = operand_def()
    b = operand_def()
    b_scale = operand_def()
    b_zero_point = operand_def()
    y_scale = operand_def()
    y_zero_point = operand_def()
    y = result_def()

    def verify_(self) -> None:
        _verify_integer_result(self.y.type, "result 'y'")

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point = operands
        accumulator = matmul_integer(a, a_zero_point, b, b_zero_point)
        if a_scale.size > 1:  # per row of a
            a_scale = a_scale.reshape(-1, 1)
        return (requantize_output(self, accumulator, requantization_scale(a_scale, b_scale, y_scale), y_zero_point),)


@irdl_op_definition
class QLinearConvOp(ConvolutionOp):
    """y = sat(requantize(acc, scale)) as onnxruntime computes it (MLAS on x86-64, notation of
    `bitfold.dialects.onnx.mlas`): acc = Conv(x - x_zero_point, w - w_zero_point) + b in int32
    (`convolve_integers`: zero padding after the zero point is subtracted),
    scale = fl(fl(x_scale * w_scale) / y_scale) in float32, per output channel where w_scale
    is; rounded half to even before y_zero_point is added (onnx's reference differs as
    QLinearMatMul's does). The result type is y_zero_point's."""

    name = "onnx.QLinearConv"
    x = operand_def()
    x_scale = operand_def()
    x_zero_point = operand_def()
    w = operand_def()
    w_scale = operand_def()
    w_zero_point = operand_def()
    y_scale = operand_def()
    y_zero_point = operand_def()
    b = opt_operand_def()
    y = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        _verify_integer_result(self.y.type, "result 'y'")

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        x, w = values["x"], values["w"]
        x_shifted = minus_zero_point(x, values["x_zero_point"].reshape(()))
        w_shifted = minus_zero_point(w, per_output_channel(values["w_zero_point"], w.ndim))
        accumulator = convolve_integers(self, x_shifted, w_shifted, values["b"])
        scale = requantization_scale(values["x_scale"], per_output_channel(values["w_scale"], x.ndim - 1), values["y_scale"])
        return (requantize_output(self, accumulator, scale, values["y_zero_point"]),)


OPS = [
    QuantizeLinearOp,
    DequantizeLinearOp,
    DynamicQuantizeLinearOp,
    MatMulIntegerOp,
    ConvIntegerOp,
    QLinearMatMulOp,
    QLinearConvOp,
]
