"""bitfold-quantize's calculation: a float model, calibration samples and a scheme in, the
canonical quant form out.

    quantized = quantize_model(module, samples, QuantizeOptions(activation_bits=8, per_channel=True))

0. BatchNormalization after a Conv or Gemm folded into it (`bitfold.calibration.batch_norm_folding`,
   as onnxruntime's quantizer folds it); with `equalize`, cross-layer equalization of consecutive
   convolutions (`bitfold.calibration.equalization`);
1. `quantization_points` of the entry function (bitfold.passes.calibration.points);
2. a copy of the model returns every point's value; bitfold's interpreter runs it on chunks of
   samples at once, accumulating in float32 (`bitfold.calibration.observe`), or with `native` the
   copy compiled for this machine runs them (`bitfold.calibration.native`); the method
   (`statistics.calibrated_range`) turns what each point took into a range (an average pool
   keeps its input's: `range_source`); `mse` also corrects the biases for the weights' error
   (`bitfold.calibration.bias_correction`);
3. `annotate_calibration` records the ranges as `!quant.calibrated` types (`calibrate_model`
   stops here);
4. `calibrated-to-uniform` chooses the uniform types and quantizes weights and biases.

`quantize_data_free(module, options, DataFreeOptions(input_range=(0.0, 1.0)))` takes the ranges of
step 2 from the BatchNormalization statistics the model carries instead of samples, equalizes,
and corrects every bias with the propagated input means (`bitfold.calibration.data_free`)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from bitfold.calibration.activation_statistics import DEFAULT_SIGMAS
from bitfold.calibration.batch_norm_folding import fold_batch_norms
from bitfold.calibration.bias_correction import correct_biases, observed_channel_means
from bitfold.calibration.data_free import data_free_statistics, statistics_means, statistics_range
from bitfold.calibration.equalization import equalize_convolutions
from bitfold.calibration.native import observe_native
from bitfold.calibration.observe import observe_values
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.quant_semantics import dequantize, quantize
from bitfold.interpreter import entry_function
from bitfold.load import full_context
from bitfold.passes.calibration.calibrated_to_uniform import (
    CalibratedToUniformPass,
    contraction_weight_type,
    weighted_contractions,
)
from bitfold.passes.calibration.points import annotate_calibration, quantization_points, range_source
from bitfold.passes.calibration.schemes import Scheme, activation_type
from bitfold.passes.calibration.statistics import calibrated_range


@dataclass(frozen=True)
class QuantizeOptions:
    activation_bits: int = 8
    weight_bits: int = 8
    per_channel: bool = False
    symmetric: bool = False
    power_of_two: bool = False
    method: str = "minmax"
    equalize: bool = False
    layer_weight_bits: tuple[int, ...] = ()
    """per-layer weight widths (mixed precision): one for each of `weighted_contractions` in program order"""

    def uniform_pass(self) -> CalibratedToUniformPass:
        return CalibratedToUniformPass(self.activation_bits, self.weight_bits, self.per_channel, self.symmetric,
                                       self.power_of_two, clip_weights=self.method == "mse",
                                       layer_weight_bits=self.layer_weight_bits)

    def layer_bits(self, op: OnnxOp) -> int:
        """The weight width of the contraction `op`."""
        if not self.layer_weight_bits:
            return self.weight_bits
        return self.layer_weight_bits[weighted_contractions(op.parent_op()).index(op)]

    def quantized_weights(self, op: OnnxOp, weights: np.ndarray) -> np.ndarray:
        """The dequantized weights `calibrated-to-uniform` will store for `op`'s `weights`."""
        wtype = contraction_weight_type(op, weights, Scheme(self.layer_bits(op), True, self.power_of_two),
                                        self.per_channel, clip=self.method == "mse")
        return dequantize(quantize(weights, wtype), wtype)


