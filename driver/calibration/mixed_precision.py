"""Mixed precision: each layer's weight width chosen for a budget of weight bytes or bit operations.

    layers = quantize_mixed(module, samples, options, Budget("bytes", 20_000), widths=(2, 3, 4, 5, 6, 7, 8))

The layers are the contractions with constant weights (`weighted_contractions`); activations keep
`options.activation_bits`; widths are 2..16 (2 is ternary {-s, 0, +s}, the narrow symmetric range)
or 1 (bipolar {-s, +s}).
1. The float model is calibrated once (`calibrate_model`, weights at the highest width `H`).
2. Costs: a layer at width b costs ceil(n b / 8) weight bytes (n weight elements, packed as
   `bitfold-report` packs them; the int32 biases do not depend on the choice and are not counted)
   or MACs x b x activation bits (`layer_costs` of the model with every layer at `H`; the bit
   operations of the other layers are added to every choice).
3. Sensitivity on the first `SENSITIVITY_SAMPLES` calibration samples, f the float model's
   outputs on them: the noise N(l, b) = sum (f - q)^2 over all outputs q of the model with layer
   l at b and every other layer at H, N0 that of every layer at H. Measured so at the widths up
   to `LINEAR_FROM` bits; above it (where quantization noise is small and the output noise grows
   linearly with the weights' error power, 6 dB a bit) estimated from the widest measured width
   m: N(l, b) - N0 = (N(l, m) - N0) E(l, b) / E(l, m), E(l, b) = sum (W_b - W)^2 the squared error
   of layer l's weights quantized at b (`sensitivity`, `weight_error`).
4. The choice minimizes sum_l (N(l, b_l) - N0) within the budget: quantization errors of different
   layers are close to independent, so their noise powers add (an additive proxy of the output
   noise N0 + sum_l (N(l, b_l) - N0)), and the exact multiple-choice knapsack over that proxy is
   solved by `width_selection.least_loss_choices` (docs/calibration.md says why not greedy).
5. The proxy is not the output noise (layers' errors interact, and the sensitivity runs keep the
   biases `--method mse` corrected for width H): the `MEASURED_CHOICES` best choices of the
   knapsack and every uniform width within the budget are quantized as they will be written
   (`--method mse` calibrated with their widths, so each bias is corrected for its own layer's
   width; the other methods' statistics do not depend on the widths) and run on the same
   samples; the one with the least noise is taken, so the result is never worse on them than
   the best uniform width the budget allows. The model is quantized with it.
A budget below the cost of every layer at its smallest width is one `CalibrationError` line naming
the least reachable total."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from bitfold.calibration.observe import observe_values
from bitfold.calibration.width_selection import least_loss_choices, minimum_cost
from bitfold.dialects.onnx.constant import constant_array
from bitfold.interpreter import entry_function
from bitfold.load import full_context
from bitfold.passes.calibration.calibrated_to_uniform import CalibrationError, weighted_contractions
from bitfold.passes.layer_report import layer_costs, layer_ops
from bitfold.quantize import QuantizeOptions, calibrate_model

SENSITIVITY_SAMPLES = 64
"""Samples the sensitivity runs use: each of the L x (measured widths) + 1 runs goes over all of them."""
DEFAULT_WIDTHS = (2, 3, 4, 5, 6, 7, 8)
"""The candidate weight widths without `--bits`: with only 2, 4 and 8, half the 8-bit bytes leaves
uniform 4 bits or trades 2-bit layers for 8-bit ones, and on the autoencoder and DS-CNN no trade
beats uniform 4 bits (docs/calibration.md); the widths between let a layer give or take one bit."""
LINEAR_FROM = 5
"""The widest width whose sensitivity is measured; wider ones are estimated (step 3)."""
MEASURED_CHOICES = 3
"""How many of the knapsack's best choices are measured before one is taken (step 5)."""
BUDGET_KINDS = {"bytes": "weight bytes", "bops": "bit operations"}
"""what each `Budget.kind` counts, as an error line names it"""


@dataclass(frozen=True)
class Budget:
    kind: str
    """`bytes` (the weights packed at their widths, biases not counted) or `bops`"""
    limit: int


@dataclass(frozen=True)
class LayerWidth:
    name: str
    bits: int
    cost: int
    """the layer's weight bytes or bit operations at `bits`"""
    noise: float
    """N(l, bits) - N0 (module docstring)"""


def output_values(module: ModuleOp, samples: Sequence[Mapping[str, np.ndarray]]) -> list[np.ndarray]:
    """Every output of `module` on every sample, flattened in sample order (batched interpretation)."""
    return observe_values(module, list(entry_function(module).body.block.last_op.operands), samples)


def noise_against(reference: Sequence[np.ndarray], module: ModuleOp, samples) -> float:
    return float(sum(np.sum((f - q) ** 2) for f, q in zip(reference, output_values(module, samples), strict=True)))


def quantized_at(calibrated: ModuleOp, options: QuantizeOptions, widths: tuple[int, ...]) -> ModuleOp:
    module = calibrated.clone()
    replace(options, layer_weight_bits=widths).uniform_pass().apply(full_context(), module)
    return module


