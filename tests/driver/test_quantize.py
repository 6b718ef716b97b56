"""bitfold-quantize against its oracles: each written form runs in onnxruntime (QDQ, QCDQ, QOp) or
qonnx (QONNX) with bitfold-run's numbers, compiles for rv32im bit-exact under qemu, keeps SQNR at
onnxruntime's quantize_static level on the same data, and its statistics are upstream MLIR text."""

import re
import subprocess

import numpy as np
import onnx
import pytest
from conftest import MLIR_OPT, require_tools
from models.runners import qonnx_ir_version_shim, random_inputs, run_onnxruntime

from bitfold.backends.onnx import export_model
from bitfold.backends.onnx.qcdq import QcdqForm
from bitfold.backends.onnx.qdq import QdqForm
from bitfold.backends.onnx.qonnx import QonnxForm
from bitfold.backends.onnx.qop import QopForm
from bitfold.compile import compile_model
from bitfold.dialects.quant import QuantizeCastOp, UniformQuantizedType, element_type
from bitfold.frontends.onnx import import_model
from bitfold.interpreter import run
from bitfold.quantize import QuantizeOptions, calibrate_model, quantize_model
from bitfold.quantize_main import main

NETWORKS = ["mlp-float", "cnn_depthwise-float", "residual-float", "pooling-float"]


def _samples(model, count: int, first_seed: int = 0) -> list[dict[str, np.ndarray]]:
    return [random_inputs(model, seed) for seed in range(first_seed, first_seed + count)]


def _quantized(model_catalogue, name: str, options: QuantizeOptions):
    module = import_model(model_catalogue.path(name))
    quantize_model(module, _samples(model_catalogue.load(name), 8), options)
    return module


def _steps(module) -> float:
    """The finest output quantization step of the module's last quantizer."""
    last = [op for op in module.walk() if isinstance(op, QuantizeCastOp)][-1]
    return float(min(element_type(last.result.type).scale_values()))


def _qonnx_run(model: onnx.ModelProto, inputs):
    from qonnx.core.modelwrapper import ModelWrapper
    from qonnx.core.onnx_exec import execute_onnx

    with qonnx_ir_version_shim():
        wrapper = ModelWrapper(model)
        names = [o.name for o in model.graph.output]
        results = execute_onnx(wrapper, dict(inputs))
    return {name: results[name] for name in names}


@pytest.mark.parametrize("name", NETWORKS)
@pytest.mark.parametrize("form", [QdqForm, QcdqForm, QopForm, QonnxForm])
def test_written_form_runs_with_bitfold_run_numbers(model_catalogue, name, form):
    module = _quantized(model_catalogue, name, QuantizeOptions(per_channel=True))
    model = export_model(module, form())
    inputs = random_inputs(model_catalogue.load(name), 100)
    expected = run(module, inputs)
    got = _qonnx_run(model, inputs) if form is QonnxForm else run_onnxruntime(model, inputs)
    step = _steps(module)
    for key, value in expected.items():  # float64 vs float32 float ops: at most one output step
        np.testing.assert_allclose(got[key], value, atol=step * 1.001, rtol=0)


@pytest.mark.parametrize(("weights", "activations"), [(4, 4), (3, 5), (2, 2)])
def test_low_bit_widths_run_in_qonnx(model_catalogue, weights, activations):
    module = _quantized(model_catalogue, "cnn_depthwise-float",
                        QuantizeOptions(activation_bits=activations, weight_bits=weights, per_channel=True))
    widths = {element_type(op.result.type).bit_width for op in module.walk() if isinstance(op, QuantizeCastOp)}
    assert widths == {activations}
    inputs = random_inputs(model_catalogue.load("cnn_depthwise-float"), 100)
    expected = run(module, inputs)
    got = _qonnx_run(export_model(module, QonnxForm()), inputs)
    for key, value in expected.items():
        np.testing.assert_allclose(got[key], value, atol=_steps(module) * 1.001, rtol=0)


def test_symmetric_power_of_two_scales(model_catalogue):
    module = _quantized(model_catalogue, "residual-float",
                        QuantizeOptions(per_channel=True, symmetric=True, power_of_two=True))
    types = [element_type(op.result.type) for op in module.walk() if isinstance(op, QuantizeCastOp)]
    assert all(isinstance(t, UniformQuantizedType) and t.has_power_of_two_scales for t in types)
    assert all(set(t.zero_point_values()) == {0} for t in types)


