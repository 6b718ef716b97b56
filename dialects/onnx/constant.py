"""`onnx.Constant`: a tensor literal. The importer also makes every initializer one."""

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import BFloat16Type, BytesAttr, DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import attr_def, irdl_op_definition, result_def

from bitfold.dialects.evaluation import numpy_dtype, numpy_dtype_of
from bitfold.dialects.onnx.base import OnnxOp


def dense_to_numpy(value: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The elements of a dense attribute as a numpy array of its shape and element dtype."""
    dtype = numpy_dtype_of(value.type)
    shape = tuple(value.type.get_shape())
    storage = value.data.data
    if len(storage) == dtype.itemsize * int(np.prod(shape, dtype=np.int64)):
        return np.frombuffer(storage, dtype=dtype).reshape(shape).copy()
    return np.asarray(value.get_values(), dtype=dtype).reshape(shape)  # packed or bool storage


def dense_attr(array: np.ndarray, element: Attribute) -> DenseIntOrFPElementsAttr:
    """The inverse of `dense_to_numpy`: a dense attribute of `element` type from the array's bytes
    (no Python lists: constants of millions of elements import in milliseconds). bf16 is refused:
    numpy holds it as f32, whose bytes are not bf16's. Here rather than beside the ONNX element
    types (`encoding.py`) so that the passes using it do not import the onnx package."""
    if isinstance(element, BFloat16Type):
        raise ValueError("no byte encoding for bf16 constants (numpy holds bf16 as f32)")
    storage = numpy_dtype(element).newbyteorder("<")
    data = np.ascontiguousarray(array, dtype=storage).tobytes()
    return DenseIntOrFPElementsAttr(TensorType(element, array.shape), BytesAttr(data))


def constant_array(value: SSAValue) -> np.ndarray | None:
    """The elements of `value` (its shape, its element dtype) when an `onnx.Constant` or a dense
    `arith.constant` defines it, else None."""
    owner = value.owner
    if isinstance(owner, ConstantOp | arith.ConstantOp) and isinstance(owner.value, DenseIntOrFPElementsAttr):
        return dense_to_numpy(owner.value)
    return None


MAX_PARAMETER_ELEMENTS = 1 << 16
"""Largest constant a verifier reads (`constant_operand`): scales, zero points, bit widths."""


def constant_operand(value: SSAValue) -> np.ndarray | None:
    """The value of an operand defined by an `onnx.Constant` of at most
    `MAX_PARAMETER_ELEMENTS` elements, else None (a verifier then checks only its type)."""
    owner = value.owner
    if not isinstance(owner, ConstantOp) or not isinstance(owner.value, DenseIntOrFPElementsAttr):
        return None
    if math.prod(owner.value.type.get_shape()) > MAX_PARAMETER_ELEMENTS:
        return None
    return dense_to_numpy(owner.value)


@irdl_op_definition
class ConstantOp(OnnxOp):
    """output = value."""

    name = "onnx.Constant"
    value = attr_def(DenseIntOrFPElementsAttr)
    output = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return (dense_to_numpy(self.value),)


OPS = [ConstantOp]
