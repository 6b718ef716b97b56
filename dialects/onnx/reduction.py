"""ONNX reductions (conventions in `base.py`): the opset-18 form, with `axes` an operand.

ReduceMin and ReduceMax are exact. ReduceSum and ReduceMean of floats accumulate in float64
and round once to the data's type (as `nn.py`'s float reductions; onnxruntime sums in
float32, so the two can differ in the last bits); of integers, they sum in the data's type
(wrapping around), and ReduceMean divides the sum by the count truncating toward zero (C++
`/`, as onnxruntime). The reference's result is cast to the data's type (`ReduceOnnxOp`)."""

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerAttr
from xdsl.irdl import AttrSizedOperandSegments, attr_def, irdl_op_definition, operand_def, opt_operand_def, result_def

from bitfold.dialects.evaluation import named_operands
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.shape import normalized_axes


class ReduceOnnxOp(OnnxOp):
    """reduced = reduce(data) over `axes` (negative counts from the end). No axes, or an
    empty axes tensor: every axis, unless noop_with_empty_axes = 1, which returns data
    unchanged. keepdims = 1 keeps reduced axes with size 1."""

    data = operand_def()
    axes = opt_operand_def()
    reduced = result_def()
    keepdims = attr_def(IntegerAttr)
    noop_with_empty_axes = attr_def(IntegerAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @staticmethod
    def reduce(data: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
        raise NotImplementedError

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        data, axes = values["data"], values["axes"]
        if axes is None or axes.size == 0:
            if self.int_attr("noop_with_empty_axes"):
                return (data,)
            axes = np.arange(data.ndim)
        axis = tuple(normalized_axes(axes.reshape(-1), data.ndim))
        return (np.asarray(self.reduce(data, axis, bool(self.int_attr("keepdims"))), dtype=data.dtype),)


@irdl_op_definition
class ReduceMinOp(ReduceOnnxOp):
    """reduced = minimum of data over axes."""

    name = "onnx.ReduceMin"

    @staticmethod
    def reduce(data: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
        return np.min(data, axis=axis, keepdims=keepdims)


@irdl_op_definition
class ReduceMaxOp(ReduceOnnxOp):
    """reduced = maximum of data over axes."""

    name = "onnx.ReduceMax"

    @staticmethod
    def reduce(data: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
        return np.max(data, axis=axis, keepdims=keepdims)


@irdl_op_definition
class ReduceSumOp(ReduceOnnxOp):
    """reduced = sum of data over axes (module docstring for rounding)."""

    name = "onnx.ReduceSum"

    @staticmethod
    def reduce(data: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
        wide = np.float64 if np.issubdtype(data.dtype, np.floating) else data.dtype
        return np.sum(data, axis=axis, keepdims=keepdims, dtype=wide)


@irdl_op_definition
class ReduceMeanOp(ReduceOnnxOp):
    """reduced = mean of data over axes: the sum divided by the number of elements reduced
    (module docstring for rounding)."""

    name = "onnx.ReduceMean"

    @staticmethod
    def reduce(data: np.ndarray, axis: tuple[int, ...], keepdims: bool) -> np.ndarray:
        if np.issubdtype(data.dtype, np.floating):
            return np.mean(data, axis=axis, keepdims=keepdims, dtype=np.float64)
        count = max(1, int(np.prod([data.shape[a] for a in axis], dtype=np.int64)))
        total = np.sum(data, axis=axis, keepdims=keepdims, dtype=data.dtype)
        with np.errstate(over="ignore"):
            return (np.sign(total) * (np.abs(total.astype(np.int64)) // count)).astype(data.dtype)


OPS = [ReduceMinOp, ReduceMaxOp, ReduceSumOp, ReduceMeanOp]
