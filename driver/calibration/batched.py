"""Run a float model on many calibration samples at once: the same interpreter, one call per chunk of
samples stacked along the batch axis instead of one call per sample.

    batched = batched_module(module, 64)   # None where the model does not batch
    run(batched, {"input": stacked})        # stacked: the samples concatenated along axis 0

A model batches when every value computed from an input (the *batch-carrying* values) has a
leading axis of the inputs' size B (the model's own batch, usually 1) and no op mixes elements
along that axis: in the copy, those values' leading axis becomes `count * B`, and the
interpreter's shape check of every op result (against the copy's types) refuses an op that does
not keep the samples apart (a Reshape to [1, -1], a Concat or Slice along axis 0, a Transpose that
moves it). Where a result's leading axis is not B, the model does not batch. Ops that keep the
shape but mix along axis 0 are refused before running: an `axis`/`axes` attribute naming axis 0
(Softmax, CumSum, LpNormalization, ...) and MeanVarianceNormalization (its default axes include
0). Each op computes row by row what it computes on one sample; the float64 accumulation of a
contraction may be summed in another order by the matrix library for another batch size, so a
value may differ from the per-sample run in its last float32 bit (the calibration tests compare
with the per-sample interpreter within that)."""

from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, ModuleOp, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import Rewriter

from bitfold.interpreter import entry_function

BATCH_MIXING = ("onnx.MeanVarianceNormalization",)
"""Ops that mix samples along axis 0 by default."""


def _axis_values(attribute: Attribute) -> list[int]:
    if isinstance(attribute, IntegerAttr):
        return [attribute.value.data]
    if isinstance(attribute, DenseArrayBase):
        return [int(v) for v in attribute.get_values()]
    if isinstance(attribute, ArrayAttr):
        return [a.value.data for a in attribute.data if isinstance(a, IntegerAttr)]
    return []


def _mixes_batch(op: Operation, rank: int) -> bool:
    """Whether `op` (on an operand of `rank` axes) may combine elements of different samples."""
    if op.name in BATCH_MIXING:
        return True
    for name in ("axis", "axes"):
        attribute = op.attributes.get(name, op.properties.get(name))
        if attribute is not None and any(a % max(rank, 1) == 0 for a in _axis_values(attribute)):
            return True
    return False


def _leading_size(value: SSAValue) -> int | None:
    value_type = value.type
    if not isinstance(value_type, TensorType) or not value_type.get_shape() or value_type.get_shape()[0] < 1:
        return None
    return value_type.get_shape()[0]


def _batched_type(value: SSAValue, batch: int, count: int) -> TensorType | None:
    """`value`'s type with its leading axis of size `batch` made `count * batch`, None if it has none."""
    if _leading_size(value) != batch:
        return None
    assert isinstance(value.type, TensorType)
    return TensorType(value.type.element_type, (count * batch, *value.type.get_shape()[1:]))


def batched_module(module: ModuleOp, count: int) -> ModuleOp | None:
    """A copy of `module` whose entry function runs `count` samples at once (module docstring), or
    None when the model does not batch. The copy's results that carry the batch are those whose
    type changed (all of them when `count` is 1 does not matter: a result of one sample)."""
    batched = module.clone()
    function = entry_function(batched)
    carrying: set[SSAValue] = set()
    batch = _leading_size(function.args[0]) if function.args else None
    for arg in function.args:
        if batch is None or (new_type := _batched_type(arg, batch, count)) is None:
            return None
        Rewriter.replace_value_with_new_type(arg, new_type)
    carrying.update(function.args)
    for op in function.body.walk():
        inputs = [o for o in op.operands if o in carrying]
        if not inputs or isinstance(op, func.ReturnOp):
            continue
        if _mixes_batch(op, len(inputs[0].type.get_shape())):
            return None
        for result in list(op.results):
            if (new_type := _batched_type(result, batch, count)) is None:
                return None
            carrying.add(Rewriter.replace_value_with_new_type(result, new_type))
    returned = function.body.block.last_op
    assert isinstance(returned, func.ReturnOp)
    function.function_type = func.FunctionType.from_lists([arg.type for arg in function.args],
                                                          [value.type for value in returned.arguments])
    return batched


def stacked(samples: Sequence[Mapping[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The samples' arrays of each input concatenated along axis 0."""
    return {name: np.concatenate([np.asarray(s[name]) for s in samples]) for name in samples[0]}
