"""ONNX reductions (conventions in `base.py`): the opset-18 form, with `axes` an operand."""

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


OPS = [ReduceMinOp, ReduceMaxOp]
