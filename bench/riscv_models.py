"""The MLPerf Tiny networks compiled by bitfold for RV32IM and RV64IM (and, through the LLVM backend, for
RVV: rv32imv, rv64imv, rv64gcv at `--vlen N`): executed instructions, code and data sizes, workspace and
compile time of one inference.

For each fixture of tests/models/mlperf_tiny (ResNet-8, DS-CNN, MobileNetV1-0.25, FC autoencoder;
each quantized by onnxruntime as QDQ per tensor, QDQ per channel and QOperator) and each target:

    instructions   executed inside the model's function, one call on the network's fixture input
                   (`CompiledModel.count_qemu`: the harness's instruction counter under qemu user
                   mode with the CPU restricted to the ISA)
    per MAC        instructions / the network's multiply-accumulates (tests/models/mlperf_tiny/manifest.json)
    .text .rodata  bytes of those sections of the assembled object (the harness's `compile_object`, gcc -c
                   for the target, and `section_sizes`, size -A; .rodata counts .srodata and .rodata.* too)
    workspace      bytes of the workspace the caller passes to the function (`CompiledModel.workspace_size`)
    compile s      wall-clock seconds of `compile_model` (import excluded)
    float %        the float-island sets (`--set float-islands`, `brevitas-islands`, `float8`): the
                   share of the instructions executed in layers that run as float islands
                   (bitfold-report's per-layer count, `model_report`: the model compiled with layer
                   labels, one call on the same input under the counter with an address profile; a
                   layer is an island where its code after quant-to-integer computes on f32,
                   docs/report.md). On the LLVM targets the labels are inline-asm markers and LLVM
                   places blocks in its own order: an approximate split (backends/llvm/layer_labels.py)

`--set float-islands` takes the models of tests/models/float_islands.py (a float first Conv, a
Sigmoid on an unrequantized accumulator, a LayerNorm-like Reduce/Div/Tanh/Gemm/Softmax island);
`--set brevitas-islands` the Brevitas exports with unrequantized layers (tests/models/brevitas:
a QuantConv2d with return_quant_tensor=False before a QuantLinear, QuantSigmoid / QuantTanh on an
accumulator; batch of 4, MACs from bitfold-report); `--set float8` the float8 / float4 QDQ models of
tests/models/float8_models.py and the qonnx wheel's FloatQuant model. These sets run on rv32im
(soft-float), rv32imf and rv64imv unless `--target` says otherwise.

The function's outputs are checked bit for bit against bitfold's interpreter on the same integer
IR (`run_reference`, run once per model); a row whose outputs differ says so instead of counting.
A model the compiler refuses prints as a row with the one-line error. The figures are printed,
never asserted.

`--set torchvision` takes the torchvision fixtures of tests/models/torchvision (MobileNetV2,
MobileNetV3-Small at 32x32 and 96x96, a RegNetX-style network with grouped convolutions, ...; MACs
from bitfold-report), filtered by `--network` and `--form`.

    python bench/riscv_models.py [--set mlperf-tiny|torchvision|producer-layouts|float-islands|brevitas-islands|float8 ...]
                                 [--network NAME ...]
                                 [--form FORM ...]
                                 [--target rv32im|rv64im|rv64imv ...] [--vlen N] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bitfold.backends.kernel.harness import TARGETS, compile_object
from bitfold.backends.kernel.harness import section_sizes as harness_section_sizes
from bitfold.backends.llvm import DEFAULT_VLEN, VECTOR_TARGETS, VLENS, harness_target
from bitfold.compile import CompiledModel, compile_model
from bitfold.load import load_module
from bitfold.report import model_report

BENCH = Path(__file__).resolve().parent
TESTS = BENCH.parent / "tests"
sys.path.insert(0, str(TESTS))  # the fixtures: models.mlperf_tiny

from models import brevitas, float8_models, float_islands, mlperf_tiny, producer_layouts, torchvision  # noqa: E402

FIXTURE_SETS = {"mlperf-tiny": mlperf_tiny, "producer-layouts": producer_layouts, "float-islands": float_islands,
                "brevitas-islands": brevitas, "float8": float8_models, "torchvision": torchvision}
"""`--set`: the MLPerf Tiny fixtures, the torchvision fixtures (tests/models/torchvision), the QDQ models with float data movement before the
first quantizer or after the last (tests/models/producer_layouts), or the float-island sets
(`FLOAT_ISLAND_SETS`); each module offers path, inputs, macs, network_of and form_of."""
FLOAT_ISLAND_SETS = ("float-islands", "brevitas-islands", "float8")
"""The sets with float islands: the float % column, and rv32im, rv32imf, rv64imv by default."""

DEFAULT_TARGETS = ("rv32im", "rv64im")
FLOAT_ISLAND_TARGETS = ("rv32im", "rv32imf", "rv64imv")
"""The targets of `--set float-islands` without `--target`: soft-float, hardware F, RVV."""
SECTION_GROUPS = {".text": (".text",), ".rodata": (".rodata", ".srodata")}
"""A column's sections: these names and their `.name.suffix` subsections."""


