"""Fold the parameters of a recurrent op computed from constants alone: `LSTM(x, f(c...))` ->
`LSTM(x, c')`.

The float LSTM / GRU unrolls over constant W, R, B and P (`recurrent_decomposition`). Brevitas'
weights-only QuantLSTM writes each of W and R as the Concat of four gates' dequantized weights,
each with its own scale (`Unsqueeze(Concat(dcast(scast(c_i)), ...))`): no one quantized
constant holds them, so they stay float ops. Each such operand, when every op it is computed
by is numpy-evaluable and every leaf an `onnx.Constant`, becomes the `onnx.Constant` of its
value: the ops' numpy references (the dequantization `x = (q - zp) * s` in f32 included)
compute the bits the ops would at run time, so the rewrite is exact. The ops that computed it
are erased where nothing else reads them."""

import numpy as np
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.evaluation import NumpyEvaluable
from bitfold.dialects.onnx.constant import ConstantOp, constant_array, dense_attr
from bitfold.dialects.onnx.recurrent import RecurrentOp

PARAMETERS = ("w", "r", "b", "p")
"""The operands the unrolled recurrence needs as constants."""


def computed_constant(value: SSAValue) -> np.ndarray | None:
    """The value of `value` when it is an `onnx.Constant` or computed from such constants by
    numpy-evaluable ops without regions, else None."""
    if (array := constant_array(value)) is not None:
        return array
    owner = value.owner
    if not isinstance(owner, Operation) or not isinstance(owner, NumpyEvaluable) or owner.regions:
        return None
    operands = [computed_constant(operand) for operand in owner.operands]
    if any(operand is None for operand in operands):
        return None
    return np.asarray(owner.evaluate(operands)[owner.results.index(value)])


def _erase_unused(rewriter: PatternRewriter, value: SSAValue) -> None:
    """Erase the ops that computed `value` (a `computed_constant`) as far as nothing else reads them."""
    owner = value.owner
    if not isinstance(owner, Operation) or any(result.uses for result in owner.results):
        return
    operands = list(owner.operands)
    rewriter.erase(owner)
    for operand in operands:
        _erase_unused(rewriter, operand)


class FoldRecurrentParameters(RewritePattern):
    """Each of W, R, B, P computed from constants becomes one constant (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: RecurrentOp, rewriter: PatternRewriter) -> None:
        for name in PARAMETERS:
            value = getattr(op, name, None)
            if value is None or isinstance(value.owner, ConstantOp):
                continue
            array = computed_constant(value)
            if array is None:
                continue
            attr = dense_attr(array, value.type.element_type)
            constant = ConstantOp.create(attributes={"value": attr}, result_types=[value.type])
            constant.location = op.location
            rewriter.insert(constant)
            rewriter.replace_uses_with_if(value, constant.results[0], lambda use: use.operation is op)
            _erase_unused(rewriter, value)
