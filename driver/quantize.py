"""bitfold-quantize's calculation: a float model, calibration samples and a scheme in, the
canonical quant form out.

    quantized = quantize_model(module, samples, QuantizeOptions(activation_bits=8, per_channel=True))

1. `quantization_points` of the entry function (bitfold.passes.calibration.points);
2. a copy of the model returns every point's value (`append_results`); bitfold's interpreter runs
   it on each sample and the method (`statistics.calibrated_range`) turns what each point took
   into a range (an average pool keeps its input's: `range_source`);
3. `annotate_calibration` records the ranges as `!quant.calibrated` types (`calibrate_model`
   stops here);
4. `calibrated-to-uniform` chooses the uniform types and quantizes weights and biases."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from bitfold.interpreter import entry_function, run_on_samples
from bitfold.load import full_context
from bitfold.passes.calibration.calibrated_to_uniform import CalibratedToUniformPass
from bitfold.passes.calibration.points import annotate_calibration, quantization_points, range_source
from bitfold.passes.calibration.schemes import Scheme, activation_type
from bitfold.passes.calibration.statistics import calibrated_range
from bitfold.passes.utils.observed_values import append_results

OBSERVED_PREFIX = "calibration_point"


@dataclass(frozen=True)
class QuantizeOptions:
    activation_bits: int = 8
    weight_bits: int = 8
    per_channel: bool = False
    symmetric: bool = False
    power_of_two: bool = False
    method: str = "minmax"

    def uniform_pass(self) -> CalibratedToUniformPass:
        return CalibratedToUniformPass(self.activation_bits, self.weight_bits, self.per_channel, self.symmetric,
                                       self.power_of_two)


def observe_points(module: ModuleOp, samples: Sequence[Mapping[str, np.ndarray]]) -> list[np.ndarray]:
    """The values every quantization point of `module` took, each flattened over all samples."""
    observed = module.clone()
    function = entry_function(observed)
    names = append_results(function, quantization_points(function), OBSERVED_PREFIX)
    return [values.ravel() for values in run_on_samples(observed, samples, names)]


def calibrate_model(module: ModuleOp, samples: Sequence[Mapping[str, np.ndarray]], options: QuantizeOptions) -> None:
    """Record calibration statistics in `module` (steps 1-3 of the module docstring)."""
    if not samples:
        raise ValueError("calibration needs at least one sample")
    scheme = Scheme(options.activation_bits, options.symmetric, options.power_of_two)
    function = entry_function(module)
    points = quantization_points(function)
    ranges = []
    for point, values in zip(points, observe_points(module, samples), strict=True):
        expressed = point.type.element_type

        def type_for(low: float, high: float, expressed=expressed):
            return activation_type(low, high, scheme, expressed)

        ranges.append(calibrated_range(values, options.method, options.symmetric, type_for))
    for i, point in enumerate(points):
        if (source := range_source(point, points)) is not None:
            ranges[i] = ranges[points.index(source)]
    annotate_calibration(function, points, ranges)


def quantize_model(module: ModuleOp, samples: Sequence[Mapping[str, np.ndarray]], options: QuantizeOptions) -> None:
    """Quantize the float `module` in place into the canonical quant form (module docstring)."""
    calibrate_model(module, samples, options)
    options.uniform_pass().apply(full_context(), module)