def _costs(calibrated: ModuleOp, options: QuantizeOptions, widths: Sequence[int],
           budget: Budget) -> tuple[list[list[int]], int]:
    """(cost of each layer at each width, the cost that does not depend on the choice) (step 2)."""
    layers = weighted_contractions(entry_function(calibrated))
    if budget.kind == "bytes":
        return [[(int(np.prod(op.operands[1].type.get_shape())) * bits + 7) // 8 for bits in widths]
                for op in layers], 0
    positions = [layer_ops(entry_function(calibrated)).index(op) for op in layers]
    rows = layer_costs(entry_function(quantized_at(calibrated, options, (max(widths),) * len(layers))))
    costs = [[rows[p].macs * bits * rows[p].activation_bits for bits in widths] for p in positions]
    return costs, sum(row.bops for row in rows) - sum(layer[-1] for layer in costs)


def _quantize_with(module: ModuleOp, samples: Sequence[Mapping[str, np.ndarray]], options: QuantizeOptions,
                   widths: tuple[int, ...]) -> None:
    """Quantize the float `module` in place with the weight `widths` (step 5): calibrated with
    them, so `--method mse` corrects each bias for its own layer's width."""
    chosen = replace(options, layer_weight_bits=widths)
    calibrate_model(module, samples, chosen)
    chosen.uniform_pass().apply(full_context(), module)


def sensitivity(noise_of: Callable[[tuple[int, ...]], float], error_of: Callable[[int, int], float],
                widths: Sequence[int], count: int, linear_from: int = LINEAR_FROM) -> list[list[float]]:
    """N(l, b) - N0 for each of `count` layers and each of the ascending `widths` (step 3), from
    `noise_of(widths of every layer)` at the measured widths (up to `linear_from` bits) and
    `error_of(layer, bits)` (E(l, b), `weight_error`) at the others."""
    top = widths[-1]
    base = noise_of((top,) * count)
    measured = [bits for bits in widths[:-1] if bits <= linear_from] or [widths[0]]
    rows = []
    for layer in range(count):
        noise = {bits: noise_of(tuple(bits if i == layer else top for i in range(count))) - base for bits in measured}
        rows.append([noise[bits] if bits in noise else _estimated(noise[measured[-1]], error_of(layer, measured[-1]),
                                                                  error_of(layer, bits))
                     for bits in widths[:-1]] + [0.0])
    return rows


def _estimated(measured_noise: float, measured_error: float, error: float) -> float:
    """N(l, b) - N0 = (N(l, m) - N0) E(l, b) / E(l, m) (step 3); 0 where E(l, m) is 0."""
    return measured_noise * error / measured_error if measured_error > 0 else 0.0


def weight_error(calibrated: ModuleOp, options: QuantizeOptions) -> Callable[[int, int], float]:
    """E(layer, bits): the squared error of the layer's weights quantized at `bits` (step 3)."""
    layers = weighted_contractions(entry_function(calibrated))

    def error_of(layer: int, bits: int) -> float:
        op = layers[layer]
        weights = constant_array(op.operands[1]).astype(np.float64)
        at_bits = replace(options, layer_weight_bits=tuple(bits if i == layer else options.weight_bits
                                                           for i in range(len(layers))))
        return float(np.sum((at_bits.quantized_weights(op, weights) - weights) ** 2))

    return error_of


def quantize_mixed(module: ModuleOp, samples: Sequence[Mapping[str, np.ndarray]], options: QuantizeOptions,
                   budget: Budget, widths: Sequence[int] = DEFAULT_WIDTHS) -> list[LayerWidth]:
    """Quantize the float `module` in place with per-layer weight widths from `widths` chosen for
    `budget` (module docstring); the chosen width of every layer in program order."""
    widths = sorted(set(widths))
    top = max(widths)
    options = replace(options, weight_bits=top, layer_weight_bits=())
    calibrated = module.clone()
    calibrate_model(calibrated, samples, options)
    layers = weighted_contractions(entry_function(calibrated))
    costs, fixed = _costs(calibrated, options, widths, budget)
    least = minimum_cost([[(cost, 0.0) for cost in layer] for layer in costs]) + fixed
    if least > budget.limit:
        raise CalibrationError(f"a budget of {budget.limit:,} {BUDGET_KINDS[budget.kind]} cannot be met: with every "
                               f"layer at {min(widths)} bits the model needs {least:,}")
    probe = samples[:SENSITIVITY_SAMPLES]
    reference = output_values(module, probe)

    def noise_of(chosen: tuple[int, ...]) -> float:
        return noise_against(reference, quantized_at(calibrated, options, chosen), probe)

    noise = sensitivity(noise_of, weight_error(calibrated, options), widths, len(layers))
    candidates = least_loss_choices([list(zip(c, n, strict=True)) for c, n in zip(costs, noise, strict=True)],
                                    budget.limit - fixed, MEASURED_CHOICES)
    candidates += [(k,) * len(layers) for k in range(len(widths))
                   if sum(layer[k] for layer in costs) + fixed <= budget.limit and (k,) * len(layers) not in candidates]

    def written_noise(picks: tuple[int, ...]) -> float:
        chosen = tuple(widths[k] for k in picks)
        if options.method != "mse":  # the statistics do not depend on the widths
            return noise_of(chosen)
        copy = module.clone()
        _quantize_with(copy, samples, options, chosen)
        return noise_against(reference, copy, probe)

    picks = min(candidates, key=written_noise)
    _quantize_with(module, samples, options, tuple(widths[pick] for pick in picks))
    return [LayerWidth(op.node_name, widths[pick], costs[i][pick], noise[i][pick])
            for i, (op, pick) in enumerate(zip(layers, picks, strict=True))]
