"""BatchNormalization of a float model folded into the Conv or Gemm before it, and the statistics
its output carries (what data-free calibration starts from, `data_free`).

    statistics = fold_batch_norms(function)   # {value: (mean, std) per channel}

A BatchNormalization in inference form with constant parameters, per channel c,

    y[c] = gamma[c] (z[c] - mean[c]) / sqrt(var[c] + eps) + beta[c] = a[c] z[c] + (beta[c] - a[c] mean[c]),

    a[c] = gamma[c] / sqrt(var[c] + eps),

outputs, when z[c] has the mean and variance the BatchNormalization was trained with, mean beta[c]
and standard deviation |gamma[c]| sqrt(var[c] / (var[c] + eps)): the statistics recorded for its
output. Where z is the only use of a Conv's (or a Gemm's: transA 0, alpha = beta = 1) result and
that contraction has constant weights and a constant bias of one value a channel, or none (it
gets a zero bias, as a Conv before a BatchNormalization is usually exported), the
BatchNormalization folds into it (onnxruntime's optimizer does the same before quantize_static):

    W'[c] = a[c] W[c]     (Conv: output channel c; Gemm: column c of B, row c of B^T)
    b'[c] = a[c] (b[c] - mean[c]) + beta[c]

computed in float64, stored in the constants' type; the contraction's result replaces the
BatchNormalization's and carries its statistics. Other BatchNormalization nodes stay; their
result carries the statistics."""

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseArrayBase, TensorType, i32
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.calibration.constants import constant_before, replace_constant_operand
from bitfold.dialects.onnx.constant import ConstantOp, constant_array
from bitfold.dialects.onnx.nn import BatchNormalizationOp, ConvOp, GemmOp

Normal = tuple[np.ndarray, np.ndarray]
"""(mean, standard deviation) per channel, float64."""


def _parameters(norm: BatchNormalizationOp) -> list[np.ndarray] | None:
    """gamma, beta, mean, var as float64, None where one is not a constant."""
    arrays = [constant_array(operand) for operand in norm.operands[1:5]]
    return None if any(a is None for a in arrays) else [np.asarray(a, np.float64).ravel() for a in arrays]


def _foldable(norm: BatchNormalizationOp) -> ConvOp | GemmOp | None:
    """The contraction `norm` can fold into (module docstring), else None."""
    op = norm.x.owner
    if not isinstance(op, ConvOp | GemmOp) or len(list(op.results[0].uses)) != 1:
        return None
    if isinstance(op, GemmOp) and (op.int_attr("transA") or not op.float_attr("alpha") == op.float_attr("beta") == 1.0):
        return None
    weights = constant_array(op.operands[1])
    bias = constant_array(op.operands[2]) if len(op.operands) > 2 else np.zeros(norm.scale.type.get_shape())
    if weights is None or bias is None or bias.shape != tuple(norm.scale.type.get_shape()):
        return None
    return op


def _biased(op: ConvOp | GemmOp) -> ConvOp | GemmOp:
    """`op`, or where it has no bias the same op with a zero bias (one a channel) in its place."""
    if len(op.operands) > 2:
        return op
    weights = op.operands[1].type
    channels = weights.get_shape()[1 if isinstance(op, GemmOp) and not op.int_attr("transB") else 0]
    bias = constant_before(op, np.zeros(channels), TensorType(weights.element_type, [channels]))
    properties = {**op.properties, "operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 1, 1])}
    biased = type(op).create(operands=[*op.operands, bias], result_types=[op.results[0].type],
                             attributes=dict(op.attributes), properties=properties)
    biased.location = op.location
    Rewriter.insert_op(biased, InsertPoint.before(op))
    op.results[0].replace_all_uses_with(biased.results[0])
    Rewriter.erase_op(op)
    return biased


def _fold(op: ConvOp | GemmOp, multiplier: np.ndarray, shift: np.ndarray) -> None:
    """W'[c] = a[c] W[c], b' = a b + shift (module docstring)."""
    weights, bias = constant_array(op.operands[1]), constant_array(op.operands[2])
    shape = [1] * weights.ndim
    axis = 0 if isinstance(op, ConvOp) or op.int_attr("transB") else 1
    shape[axis] = -1
    replace_constant_operand(op, 1, (weights.astype(np.float64) * multiplier.reshape(shape)).astype(weights.dtype))
    replace_constant_operand(op, 2, (multiplier * bias.astype(np.float64) + shift).astype(bias.dtype))


def _erase(norm: BatchNormalizationOp) -> None:
    parameters = [operand.owner for operand in norm.operands[1:]]
    Rewriter.erase_op(norm)
    for owner in parameters:
        if isinstance(owner, ConstantOp) and not owner.results[0].uses:
            Rewriter.erase_op(owner)


def fold_batch_norms(function: func.FuncOp) -> dict[SSAValue, Normal]:
    """Fold every foldable BatchNormalization of `function` (module docstring); the output
    statistics of every one with constant parameters, by the value that now carries them."""
    statistics: dict[SSAValue, Normal] = {}
    for norm in list(function.body.walk()):
        if not isinstance(norm, BatchNormalizationOp) or norm.int_attr("training_mode"):
            continue
        if (parameters := _parameters(norm)) is None:
            continue
        gamma, beta, mean, var = parameters
        epsilon = norm.float_attr("epsilon")
        normal = (beta, np.abs(gamma) * np.sqrt(var / (var + epsilon)))
        if (op := _foldable(norm)) is None:
            statistics[norm.y] = normal
            continue
        multiplier = gamma / np.sqrt(var + epsilon)
        op = _biased(op)
        _fold(op, multiplier, beta - multiplier * mean)
        norm.y.replace_all_uses_with(op.results[0])
        _erase(norm)
        statistics[op.results[0]] = normal
    return statistics
