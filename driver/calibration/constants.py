"""Replace a constant operand of an ONNX op by a new `onnx.Constant` holding other values."""

import numpy as np
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.constant import ConstantOp
from bitfold.dialects.onnx.encoding import dense_attr


def replace_constant_operand(op: OnnxOp, index: int, values: np.ndarray) -> None:
    """Operand `index` of `op` becomes a new constant of `values` (the old operand's type), inserted
    before `op`; the old constant goes when nothing else reads it."""
    operand = op.operands[index]
    value = dense_attr(values, operand.type.element_type)
    replacement = ConstantOp.create(attributes={"value": value}, result_types=[operand.type])
    Rewriter.insert_op(replacement, InsertPoint.before(op))
    old = operand.owner
    op.operands[index] = replacement.results[0]
    if isinstance(old, ConstantOp) and not old.results[0].uses:
        Rewriter.erase_op(old)
