"""The checks of QuantizeLinear / DequantizeLinear parameters, as strict as onnxruntime's
(its type constraints and `PrepareForQDQ`'s shape checks), plus bitfold's own on constant
scales. `verify_qdq` raises `VerifyException` naming the operand.

Types (the newest opset's; the ONNX importer also checks each node's types against its own
opset's schema, so an int16 zero point at opset 13 is refused there):
- scale: float32, float16 or bfloat16 (opset 23's int32 scales of QuantizeLinear are
  refused, as onnxruntime has no kernel for them);
- the integer side (QuantizeLinear's result, DequantizeLinear's input) and the zero point, of
  one and the same type: int2/4/8/16 or uint2/4/8/16, or a float storage type (float8e4m3fn,
  float8e4m3fnuz, float8e5m2, float8e5m2fnuz, float4e2m1: `bitfold.dialects.minifloat`);
  DequantizeLinear's input may also be int32 (with a zero point of int32);
- QuantizeLinear's `output_dtype`, when not 0, the type of the result (and of the zero point);
  its `precision` 0 or one of `PRECISION_DTYPES`.

Shapes (onnxruntime's order): `block_size` < 0 is refused; a scalar or one-element 1-D scale
is per tensor (`block_size` then 0, the zero point of the same kind); otherwise 0 means per axis (`axis` in
[-rank, rank), scale and zero point 1-D of x.shape[axis] elements), > 0 blocked (scale of x's
rank, x's dimensions except along `axis`, where it has ceil(x.shape[axis] / block_size)
entries; the zero point of the scale's shape). Dynamic dimensions are not compared.

Values: a constant scale must be finite and positive (onnxruntime divides by zero, NaN or a
negative scale silently; bitfold refuses them), except that DequantizeLinear's may be negative
(onnxruntime's symmetric int4 quantizer writes them; onnx-to-quant folds the sign into the
weight): only zero, NaN and infinities are refused there; a constant float zero point must be zero
(onnx's reference refuses others for float8; the specification calls it "usually not used").
"""

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    ContainerType,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.utils.exceptions import VerifyException

from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.minifloat import is_float_storage
from bitfold.dialects.onnx.constant import constant_operand

PRECISION_DTYPES = {1: np.float32, 10: np.float16, 11: np.float64, 16: np.float32}
"""QuantizeLinear's `precision` (an ONNX TensorProto data type: FLOAT, FLOAT16, DOUBLE,
BFLOAT16) as the numpy dtype the division is computed in (bf16 held in float32). 0 means
the scale's type; other values are refused. (onnxruntime's CPU kernel has FLOAT and FLOAT16
only: DOUBLE and BFLOAT16 are the ONNX specification's, computed by bitfold.)"""

OUTPUT_DTYPES = {2: (8, False), 3: (8, True), 4: (16, False), 5: (16, True), 21: (4, False), 22: (4, True),
                 25: (2, False), 26: (2, True)}
"""QuantizeLinear's `output_dtype` codes bitfold supports (ONNX TensorProto data types UINT8,
INT8, UINT16, INT16, UINT4, INT4, UINT2, INT2) as (bits, signed)."""


FLOAT_OUTPUT_DTYPES = {17: Float8E4M3FNType(), 18: Float8E4M3FNUZType(), 19: Float8E5M2Type(),
                       20: Float8E5M2FNUZType(), 23: Float4E2M1FNType()}
"""QuantizeLinear's float `output_dtype` codes (FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2,
FLOAT8E5M2FNUZ, FLOAT4E2M1) as the result's element type."""


INTEGER_WIDTHS = {2, 4, 8, 16}
"""The bit widths of the zero point types (signed and unsigned each)."""


def _element(value_type: Attribute) -> Attribute:
    assert isinstance(value_type, ContainerType)
    return value_type.get_element_type()


def _shape(value_type: Attribute) -> tuple[int, ...] | None:
    return tuple(value_type.get_shape()) if isinstance(value_type, TensorType) else None


def _same(a: int, b: int) -> bool:
    return a == DYNAMIC_INDEX or b == DYNAMIC_INDEX or a == b


def scale_problem(value: np.ndarray, name: str, allow_negative: bool = False) -> str | None:
    """What is wrong with a scale's value, or None: every entry finite and positive (with
    `allow_negative`, finite and nonzero)."""
    valid = np.isfinite(value) & (value != 0 if allow_negative else value > 0)
    if not valid.all():
        wanted = "nonzero" if allow_negative else "positive"
        return f"'{name}' must be finite and {wanted}, got {value.flatten()[:8].tolist()}"
    return None