def one_line(error: Exception) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"


def section_sizes(assembly: str, target: str, workdir: Path) -> dict[str, int]:
    """Bytes of .text and .rodata of the assembly, assembled for `target` by the harness's
    compiler (`compile_object`) and read by `size -A` (`section_sizes`)."""
    source = workdir / "model.S"
    source.write_text(assembly)
    sections = harness_section_sizes(compile_object(source, harness_target(target), workdir))
    sizes = dict.fromkeys(SECTION_GROUPS, 0)
    for section, size in sections.items():
        for column, names in SECTION_GROUPS.items():
            if any(section == name or section.startswith(name + ".") for name in names):
                sizes[column] += size
    return sizes


@dataclass
class Row:
    name: str
    target: str
    fixtures: object
    """The fixture set's module (`FIXTURE_SETS`)."""
    cells: list[str] | None = None
    """instructions, per MAC, .text, .rodata, workspace, compile s, float %; None when `error` is set."""
    error: str | None = None


def measure(name: str, target: str, reference: dict, workdir: Path, vlen: int = DEFAULT_VLEN,
            fixtures=mlperf_tiny) -> Row:
    """One fixture of the set `fixtures` on one target; `reference` caches the interpreter's run of each model."""
    module = load_module(str(fixtures.path(name)))
    start = time.perf_counter()
    try:
        compiled: CompiledModel = compile_model(module, target)
    except Exception as error:  # the importer's, the passes' and the code generator's refusals alike
        return Row(name, target, fixtures, error=f"refused: {one_line(error)}")
    seconds = time.perf_counter() - start
    stored = compiled.quantize(fixtures.inputs(name))
    if name not in reference:
        reference[name] = compiled.run_reference(stored)
    try:
        counted = compiled.count_qemu(stored, workdir / "count", vlen)
        instructions, outputs = counted.instructions, counted.outputs
        sizes = section_sizes(compiled.assembly, target, workdir)
    except Exception as error:
        return Row(name, target, fixtures, error=f"failed: {one_line(error)}")
    for port, got, want in zip(compiled.outputs, outputs, reference[name], strict=True):
        if not np.array_equal(got, want):
            return Row(name, target, fixtures, error=f"wrong: {np.count_nonzero(got != want)} of {want.size} elements of "
                                           f"{port.name} differ from run_reference")
    macs = fixtures.macs(name)
    per_mac = f"{instructions / macs:.2f}" if macs else "-"
    island_sets = [FIXTURE_SETS[s] for s in FLOAT_ISLAND_SETS]
    share = float_share(name, target, fixtures) if any(fixtures is s for s in island_sets) else "-"
    return Row(name, target, fixtures, [f"{instructions:,}", per_mac, f"{sizes['.text']:,}",
                              f"{sizes['.rodata']:,}", f"{compiled.workspace_size:,}", f"{seconds:.1f}", share])


