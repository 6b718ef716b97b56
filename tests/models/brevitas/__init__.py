"""Networks quantized and exported by Brevitas (the real producer): committed fixtures, each with
the PyTorch module's own output on its seeded input.

Made by `scripts/export_brevitas_fixtures.py` (in a separate venv with CPU torch and Brevitas;
manifest.json records the versions). A fixture is a network in one exported form:

    <net>.qonnx      Brevitas' export_qonnx (Quant, BipolarQuant, Trunc)
    <net>.qcdq       Brevitas' export_onnx_qcdq (QuantizeLinear, Clip, DequantizeLinear)
    <net>.qcdq-int   the QCDQ export without its final DequantizeLinear: the graph output is the
                     quantized integer tensor

`float_island_names()` are the networks with a layer whose output Brevitas leaves unrequantized (a
QuantConv2d with `return_quant_tensor=False` before a QuantLinear on its float output; QuantSigmoid /
QuantTanh on a conv's 32-bit accumulator): they compile with float islands.

Every network ends in a per-tensor output quantizer: `expected(name)` is the dequantized output
PyTorch computed (for a `qcdq-int` fixture: the integers, `QuantTensor.int()`), `step(name)` the
output's quantization step in the units of `expected(name)` (1 for integers).

    from models import brevitas
    for name in brevitas.names():
        module = load_module(str(brevitas.path(name)))
        got = bitfold.run(module, brevitas.inputs(name))[brevitas.output_name(name)]

manifest()["qonnx_only"] lists the networks exported in QONNX form only, with an op no ONNX executor
implements (Brevitas' fully quantized QuantLSTM, one `QuantLSTMCell` node): file, graph input and
output, input, PyTorch's output (float and integers), output step, input shape and the cell's node
name; not in `names()` (their only oracle is PyTorch).

The graph input and output keep the names TorchScript gave them (`x.251`, `40`,
`onnx::QuantizeLinear_0`), as in a user's Brevitas export.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from models import report_macs

FIXTURES = Path(__file__).resolve().parent
MANIFEST = FIXTURES / "manifest.json"
INTEGER_FORM = "qcdq-int"


@functools.cache
def manifest() -> dict:
    return json.loads(MANIFEST.read_text())


def network_of(name: str) -> str:
    return name.rsplit(".", 1)[0]


def form_of(name: str) -> str:
    return name.rsplit(".", 1)[1]


def _entry(name: str) -> dict:
    return manifest()["networks"][network_of(name)]


def names() -> list[str]:
    """Every fixture, `<network>.<form>`, in the manifest's order."""
    return [f"{network}.{form}" for network, entry in manifest()["networks"].items() for form in entry["forms"]]


def float_island_names() -> list[str]:
    """The fixtures of the networks with a float island (a layer left unrequantized, an activation
    on an accumulator): part of them compiles as float (docs/float-islands.md)."""
    return [name for name in names() if _entry(name)["float_island"]]


def _form(name: str) -> dict:
    return _entry(name)["forms"][form_of(name)]


def path(name: str) -> Path:
    return FIXTURES / _form(name)["file"]


def inputs(name: str) -> dict[str, np.ndarray]:
    """The feeds: the one graph input (float32), by its name in the file."""
    return {_form(name)["graph_input"]: np.load(FIXTURES / _entry(name)["input"])}


def output_name(name: str) -> str:
    """The name of the one graph output."""
    return _form(name)["graph_output"]


def expected(name: str) -> np.ndarray:
    """PyTorch's output for `inputs(name)`: float, or the output integers for a `qcdq-int` fixture."""
    entry = _entry(name)
    return np.load(FIXTURES / entry["output_int" if form_of(name) == INTEGER_FORM else "output"])


def macs(name: str) -> int:
    """Multiply-accumulates of one inference of the batch (bitfold-report's layer costs)."""
    return report_macs(path(name))


def step(name: str) -> float:
    """One quantization step of the output, in the units of `expected(name)`."""
    return 1.0 if form_of(name) == INTEGER_FORM else _entry(name)["output_scale"]
