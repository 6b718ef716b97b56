"""Networks quantized and exported by Brevitas, checked against the PyTorch module that made them
(issue 12's acceptance; fixtures in tests/models/brevitas, made by scripts/export_brevitas_fixtures.py).

For every fixture (a network in Brevitas' QONNX or QCDQ export, or the QCDQ export with an integer
graph output), which itself computes PyTorch's output under its form's oracle:
- `bitfold.run` on the imported model equals PyTorch's output within 1e-5 relative;
- the model converted to each ONNX form (`-p onnx-to-quant,canonicalize -t onnx-<form>`, through
  `export_model`) computes bitfold-run's numbers bit for bit under the form's oracle (onnxruntime
  with ORT_DISABLE_ALL for QDQ, QCDQ and QOp, qonnx's executor for QONNX); a form that cannot hold
  the model refuses it with the exporter's one-line reason, and that reason is checked;
- `onnx-to-integer` run by bitfold's interpreter, and the model compiled for rv32im and rv64im
  (the one-operator networks of `OPERATOR_NETWORKS`: rv32im and rv64imv) and run under qemu, give outputs within one output quantization step of PyTorch; qemu's integers
  equal bit for bit those of bitfold-run on the compiled integer IR.
- the networks with an unrequantized layer (`brevitas.float_island_names()`) compile with float
  islands (bitfold-report flags a float layer) and run under qemu on rv32im / rv64im (soft float),
  rv32imf (F) and rv64imv (LLVM) too, bit-exact to bitfold-run and within the float-island bound of
  docs/float-islands.md (one output step) of PyTorch;
- Brevitas' fully quantized QuantLSTM (a `QuantLSTMCell` node, manifest `qonnx_only`, expanded per time
  step at import): bitfold-run, the integer pipeline and qemu on rv32im and rv64imv give PyTorch's
  output (measured: bit for bit; asserted: bitfold-run within 1e-5 relative, the others within one
  output step), qemu bit-exact to bitfold-run, and no layer is a float island.
"""

from __future__ import annotations

import functools
import subprocess

import numpy as np
import pytest
from conftest import require_tools
from models import brevitas
from models.runners import qonnx_ir_version_shim, run_onnxruntime, run_qonnx
from xdsl.transforms.canonicalize import CanonicalizePass

import bitfold
from bitfold.backends.llvm import VECTOR_TARGETS
from bitfold.backends.onnx import ExportError, export_model
from bitfold.backends.onnx.qcdq import QcdqForm
from bitfold.backends.onnx.qdq import QdqForm
from bitfold.backends.onnx.qonnx import QonnxForm
from bitfold.backends.onnx.qop import QopForm
from bitfold.compile import CompiledModel, compile_model
from bitfold.frontends.onnx import import_model
from bitfold.load import full_context, load_module
from bitfold.passes.onnx_to_quant import OnnxToQuantPass
from bitfold.passes.pipelines import OnnxToIntegerPipeline
from bitfold.report import model_report

FORMS = {"qdq": (QdqForm, run_onnxruntime), "qcdq": (QcdqForm, run_onnxruntime),
         "qonnx": (QonnxForm, run_qonnx), "qop": (QopForm, run_onnxruntime)}
TARGETS = ("rv32im", "rv64im")
OPERATOR_NETWORKS = ("convtranspose-w8a8", "meanpool-w8a8", "upsample-nearest-a8", "upsample-bilinear-a8",
                     "upsample-bilinear-aligned-a8", "quantlstm-weights-w8")
"""The one-operator networks (QuantConvTranspose2d, a mean as ReduceMean, nn.Upsample as Resize, a
weights-only QuantLSTM) compile for rv32im and, through LLVM, for rv64imv."""
WHOLLY_FLOAT = ("quantlstm-weights-w8",)
"""Float-island networks whose one layer is the float island (an LSTM on quantized weights)."""
OPERATOR_TARGETS = ("rv32im", "rv64imv")
FLOAT_TARGETS = ("rv32imf", "rv64imv")
"""The float-island networks also compile for hardware F and, through LLVM, for RVV."""
LLVM_TOOLS = ("mlir-opt-22", "mlir-translate-22", "clang-22")

RELATIVE = 1e-5
"""bitfold-run against PyTorch. Every output is dequantized by a quantizer, so the values are
integer multiples of the output step; elements that are exactly 0 get an absolute tolerance of
1e-5 steps, far below the one step a wrong rounding would cost."""

