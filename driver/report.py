"""bitfold-report's calculation: per-layer cost, quantization error and executed instructions.

    report = model_report(module, target="rv32im", samples=[{"input": x}])
    report.layers[i].macs, report.layers[i].instructions, report.total["bops"], ...

Costs come from the canonical quant form (`bitfold.passes.layer_report`). With samples, every
layer's output is compared on the real axis with (a) the same network without activation
quantization (`strip_activation_quantization`): the largest difference in output steps (the
layer's output scale) and the SQNR `10 log10(sum f^2 / sum (f - q)^2)` in dB over all samples;
(b) the integer IR (quant-to-integer, lower-quant) run by bitfold's interpreter: the largest
difference in output steps (0, or 1 where requantization rounds a wide accumulator differently,
README). With a target, the model is compiled with layer labels and run once under the
instruction counter (`backends/kernel/harness/layer_markers.py`) on the first sample (or zeros). A layer is
a float island where its code after quant-to-integer computes on f32 (`computes_in_float`, the
layer's ops found by the same labels); `total["float_instructions"]` sums those layers' instructions.

With `errors=False` the samples only feed the instruction count (no comparison runs)."""

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from bitfold.backends.kernel.harness.layer_markers import count_layers, mark_layers, ops_by_layer
from bitfold.backends.llvm import harness_target
from bitfold.compile import compile_model
from bitfold.interpreter import entry_function, run_on_samples
from bitfold.load import full_context
from bitfold.passes.layer_report import (
    LayerCost,
    add_layer_probes,
    computes_in_float,
    layer_costs,
    layer_ops,
    output_quantization,
    strip_activation_quantization,
)
from bitfold.passes.layer_report.probes import PROBE_PREFIX
from bitfold.passes.lower_quant import LowerQuantPass
from bitfold.passes.pipelines import quant_form_stages
from bitfold.passes.quant_to_integer import QuantToIntegerPass


@dataclass
class LayerRow(LayerCost):
    float_island: bool = False
    """the layer's integer-IR code computes on f32 (a float island, docs/float-islands.md)"""
    instructions: int | None = None
    float_max_steps: float | None = None
    """largest |quantized - float| of the layer's output, in output steps (None: float output)"""
    sqnr_db: float | None = None
    """SQNR of the quantized output against the float network (None: identical)"""
    integer_max_steps: float | None = None
    """largest |integer IR - quantized model| in output steps"""


@dataclass
class Report:
    layers: list[LayerRow]
    total: dict = field(default_factory=dict)
    target: str | None = None

    def as_json(self) -> dict:
        return {"target": self.target, "layers": [asdict(row) for row in self.layers], "total": self.total}


def quant_form(module: ModuleOp) -> ModuleOp:
    """A copy of `module` (ONNX-imported or quant-form IR) in the canonical quant form."""
    canonical = module.clone()
    ctx = full_context()
    for stage in quant_form_stages():
        stage.apply(ctx, canonical)
    return canonical


def _max_steps(a: np.ndarray, b: np.ndarray, step: np.ndarray | None) -> float | None:
    if step is None:
        return None
    return float(np.max(np.abs(a - b) / step, initial=0.0))


def _sqnr(reference: np.ndarray, quantized: np.ndarray) -> float | None:
    noise = float(np.sum((reference - quantized) ** 2))
    return None if noise == 0.0 else float(10 * np.log10(float(np.sum(reference**2)) / noise))


def _errors(canonical: ModuleOp, samples: Sequence[Mapping[str, np.ndarray]]) -> list[tuple]:
    """(float max steps, SQNR, integer max steps) of every layer (module docstring)."""
    probed = canonical.clone()
    function = entry_function(probed)
    steps = []
    for op in layer_ops(function):
        quantized = output_quantization(op)
        shape = op.results[0].type.get_shape()
        steps.append(None if quantized is None else quantized.parameter_arrays(shape)[0])
    count = len(add_layer_probes(function))
    floating = probed.clone()
    strip_activation_quantization(floating)
    integer = probed.clone()
    ctx = full_context()
    for stage in (QuantToIntegerPass(integer_io=False), LowerQuantPass()):
        stage.apply(ctx, integer)
    probes = [f"{PROBE_PREFIX}{i}" for i in range(count)]
    quantized_values = run_on_samples(probed, samples, probes)
    float_values = run_on_samples(floating, samples, probes)
    integer_values = run_on_samples(integer, samples, probes)
    return [(_max_steps(q, f, s), _sqnr(f, q), _max_steps(i, q, s))
            for q, f, i, s in zip(quantized_values, float_values, integer_values, steps, strict=True)]


def _float_islands(canonical: ModuleOp) -> list[bool]:
    """Whether each layer's code after quant-to-integer computes on f32 (module docstring)."""
    marked = canonical.clone()
    function = entry_function(marked)
    layers = layer_ops(function)
    mark_layers(function, layers)
    QuantToIntegerPass().apply(full_context(), marked)
    return [computes_in_float(ops) for ops in ops_by_layer(entry_function(marked), len(layers))]


def _instructions(canonical: ModuleOp, target: str, sample: Mapping[str, np.ndarray] | None):
    """(per-layer instructions, entry and exit, workspace bytes) of one call on `target`."""
    marked = canonical.clone()
    function = entry_function(marked)
    layers = layer_ops(function)
    mark_layers(function, layers)
    compiled = compile_model(marked, target)
    if sample is None:
        stored = [np.zeros(p.shape, p.dtype) for p in compiled.inputs]
    else:
        stored = compiled.quantize(sample)
    layouts = [(p.shape, p.dtype) for p in compiled.outputs]
    with tempfile.TemporaryDirectory() as workdir:
        counted = count_layers(compiled.assembly, harness_target(target), compiled.symbol, stored, layouts, len(layers),
                               workdir)
    return counted.per_layer, counted.entry_and_exit, compiled.workspace_size


def model_report(module: ModuleOp, target: str | None = None,
                 samples: Sequence[Mapping[str, np.ndarray]] = (), errors: bool = True) -> Report:
    """The report of `module` (module docstring); `samples` are float inputs by name."""
    canonical = quant_form(module)
    rows = [LayerRow(**asdict(cost), float_island=island)
            for cost, island in zip(layer_costs(entry_function(canonical)), _float_islands(canonical), strict=True)]
    total = {"macs": sum(r.macs for r in rows), "bops": sum(r.bops for r in rows),
             "weight_bytes": sum(r.weight_bytes for r in rows),
             "workspace_bytes": max((r.live_bytes for r in rows), default=0), "instructions": None}
    if samples and errors:
        for row, (float_steps, sqnr, integer_steps) in zip(rows, _errors(canonical, samples), strict=True):
            row.float_max_steps, row.sqnr_db, row.integer_max_steps = float_steps, sqnr, integer_steps
    if target is not None:
        per_layer, outside, workspace = _instructions(canonical, target, samples[0] if samples else None)
        for row, count in zip(rows, per_layer, strict=True):
            row.instructions = count
        total.update(instructions=sum(per_layer) + outside, entry_and_exit_instructions=outside,
                     float_instructions=sum(r.instructions for r in rows if r.float_island), workspace_bytes=workspace)
    return Report(rows, total, target)