def float_share(name: str, target: str, fixtures) -> str:
    """The percentage of one call's instructions executed in float-island layers (module docstring)."""
    report = model_report(load_module(str(fixtures.path(name))), target, [fixtures.inputs(name)], errors=False)
    return f"{100 * report.total['float_instructions'] / report.total['instructions']:.1f}"


HEADER = ["network", "form", "target", "MACs", "instructions", "per MAC", ".text", ".rodata", "workspace", "compile s",
          "float %"]
LEFT = 3
"""Columns aligned left (the names); the numbers align right."""


def print_table(rows: list[Row]) -> None:
    """Columns padded to their widest cell; an error row prints its message after the MACs."""
    table = [[r.fixtures.network_of(r.name), r.fixtures.form_of(r.name), r.target,
              f"{r.fixtures.macs(r.name):,}", *(r.cells or [])] for r in rows]
    widths = [max([len(HEADER[i])] + [len(row[i]) for row in table if len(row) > i]) for i in range(len(HEADER))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i < LEFT else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    print(line(HEADER).rstrip())
    print(line(["-" * w for w in widths]))
    for row, cells in zip(rows, table, strict=True):
        print(line(cells).rstrip() if row.error is None else f"{line(cells)}  {row.error}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", choices=sorted(FIXTURE_SETS), help="default: mlperf-tiny")
    parser.add_argument("--network", action="append", choices=[*mlperf_tiny.NETWORKS, *torchvision.NETWORKS],
                        help="mlperf-tiny, torchvision: default all")
    parser.add_argument("--form", action="append", choices=mlperf_tiny.FORMS, help="default: all")
    parser.add_argument("--target", action="append", choices=sorted({*TARGETS, *VECTOR_TARGETS}),
                        help="default: rv32im, rv64im (float-island sets: rv32im, rv32imf, rv64imv)")
    parser.add_argument("--vlen", type=int, choices=VLENS, default=DEFAULT_VLEN, help="vector targets: VLEN")
    parser.add_argument("--workdir", type=Path, help="keep the programs here (default: a temporary directory)")
    arguments = parser.parse_args(argv)
    networks = arguments.network or [*mlperf_tiny.NETWORKS, *torchvision.NETWORKS]
    forms = arguments.form or mlperf_tiny.FORMS
    fixture_names = {
        "mlperf-tiny": [f"{network}-{form}" for network in mlperf_tiny.NETWORKS if network in networks
                        for form in forms],
        "torchvision": [name for name in torchvision.names()
                        if torchvision.network_of(name) in networks and torchvision.form_of(name) in forms],
        "producer-layouts": producer_layouts.names(),
        "float-islands": float_islands.names(),
        "brevitas-islands": brevitas.float_island_names(),
        "float8": float8_models.names(),
    }
    rows: list[Row] = []
    reference: dict = {}
    with tempfile.TemporaryDirectory() as scratch:
        root = arguments.workdir or Path(scratch)
        for fixture_set in arguments.set or ["mlperf-tiny"]:
            default_targets = FLOAT_ISLAND_TARGETS if fixture_set in FLOAT_ISLAND_SETS else DEFAULT_TARGETS
            targets = arguments.target or default_targets
            for name in fixture_names[fixture_set]:
                for target in targets:
                    workdir = root / name / target
                    workdir.mkdir(parents=True, exist_ok=True)
                    fixtures = FIXTURE_SETS[fixture_set]
                    rows.append(measure(name, target, reference, workdir, arguments.vlen, fixtures))
                    print(f"  measured {name} on {target}", file=sys.stderr)
    print("One inference of each fixture compiled by bitfold (instructions executed in the function,")
    print("counted under qemu user mode restricted to the ISA; outputs equal to run_reference); sizes in bytes.")
    print()
    print_table(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