def _verify_scale_type(scale: SSAValue, name: str, allow_negative: bool) -> None:
    if not isinstance(_element(scale.type), Float32Type | Float16Type | BFloat16Type):
        raise VerifyException(f"'{name}' must be a tensor of float32, float16 or bfloat16, got {scale.type}")
    values = constant_operand(scale)
    if values is not None and (problem := scale_problem(values, name, allow_negative)):
        raise VerifyException(problem)


def _verify_integer_types(integer: Attribute, zero_point: SSAValue | None, integer_role: str,
                          zp_name: str, allow_int32: bool) -> None:
    widths = INTEGER_WIDTHS | ({32} if allow_int32 else set())
    element = _element(integer)
    if not is_float_storage(element) and (not isinstance(element, IntegerType) or element.width.data not in widths):
        bits = "/".join(str(w) for w in sorted(widths))
        raise VerifyException(f"{integer_role} must be a tensor of {bits}-bit integers or of a float8/float4 type, got {integer}")
    if zero_point is not None and _element(zero_point.type) != element:
        raise VerifyException(f"'{zp_name}' must have the element type of {integer_role} ({element}), got {zero_point.type}")
    if zero_point is not None and is_float_storage(element):
        values = constant_operand(zero_point)
        if values is not None and np.any(values.astype(np.float32) != 0):
            raise VerifyException(f"'{zp_name}' of a {element} quantization must be zero, got {values.flatten()[:8].tolist()}")


def _verify_shapes(op: OnnxOp, x: Attribute, scale: SSAValue, zero_point: SSAValue | None,
                   scale_name: str, zp_name: str) -> None:
    x_shape, scale_shape = _shape(x), _shape(scale.type)
    zp_shape = None if zero_point is None else _shape(zero_point.type)
    block_size, axis = op.int_attr("block_size"), op.int_attr("axis")
    if block_size < 0:
        raise VerifyException(f"'block_size' must be non-negative, got {block_size}")
    if scale_shape in ((), (1,)):
        if block_size != 0:
            raise VerifyException(f"'block_size' must be 0 for a per-tensor '{scale_name}', got {block_size}")
        if zero_point is not None and zp_shape not in ((), (1,), None):
            raise VerifyException(f"'{zp_name}' must be a scalar or one-element 1-D tensor like '{scale_name}', got {zero_point.type}")
        return
    if x_shape is None or scale_shape is None:
        return
    rank = len(x_shape)
    if not -rank <= axis < rank:
        raise VerifyException(f"'axis' {axis} is out of range for an input of rank {rank}")
    axis %= rank
    if block_size == 0:
        expected: Sequence[int] = (x_shape[axis],)
        what = f"1-D of {x_shape[axis]} elements (per axis {axis})"
    else:
        blocks = DYNAMIC_INDEX if x_shape[axis] == DYNAMIC_INDEX else -(-x_shape[axis] // block_size)
        expected = tuple(blocks if i == axis else d for i, d in enumerate(x_shape))
        what = f"of shape {list(expected)} (blocks of {block_size} along axis {axis})"
    for name, shape in [(scale_name, scale_shape), (zp_name, zp_shape)]:
        if shape is not None and (len(shape) != len(expected) or not all(map(_same, shape, expected))):
            raise VerifyException(f"'{name}' must be {what}, got shape {list(shape)}")


def verify_qdq(op: OnnxOp, x: SSAValue, scale: SSAValue, zero_point: SSAValue | None, integer: Attribute,
               names: tuple[str, str, str], dequantize: bool) -> None:
    """The checks of the module docstring for a QuantizeLinear (`integer` its result type) or
    a DequantizeLinear (`dequantize`, `integer` x's type); `names` are those of the integer
    side, the scale and the zero point."""
    integer_role, scale_name, zp_name = names
    _verify_scale_type(scale, scale_name, allow_negative=dequantize)
    _verify_integer_types(integer, zero_point, integer_role, zp_name, allow_int32=dequantize)
    if not dequantize and (precision := op.int_attr("precision")) not in (0, *PRECISION_DTYPES):
        raise VerifyException(f"'precision' {precision} is not 0, FLOAT, FLOAT16, DOUBLE or BFLOAT16")
    if not dequantize and (code := op.int_attr("output_dtype")) != 0:
        element = _element(integer)
        if is_float_storage(element):
            agrees = FLOAT_OUTPUT_DTYPES.get(code) == element
        else:
            assert isinstance(element, IntegerType)
            agrees = OUTPUT_DTYPES.get(code) == (element.width.data, element.signedness.data != Signedness.UNSIGNED)
        if not agrees:
            raise VerifyException(f"'output_dtype' {code} disagrees with the result type {integer}")
    _verify_shapes(op, x.type, scale, zero_point, scale_name, zp_name)
