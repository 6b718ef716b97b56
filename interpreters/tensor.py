"""`tensor` ops on numpy arrays: `tensor.empty`; the reshapes `tensor.collapse_shape`,
`tensor.expand_shape` and `tensor.reshape` (row-major, like the contiguous buffers they
lower to); `tensor.extract` with scalar indices at top level or with index arrays inside a
vectorized `linalg.generic` body (a gather; an index out of bounds, undefined behaviour in
MLIR, raises `InterpretationError`); `tensor.insert` and `tensor.dim`; and
`builtin.unrealized_conversion_cast` between integer tensors of one width (i8 <-> ui8, what
`lower-quant` leaves for `quant.scast` to `uiN`): the same bits read as the result's
signedness."""

import math
from typing import Any

import numpy as np
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, impl_cast, register_impls
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from bitfold.dialects.evaluation import numpy_dtype_of


def _static_or(shape, dynamic) -> list[int]:
    """`shape` with each DYNAMIC_INDEX replaced by the next of the `dynamic` sizes."""
    sizes = iter(dynamic)
    return [int(next(sizes)) if d == DYNAMIC_INDEX else d for d in shape]


def _checked_indices(op: Operation, shape: tuple[int, ...], indices: tuple[Any, ...]) -> tuple[np.ndarray, ...]:
    """The indices as int64 arrays; any out of [0, size) raises (numpy would wrap negatives)."""
    if len(indices) != len(shape):
        raise InterpretationError(f"{op.name}: {len(indices)} indices for a tensor of rank {len(shape)}")
    arrays = tuple(np.asarray(i, dtype=np.int64) for i in indices)
    for axis, (index, size) in enumerate(zip(arrays, shape)):
        if np.any((index < 0) | (index >= size)):
            raise InterpretationError(f"{op.name}: index out of bounds along dim {axis} of size {size}")
    return arrays


@register_impls
class NumpyTensorFunctions(InterpreterFunctions):
    @impl(tensor.EmptyOp)
    def run_empty(self, interpreter: Interpreter, op: tensor.EmptyOp, args: tuple[Any, ...]):
        shape = _static_or(op.tensor.type.get_shape(), args)
        return (np.zeros(shape, dtype=numpy_dtype_of(op.tensor.type)),)

    @impl(tensor.CollapseShapeOp)
    def run_collapse_shape(self, interpreter: Interpreter, op: tensor.CollapseShapeOp, args: tuple[Any, ...]):
        source = np.asarray(args[0])
        groups = [[int(d.value.data) for d in group] for group in op.reassociation]
        return (source.reshape([math.prod(source.shape[d] for d in group) for group in groups]),)

    @impl(tensor.ExpandShapeOp)
    def run_expand_shape(self, interpreter: Interpreter, op: tensor.ExpandShapeOp, args: tuple[Any, ...]):
        shape = _static_or(op.static_output_shape.get_values(), args[1:])
        return (np.asarray(args[0]).reshape(shape),)

    @impl(tensor.ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op: tensor.ReshapeOp, args: tuple[Any, ...]):
        source, shape = args
        return (np.asarray(source).reshape([int(size) for size in np.asarray(shape)]),)

    @impl(tensor.ExtractOp)
    def run_extract(self, interpreter: Interpreter, op: tensor.ExtractOp, args: tuple[Any, ...]):
        source = np.asarray(args[0])
        return (np.asarray(source[_checked_indices(op, source.shape, args[1:])]),)

    @impl(tensor.InsertOp)
    def run_insert(self, interpreter: Interpreter, op: tensor.InsertOp, args: tuple[Any, ...]):
        value, destination = args[0], np.array(args[1])
        destination[_checked_indices(op, destination.shape, args[2:])] = value
        return (destination,)

    @impl(tensor.DimOp)
    def run_dim(self, interpreter: Interpreter, op: tensor.DimOp, args: tuple[Any, ...]):
        source, dim = args
        return (np.int64(np.shape(source)[int(dim)]),)

    @impl_cast(TensorType, TensorType)
    def reinterpret(self, input_type: TensorType, output_type: TensorType, value: Any) -> Any:
        return np.asarray(value).astype(numpy_dtype_of(output_type))
