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

from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.onnx.constant import dense_attr
from bitfold.dialects.onnx.encoding import ELEMENT_TYPES
from bitfold.dialects.tensor_limits import check_tensor
from bitfold.frontends import FrontendError


def onnx_element_type(code: int, what: str) -> Attribute:
    """The xDSL element type of an ONNX data type code; `what` names the value for the error."""
    if code not in ELEMENT_TYPES:
        name = TensorProto.DataType.Name(code) if code in TensorProto.DataType.values() else str(code)
        raise FrontendError(f"unsupported element type {name} of {what}")
    return ELEMENT_TYPES[code]


def value_type(type_proto: onnx.TypeProto, what: str) -> Attribute:
    """A tensor type: static dimensions as themselves, symbolic or unknown ones dynamic (`?`),
    an unknown rank unranked. Sequences, maps and optionals are not supported; a negative
    dimension or a size over the tensor cap (`bitfold.dialects.tensor_limits`) is refused."""
    if type_proto.WhichOneof("value") != "tensor_type":
        raise FrontendError(f"{what} is not a tensor (type {type_proto.WhichOneof('value')})")
    tensor = type_proto.tensor_type
    element = onnx_element_type(tensor.elem_type, what)
    if not tensor.HasField("shape"):
        return UnrankedTensorType(element)
    shape = [d.dim_value if d.HasField("dim_value") else DYNAMIC_INDEX for d in tensor.shape.dim]
    if any(d.HasField("dim_value") and d.dim_value < 0 for d in tensor.shape.dim):
        raise FrontendError(f"{what} has a negative dimension ({', '.join(str(d.dim_value) for d in tensor.shape.dim)})")
    check_tensor(shape, numpy_dtype(element).itemsize, what)
    return TensorType(element, shape)


def tensor_attr(tensor: TensorProto, what: str) -> DenseIntOrFPElementsAttr:
    """An ONNX tensor (initializer or TENSOR attribute, external data already loaded) as a
    dense attribute. int4/int2 values are unpacked to one per byte. Its declared shape is
    checked against the tensor cap before its data is read, and its data against its shape."""
    element = onnx_element_type(tensor.data_type, what)
    check_tensor(tensor.dims, numpy_dtype(element).itemsize, what)
    try:
        array = numpy_helper.to_array(tensor)
    except ValueError as error:
        raise FrontendError(f"{what} holds data that does not fit its shape {list(tensor.dims)}: {str(error).strip()}") from None
    return dense_attr(array, element)