@dataclass(frozen=True)
class DataFreeOptions:
    """Where data-free calibration's statistics start: the float inputs' range (None: error where
    an input is a quantization point) and n of the ranges mean +- n sigma."""

    input_range: tuple[float, float] | None = None
    sigmas: float = DEFAULT_SIGMAS


def _keep_source_ranges(points: Sequence[SSAValue], ranges: list[tuple[float, float]]) -> None:
    """An average pool's point takes the range of its source point (`range_source`)."""
    for i, point in enumerate(points):
        if (source := range_source(point, points)) is not None:
            ranges[i] = ranges[points.index(source)]


def observe_points(module: ModuleOp, samples: Sequence[Mapping[str, np.ndarray]], batch: bool = True,
                   extremes_only: bool = False, exact: bool = False, native: bool = False) -> list[np.ndarray]:
    """The values every quantization point of `module` took, each flattened over all samples, or
    their [min, max] (`extremes_only`; `batch=False`: one interpreter run a sample; `exact`: the
    interpreter's float64 accumulation, not float32, `bitfold.calibration.observe`; `native`: the
    model compiled for this machine instead, `bitfold.calibration.native`)."""
    points = quantization_points(entry_function(module))
    if native:
        return observe_native(module, points, samples, extremes_only)
    return observe_values(module, points, samples, batch, extremes_only, exact)


def calibrate_model(module: ModuleOp, samples: Sequence[Mapping[str, np.ndarray]], options: QuantizeOptions,
                    batch: bool = True, exact: bool = False, native: bool = False) -> None:
    """Record calibration statistics in `module` (steps 1-3 of the module docstring); `batch=False`
    observes one sample a run, `exact` with float64 accumulation, `native` by the model compiled
    for this machine (`observe_points`)."""
    if not samples:
        raise ValueError("calibration needs at least one sample")
    scheme = Scheme(options.activation_bits, options.symmetric, options.power_of_two)
    function = entry_function(module)
    fold_batch_norms(function)
    if options.equalize:
        equalize_convolutions(function)
    points = quantization_points(function)
    ranges = []
    observed = observe_points(module, samples, batch, options.method == "minmax", exact, native)
    for point, values in zip(points, observed, strict=True):
        expressed = point.type.element_type

        def type_for(low: float, high: float, expressed=expressed):
            return activation_type(low, high, scheme, expressed)

        ranges.append(calibrated_range(values, options.method, type_for))
    _keep_source_ranges(points, ranges)
    if options.method == "mse":
        correct_biases(function, observed_channel_means(dict(zip(points, observed, strict=True))),
                       options.quantized_weights)
    annotate_calibration(function, points, ranges)


def quantize_model(module: ModuleOp, samples: Sequence[Mapping[str, np.ndarray]], options: QuantizeOptions,
                   batch: bool = True, exact: bool = False, native: bool = False) -> None:
    """Quantize the float `module` in place into the canonical quant form (module docstring)."""
    calibrate_model(module, samples, options, batch, exact, native)
    options.uniform_pass().apply(full_context(), module)


def calibrate_data_free(module: ModuleOp, options: QuantizeOptions, data_free: DataFreeOptions) -> None:
    """Record statistics in `module` without samples (module docstring): the ranges from the
    BatchNormalization statistics, equalization, every bias corrected."""
    function = entry_function(module)
    statistics = data_free_statistics(function, data_free.input_range, data_free.sigmas)
    points = quantization_points(function)
    ranges = [statistics_range(function, statistics, point) for point in points]
    _keep_source_ranges(points, ranges)
    correct_biases(function, statistics_means(statistics), options.quantized_weights)
    annotate_calibration(function, points, ranges)


def quantize_data_free(module: ModuleOp, options: QuantizeOptions, data_free: DataFreeOptions) -> None:
    """Quantize the float `module` in place without samples (`calibrate_data_free`)."""
    calibrate_data_free(module, options, data_free)
    options.uniform_pass().apply(full_context(), module)
