"""How ONNX's element types are held in xDSL: the one table the importer (`bitfold.frontends.onnx`)
and the exporters (`bitfold.backends.onnx`) both read. Tensors' bytes: `constant.dense_attr` and
`constant.dense_to_numpy`, which need no onnx package (the passes import them; this module imports onnx)."""

import onnx
from onnx import TensorProto, helper
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute

_SIGNLESS, _UNSIGNED = Signedness.SIGNLESS, Signedness.UNSIGNED

ELEMENT_TYPES: dict[int, Attribute] = {
    TensorProto.FLOAT: Float32Type(),
    TensorProto.FLOAT16: Float16Type(),
    TensorProto.DOUBLE: Float64Type(),
    TensorProto.FLOAT8E4M3FN: Float8E4M3FNType(),
    TensorProto.FLOAT8E4M3FNUZ: Float8E4M3FNUZType(),
    TensorProto.FLOAT8E5M2: Float8E5M2Type(),
    TensorProto.FLOAT8E5M2FNUZ: Float8E5M2FNUZType(),
    TensorProto.FLOAT4E2M1: Float4E2M1FNType(),
    TensorProto.BOOL: IntegerType(1),
    TensorProto.INT2: IntegerType(2, _SIGNLESS),
    TensorProto.UINT2: IntegerType(2, _UNSIGNED),
    TensorProto.INT4: IntegerType(4, _SIGNLESS),
    TensorProto.UINT4: IntegerType(4, _UNSIGNED),
    TensorProto.INT8: IntegerType(8, _SIGNLESS),
    TensorProto.UINT8: IntegerType(8, _UNSIGNED),
    TensorProto.INT16: IntegerType(16, _SIGNLESS),
    TensorProto.UINT16: IntegerType(16, _UNSIGNED),
    TensorProto.INT32: IntegerType(32, _SIGNLESS),
    TensorProto.UINT32: IntegerType(32, _UNSIGNED),
    TensorProto.INT64: IntegerType(64, _SIGNLESS),
    TensorProto.UINT64: IntegerType(64, _UNSIGNED),
}
"""ONNX element types bitfold holds. Signed integers are signless `iN`, as in MLIR's onnx
dialects; unsigned ones `uiN`. The float8 and float4 types are quantization types only
(the importer refuses them elsewhere), held one byte a value. BFLOAT16 is left out: xDSL 0.74 cannot store bf16 constants."""


def type_proto(value_type: Attribute) -> onnx.TypeProto:
    """The inverse of `value_type`: a tensor type as an ONNX tensor type (dynamic dimensions
    unknown)."""
    assert isinstance(value_type, TensorType | UnrankedTensorType)
    code = next(c for c, element in ELEMENT_TYPES.items() if element == value_type.element_type)
    if isinstance(value_type, UnrankedTensorType):
        return helper.make_tensor_type_proto(code, None)
    shape = [None if d == DYNAMIC_INDEX else d for d in value_type.get_shape()]
    return helper.make_tensor_type_proto(code, shape)
