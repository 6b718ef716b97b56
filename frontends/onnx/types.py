"""ONNX element types, value types and tensors as xDSL types and attributes."""

import onnx
from onnx import TensorProto, numpy_helper
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute

from bitfold.dialects.onnx.encoding import ELEMENT_TYPES, dense_attr
from bitfold.frontends import FrontendError


def element_type(code: int, what: str) -> Attribute:
    """The xDSL element type of an ONNX data type code; `what` names the value for the error."""
    if code not in ELEMENT_TYPES:
        name = TensorProto.DataType.Name(code) if code in TensorProto.DataType.values() else str(code)
        raise FrontendError(f"unsupported element type {name} of {what}")
    return ELEMENT_TYPES[code]


def value_type(type_proto: onnx.TypeProto, what: str) -> Attribute:
    """A tensor type: static dimensions as themselves, symbolic or unknown ones dynamic (`?`),
    an unknown rank unranked. Sequences, maps and optionals are not supported."""
    if type_proto.WhichOneof("value") != "tensor_type":
        raise FrontendError(f"{what} is not a tensor (type {type_proto.WhichOneof('value')})")
    tensor = type_proto.tensor_type
    element = element_type(tensor.elem_type, what)
    if not tensor.HasField("shape"):
        return UnrankedTensorType(element)
    shape = [d.dim_value if d.HasField("dim_value") else DYNAMIC_INDEX for d in tensor.shape.dim]
    return TensorType(element, shape)


def tensor_attr(tensor: TensorProto, what: str) -> DenseIntOrFPElementsAttr:
    """An ONNX tensor (initializer or TENSOR attribute, external data already loaded) as a
    dense attribute. int4/int2 values are unpacked to one per byte."""
    element = element_type(tensor.data_type, what)
    return dense_attr(numpy_helper.to_array(tensor), element)
