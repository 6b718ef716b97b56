"""New `onnx.Constant` ops for the float model's constants: one replacing a constant operand of an
ONNX op, or one added as a missing operand (`constant_before`)."""

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.constant import ConstantOp, dense_attr


def replace_constant_operand(op: OnnxOp, index: int, values: np.ndarray) -> None:
    """Operand `index` of `op` becomes a new constant of `values` (the old operand's type), inserted
    before `op`; the old constant goes when nothing else reads it."""
    operand = op.operands[index]
    old = operand.owner
    op.operands[index] = constant_before(op, values, operand.type)
    if isinstance(old, ConstantOp) and not old.results[0].uses:
        Rewriter.erase_op(old)


def constant_before(op: Operation, values: np.ndarray, tensor_type: TensorType) -> SSAValue:
    """A new constant of `values` (of `tensor_type`), inserted before `op`."""
    constant = ConstantOp.create(attributes={"value": dense_attr(values, tensor_type.element_type)},
                                 result_types=[tensor_type])
    Rewriter.insert_op(constant, InsertPoint.before(op))
    return constant.results[0]