@pytest.mark.parametrize("options", [
    QuantizeOptions(per_channel=True),
    QuantizeOptions(activation_bits=4, weight_bits=4, symmetric=True, power_of_two=True),
    QuantizeOptions(activation_bits=1, weight_bits=1, symmetric=True),  # a binary network
], ids=["w8a8", "w4a4-pow2", "w1a1"])
def test_quantized_model_compiles_bit_exact(model_catalogue, options, tmp_path):
    require_tools("qemu-riscv32")
    module = _quantized(model_catalogue, "cnn_depthwise-float", options)
    compiled = compile_model(module.clone(), "rv32im")
    stored = compiled.quantize(random_inputs(model_catalogue.load("cnn_depthwise-float"), 100))
    for got, want in zip(compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(got, want)


def test_sqnr_at_onnxruntime_level(tmp_path):
    """MLPerf Tiny's autoencoder, 32 calibration samples: onnxruntime's quantize_static (QDQ, u8/s8, per
    channel, MinMax) and bitfold-quantize give equal integers up to one-step ties (their ranges differ in
    the last float bits: bitfold's float ops round once from float64): SQNR within 0.1 dB
    (bench/quantize_sqnr.py prints all four networks)."""
    from models.mlperf_tiny.architectures import BUILDERS, random_input
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

    float_path = tmp_path / "autoencoder.onnx"
    onnx.save(BUILDERS["autoencoder"](), float_path)
    calibration = [{"input": random_input("autoencoder", seed)} for seed in range(32)]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.items = iter(calibration)

        def get_next(self):
            return next(self.items, None)

    quantize_static(str(float_path), str(tmp_path / "ort.onnx"), Reader(), quant_format=QuantFormat.QDQ,
                    per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    module = import_model(float_path)
    quantize_model(module, calibration, QuantizeOptions(per_channel=True))
    tests = [{"input": random_input("autoencoder", 1000 + seed)} for seed in range(32)]

    def outputs(runner):
        return np.concatenate([next(iter(runner(t).values())) for t in tests])

    reference = outputs(lambda t: run_onnxruntime(float_path, t))

    def sqnr(values):
        return 10 * np.log10(np.sum(reference**2) / np.sum((reference - values) ** 2))

    assert sqnr(outputs(lambda t: run(module, t))) >= sqnr(outputs(lambda t: run_onnxruntime(tmp_path / "ort.onnx", t))) - 0.1


def test_calibrated_statistics_are_upstream_text(model_catalogue, tmp_path):
    require_tools(MLIR_OPT)
    module = import_model(model_catalogue.path("mlp-float"))
    calibrate_model(module, _samples(model_catalogue.load("mlp-float"), 4), QuantizeOptions())
    calibrated = [str(element_type(op.result.type)) for op in module.walk() if isinstance(op, QuantizeCastOp)]
    assert calibrated and all(text.startswith("!quant.calibrated<f32<") for text in calibrated)
    text = "\n".join(f'"test.op"() {{t = {t}}} : () -> ()' for t in calibrated)
    done = subprocess.run([MLIR_OPT, "--allow-unregistered-dialect"], input=text, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert re.findall(r"t = (!quant\.calibrated<.*>)\}", done.stdout) == calibrated


def test_cli_writes_each_output_kind(model_catalogue, tmp_path):
    model = model_catalogue.load("mlp-float")
    data = tmp_path / "data.npz"
    samples = _samples(model, 4)
    np.savez(data, **{k: np.concatenate([s[k] for s in samples]) for k in samples[0]})
    for output, extra in [("q.onnx", ["--form", "qcdq"]), ("q.mlir", []), ("c.mlir", ["--calibrated"])]:
        main([str(model_catalogue.path("mlp-float")), "--calibration", str(data), "-o", str(tmp_path / output), *extra])
    assert onnx.load(tmp_path / "q.onnx").graph.node
    assert "!quant.uniform" in (tmp_path / "q.mlir").read_text()
    assert "!quant.calibrated" in (tmp_path / "c.mlir").read_text()


def test_cli_bad_calibration_is_one_line(model_catalogue, tmp_path, capsys):
    np.savez(tmp_path / "data.npz", wrong=np.zeros(3, np.float32))
    with pytest.raises(SystemExit) as exit_:
        main([str(model_catalogue.path("mlp-float")), "--calibration", str(tmp_path / "data.npz"),
              "-o", str(tmp_path / "q.onnx")])
    assert exit_.value.code == 1
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and error.startswith("error: ") and "lacks inputs" in error


@pytest.mark.parametrize("form", ["qdq", "qop"])
def test_cli_runtime_onnxruntime_writes_an_exactly_equivalent_int8_model(model_catalogue, tmp_path, form):
    """`--runtime onnxruntime` (backends/onnx/onnxruntime_form.py): no uint8 tensor is left, and
    onnx's reference evaluator (the same float arithmetic on every CPU; it implements
    DequantizeLinear from opset 19, so both models are converted to 21) gives the written model the
    plain form's outputs bit for bit: the rewrite changes no dequantized value."""
    import onnx.version_converter
    from onnx.reference import ReferenceEvaluator

    name = "cnn_depthwise-float"
    model = model_catalogue.load(name)
    samples = _samples(model, 4)
    data = tmp_path / "data.npz"
    np.savez(data, **{k: np.concatenate([s[k] for s in samples]) for k in samples[0]})
    for runtime in ("reference", "onnxruntime"):
        main([str(model_catalogue.path(name)), "--calibration", str(data), "-o", str(tmp_path / f"{runtime}.onnx"),
              "--form", form, "--runtime", runtime])
    plain, rewritten = (onnx.load(tmp_path / f"{runtime}.onnx") for runtime in ("reference", "onnxruntime"))
    assert onnx.TensorProto.UINT8 in {t.data_type for t in plain.graph.initializer}
    assert onnx.TensorProto.UINT8 not in {t.data_type for t in rewritten.graph.initializer}
    inputs = random_inputs(model, 100)
    plain, rewritten = (onnx.version_converter.convert_version(m, 21) for m in (plain, rewritten))
    for got, want in zip(ReferenceEvaluator(rewritten).run(None, inputs), ReferenceEvaluator(plain).run(None, inputs),
                         strict=True):
        np.testing.assert_array_equal(got, want)