def refusal(name: str, form: str) -> str | None:
    """The exporter's reason (a regex) where `form` cannot hold the fixture, else None:
    bipolar activations (quantized at run time) only in QONNX (bipolar constant weights are
    written as -1/+1 integers in every form); 5-bit activations, and the Trunc input Brevitas'
    QONNX export leaves unclamped (6 bits, sign unstated: [-32, 63]), have no ONNX integer type
    for QDQ / QOp; QONNX holds no integer graph output."""
    entry = brevitas.manifest()["networks"][brevitas.network_of(name)]
    if entry["act_bits"] == "bipolar" and form != "qonnx":
        return f"{FORMS[form][0].name} cannot express the bipolar type .*; QONNX \\(BipolarQuant\\) can"
    no_type = r"cannot express the range \[{}, {}\] .* \(no ONNX integer type has it\)"
    if entry["act_bits"] == 5 and form in ("qdq", "qop"):
        return no_type.format(-16, 15)
    if name == "truncavgpool-w8a4.qonnx" and form in ("qdq", "qop"):
        return no_type.format(-32, 63)
    if brevitas.form_of(name) == brevitas.INTEGER_FORM and form == "qonnx":
        return "QONNX holds no integer tensors: .*; QDQ or QCDQ can"
    return None


@functools.cache
def bitfold_run(name: str) -> np.ndarray:
    """bitfold-run of the imported fixture on its input."""
    return bitfold.run(load_module(str(brevitas.path(name))), brevitas.inputs(name))[brevitas.output_name(name)]


def assert_within_one_step(name: str, got: np.ndarray) -> None:
    want, step = brevitas.expected(name), brevitas.step(name)
    assert got.shape == want.shape
    off = np.abs(got.astype(np.float64) - want.astype(np.float64))
    assert off.max() <= step * (1 + 1e-6), f"{name}: up to {off.max() / step:.2f} steps of {step:g} from PyTorch"


@pytest.mark.parametrize("name", brevitas.names())
def test_bitfold_run_equals_pytorch(name):
    got, want = bitfold_run(name), brevitas.expected(name)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=RELATIVE, atol=RELATIVE * brevitas.step(name))


@pytest.mark.parametrize("name", brevitas.names())
def test_source_runs_like_pytorch_under_its_oracle(name):
    """The fixture itself, under its form's oracle (qonnx's executor, which needs shapes inferred
    by qonnx's `InferShapes`, or onnxruntime), computes PyTorch's output bit for bit: the exports
    are faithful, so bitfold's numbers can be judged against PyTorch's."""
    if brevitas.form_of(name) == "qonnx":
        from qonnx.core.modelwrapper import ModelWrapper
        from qonnx.transformation.infer_shapes import InferShapes

        with qonnx_ir_version_shim():
            model = ModelWrapper(str(brevitas.path(name))).transform(InferShapes()).model
        got = run_qonnx(model, brevitas.inputs(name))
    else:
        got = run_onnxruntime(brevitas.path(name), brevitas.inputs(name))
    want = brevitas.expected(name)
    assert got[brevitas.output_name(name)].dtype == want.dtype
    np.testing.assert_array_equal(got[brevitas.output_name(name)], want)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("name", brevitas.names())
def test_export_computes_bitfold_run(name, form):
    module = import_model(brevitas.path(name))
    ctx = full_context()
    OnnxToQuantPass().apply(ctx, module)
    CanonicalizePass().apply(ctx, module)
    form_class, oracle = FORMS[form]
    reason = refusal(name, form)
    if reason is not None:
        with pytest.raises(ExportError, match=reason):
            export_model(module, form_class())
        return
    got = oracle(export_model(module, form_class()), brevitas.inputs(name))[brevitas.output_name(name)]
    want = bitfold_run(name)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", brevitas.names())
def test_integer_pipeline_within_one_step_of_pytorch(name):
    module = load_module(str(brevitas.path(name)))
    OnnxToIntegerPipeline().apply(full_context(), module)
    assert_within_one_step(name, bitfold.run(module, brevitas.inputs(name))[brevitas.output_name(name)])


@functools.cache
def compiled(name: str, target: str) -> CompiledModel:
    """The fixture compiled for `target`, once per session."""
    return compile_model(load_module(str(brevitas.path(name))), target)


@pytest.mark.parametrize("name", brevitas.float_island_names())
def test_unrequantized_layers_become_float_islands(name):
    """No refusal: the layer on the float (unrequantized) value is a float island, the rest integer."""
    islands = [row.float_island for row in model_report(load_module(str(brevitas.path(name)))).layers]
    assert any(islands) and (brevitas.network_of(name) in WHOLLY_FLOAT or not all(islands)), islands


def _one_target_a_form(targets: tuple[str, str], names: list[str]) -> list:
    """Each fixture on one of two `targets`: a module's QONNX export on the first, its QCDQ export (the
    same integer IR once imported, test_integer_pipeline_within_one_step_of_pytorch) on the second, so
    both targets and both forms run with each model compiled once."""
    return [pytest.param(name, target := targets[".qcdq" in name], id=f"{name}-{target}") for name in names]


