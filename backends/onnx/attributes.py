"""bitfold's encoding of ONNX attributes (`bitfold.dialects.onnx.base`) back to
`AttributeProto`s: the inverse of the importer's `convert_attribute`.

IntegerAttr -> INT, FloatAttr -> FLOAT, StringAttr -> STRING, DenseArrayBase of i64 -> INTS,
of f32 -> FLOATS, ArrayAttr of StringAttr -> STRINGS, DenseIntOrFPElementsAttr -> TENSOR."""

from onnx import AttributeProto, helper
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
)
from xdsl.ir import Attribute

from bitfold.backends.onnx.errors import ExportError
from bitfold.backends.onnx.types import make_tensor, tensor_code
from bitfold.dialects.onnx.constant import dense_to_numpy


def encode_attribute(name: str, value: Attribute, where: str) -> AttributeProto:
    """The ONNX attribute `name` holding `value`; `where` names the node for errors."""
    if isinstance(value, IntegerAttr):
        return helper.make_attribute(name, value.value.data, attr_type=AttributeProto.INT)
    if isinstance(value, FloatAttr):
        return helper.make_attribute(name, value.value.data, attr_type=AttributeProto.FLOAT)
    if isinstance(value, StringAttr):
        return helper.make_attribute(name, value.data, attr_type=AttributeProto.STRING)
    if isinstance(value, DenseArrayBase):
        kind = AttributeProto.INTS if isinstance(value.elt_type, IntegerType) else AttributeProto.FLOATS
        return helper.make_attribute(name, list(value.get_values()), attr_type=kind)
    if isinstance(value, ArrayAttr) and all(isinstance(s, StringAttr) for s in value):
        return helper.make_attribute(name, [s.data for s in value], attr_type=AttributeProto.STRINGS)
    if isinstance(value, DenseIntOrFPElementsAttr):
        tensor = make_tensor(name, dense_to_numpy(value), tensor_code(value.get_element_type(), where))
        return helper.make_attribute(name, tensor, attr_type=AttributeProto.TENSOR)
    raise ExportError(f"attribute '{name}' of {where} has no ONNX encoding: {value}")
