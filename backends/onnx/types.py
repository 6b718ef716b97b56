"""xDSL types and arrays as ONNX element types, value infos and tensors: the inverse of
`bitfold.dialects.onnx.encoding`, the table the importer reads too."""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import IntegerType, Signedness, TensorType
from xdsl.ir import Attribute

from bitfold.backends.onnx.errors import ExportError
from bitfold.dialects.onnx.encoding import ELEMENT_TYPES, type_proto

PACKED_CODES = (TensorProto.INT4, TensorProto.UINT4, TensorProto.INT2, TensorProto.UINT2)
"""Element types ONNX stores several to a byte (`helper.make_tensor` packs them)."""


def tensor_code(element: Attribute, where: str) -> int:
    """The ONNX data type code of an element type (`siN` counts as the signless `iN`)."""
    if isinstance(element, IntegerType) and element.signedness.data == Signedness.SIGNED:
        element = IntegerType(element.width.data)
    for code, known in ELEMENT_TYPES.items():
        if known == element:
            return code
    raise ExportError(f"{where}: element type {element} has no ONNX equivalent")


def integer_code(bits: int, signed: bool) -> int:
    """The ONNX integer type of `bits` (2, 4, 8, 16, 32) bits and the given signedness."""
    return tensor_code(IntegerType(bits, Signedness.SIGNLESS if signed else Signedness.UNSIGNED), f"{bits}-bit integer")


def integer_container(code: int) -> tuple[int, bool] | None:
    """(bits, signed) of an ONNX integer type code, the inverse of `integer_code`; None for
    any other type."""
    element = ELEMENT_TYPES.get(code)
    if not isinstance(element, IntegerType):
        return None
    return element.width.data, element.signedness.data != Signedness.UNSIGNED


def value_info(name: str, value_type: Attribute, where: str) -> onnx.ValueInfoProto:
    """A graph input or output: `name` with the ONNX type of a tensor type."""
    if isinstance(value_type, TensorType):
        tensor_code(value_type.get_element_type(), where)  # a clear error before type_proto's lookup
    return helper.make_value_info(name, type_proto(value_type))


def make_tensor(name: str, array: np.ndarray, code: int) -> TensorProto:
    """An initializer `name` of ONNX type `code` holding `array`'s values (which that type
    holds exactly); 2- and 4-bit types are packed."""
    if code in PACKED_CODES:
        return helper.make_tensor(name, code, array.shape, np.asarray(array).reshape(-1).astype(np.int64).tolist())
    dtype = helper.tensor_dtype_to_np_dtype(code)
    return numpy_helper.from_array(np.asarray(array).astype(dtype), name)
