"""Data-free calibration (Nagel et al. 2019, "Data-Free Quantization Through Weight Equalization
and Bias Correction"): the activation statistics of a float model from the BatchNormalization
statistics it carries, no samples.

    statistics = data_free_statistics(function, input_range=(0.0, 1.0), sigmas=6.0)
    low, high = statistics_range(function, statistics, point)

1. every BatchNormalization after a Conv or Gemm folds into it and leaves the statistics of its
   output, N(beta, gamma^2 var / (var + eps)) per channel (`batch_norm_folding`);
2. cross-layer equalization of consecutive convolutions (`equalization`); the first Conv's output
   channel i, divided by s_i, has its statistics divided by s_i (mean and standard deviation);
3. the float model inputs are uniform over `input_range` (mean (lo + hi) / 2, variance
   (hi - lo)^2 / 12, range [lo, hi]); no range is needed for an input that is no quantization
   point;
4. `activation_statistics.propagate_statistics` carries the statistics through the graph (ranges
   mean +- `sigmas` standard deviations, clipped normal moments through Relu and Clip).
A quantization point's range is the union of its channels' ranges. A model without any
BatchNormalization has nothing to read (its BatchNormalization folded away before export): that
is an error, as is a point the rules do not reach (naming the node) or an input without a range."""

from collections.abc import Callable

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Operation, SSAValue

from bitfold.calibration.activation_statistics import (
    DEFAULT_SIGMAS,
    ChannelStatistics,
    channel_count,
    propagate_statistics,
)
from bitfold.calibration.batch_norm_folding import fold_batch_norms
from bitfold.calibration.equalization import equalized_pairs
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.interpreter import input_names
from bitfold.passes.calibration.calibrated_to_uniform import CalibrationError


def data_free_statistics(function: func.FuncOp, input_range: tuple[float, float] | None = None,
                         sigmas: float = DEFAULT_SIGMAS) -> dict[SSAValue, ChannelStatistics]:
    """Fold, equalize and propagate (module docstring, steps 1-4); `function` is rewritten."""
    normals = fold_batch_norms(function)
    if not normals:
        raise CalibrationError("--data-free: the model has no BatchNormalization, whose statistics data-free "
                               "calibration reads (give --calibration DATA.npz)")
    for conv, scales in equalized_pairs(function):
        if (normal := normals.get(conv.results[0])) is not None:
            normals[conv.results[0]] = (normal[0] / scales, normal[1] / scales)
    seeds = {value: ChannelStatistics.normal(mean, std**2, sigmas) for value, (mean, std) in normals.items()}
    if input_range is not None:
        for arg in function.args:
            seeds[arg] = ChannelStatistics.uniform(*input_range, channel_count(arg))
    return propagate_statistics(function, seeds, sigmas)


def statistics_range(function: func.FuncOp, statistics: dict[SSAValue, ChannelStatistics],
                     point: SSAValue) -> tuple[float, float]:
    """[low, high] of quantization point `point`: its channels' ranges joined; a one-line
    CalibrationError naming the input or node where it has no statistics."""
    if (found := statistics.get(point)) is not None:
        return float(found.low.min()), float(found.high.max())
    owner = point.owner
    if not isinstance(owner, Operation):
        name = input_names(function)[list(function.args).index(point)]
        raise CalibrationError(f"--data-free: input '{name}' has no range: give --input-range LO,HI")
    node = owner.node_name if isinstance(owner, OnnxOp) else owner.name
    raise CalibrationError(f"--data-free: node '{node}' ({owner.name}): no statistics reach its result (no "
                           "BatchNormalization before it and no rule for the ops between, docs/calibration.md)")


def statistics_means(statistics: dict[SSAValue, ChannelStatistics]) -> Callable[[SSAValue], np.ndarray | None]:
    """`input_means` for bias correction: the propagated E[x] per channel, None where unknown."""

    def means(value: SSAValue) -> np.ndarray | None:
        found = statistics.get(value)
        return None if found is None else found.mean

    return means