def _qemu_cases() -> list:
    """QONNX / QCDQ split over TARGETS, OPERATOR_TARGETS for OPERATOR_NETWORKS; the other float-island
    networks also on FLOAT_TARGETS."""
    operators = [name for name in brevitas.names() if brevitas.network_of(name) in OPERATOR_NETWORKS]
    others = [name for name in brevitas.names() if name not in operators]
    islands = [name for name in brevitas.float_island_names() if name not in operators]
    return (_one_target_a_form(TARGETS, others) + _one_target_a_form(OPERATOR_TARGETS, operators) +
            _one_target_a_form(FLOAT_TARGETS, islands))


@pytest.mark.slow  # the 67 compilations take most of the file's time
@pytest.mark.parametrize(("name", "target"), _qemu_cases())
def test_qemu_equals_bitfold_run_and_pytorch(name, target, tmp_path):
    if target in VECTOR_TARGETS:
        require_tools(*LLVM_TOOLS)
    model = compiled(name, target)
    stored = model.quantize(brevitas.inputs(name))
    (got,) = model.run_qemu(stored, tmp_path)
    (want,) = model.run_reference(stored)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want, err_msg=f"{name} on {target}")
    (port,) = model.outputs
    assert_within_one_step(name, got if port.model_integers else model.dequantize([got])[0])


def test_bitfold_run_command_line(tmp_path):
    """`bitfold-run` itself, fed by TorchScript's input name (`onnx::QuantizeLinear_0`), saves PyTorch's output."""
    name = "cnn-w4a4-perchannel.qcdq"
    ((input_name, value),) = brevitas.inputs(name).items()
    np.save(tmp_path / "x.npy", value)
    done = subprocess.run(["bitfold-run", str(brevitas.path(name)), "--input", f"{input_name}={tmp_path / 'x.npy'}",
                           "--output-dir", str(tmp_path / "out")], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    output = brevitas.output_name(name)
    assert done.stdout.split(":")[0] == output
    np.testing.assert_array_equal(np.load(tmp_path / "out" / f"{output}.npy"), brevitas.expected(name))


LSTM_CELL = brevitas.manifest()["qonnx_only"]["quantlstm-cell"]


def _lstm_cell_inputs() -> dict[str, np.ndarray]:
    return {LSTM_CELL["graph_input"]: np.load(brevitas.FIXTURES / LSTM_CELL["input"])}


def _assert_lstm_cell_within_one_step(got: np.ndarray) -> None:
    want, step = np.load(brevitas.FIXTURES / LSTM_CELL["output"]), LSTM_CELL["output_scale"]
    assert got.shape == want.shape
    off = np.abs(got.astype(np.float64) - want.astype(np.float64))
    assert off.max() <= step * (1 + 1e-6), f"up to {off.max() / step:.2f} steps of {step:g} from PyTorch"


def _lstm_cell_module():
    return load_module(str(brevitas.FIXTURES / LSTM_CELL["file"]))


def test_quantized_lstm_cell_runs_like_pytorch(tmp_path):
    """`bitfold-run` on Brevitas' QuantLSTM (QuantLSTMCell expanded per step) saves PyTorch's output."""
    np.save(tmp_path / "x.npy", np.load(brevitas.FIXTURES / LSTM_CELL["input"]))
    done = subprocess.run(["bitfold-run", str(brevitas.FIXTURES / LSTM_CELL["file"]), "--input",
                           f"{LSTM_CELL['graph_input']}={tmp_path / 'x.npy'}", "--output-dir", str(tmp_path / "out")],
                          check=False, capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    got = np.load(tmp_path / "out" / f"{LSTM_CELL['graph_output']}.npy")
    want = np.load(brevitas.FIXTURES / LSTM_CELL["output"])
    np.testing.assert_allclose(got, want, rtol=RELATIVE, atol=RELATIVE * LSTM_CELL["output_scale"])


def test_quantized_lstm_cell_is_integer_within_one_step():
    assert not any(row.float_island for row in model_report(_lstm_cell_module()).layers)
    module = _lstm_cell_module()
    OnnxToIntegerPipeline().apply(full_context(), module)
    _assert_lstm_cell_within_one_step(bitfold.run(module, _lstm_cell_inputs())[LSTM_CELL["graph_output"]])


@pytest.mark.slow
@pytest.mark.parametrize("target", OPERATOR_TARGETS)
def test_quantized_lstm_cell_on_qemu(target, tmp_path):
    if target in VECTOR_TARGETS:
        require_tools(*LLVM_TOOLS)
    model = compile_model(_lstm_cell_module(), target)
    stored = model.quantize(_lstm_cell_inputs())
    (got,) = model.run_qemu(stored, tmp_path)
    (want,) = model.run_reference(stored)
    np.testing.assert_array_equal(got, want, err_msg=target)
    (port,) = model.outputs
    _assert_lstm_cell_within_one_step(got if port.model_integers else model.dequantize([got])[0])
