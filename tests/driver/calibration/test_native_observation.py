"""Native calibration (`bitfold-quantize --native`) against bitfold's interpreter (the oracle): on
every calibration fixture (the float catalogue networks, the MLPerf Tiny architectures but MobileNetV1, and the
networks `test_quantize` quantizes) the values each quantization point takes in the float model
compiled for the host equal the interpreter's float64-accumulated values within `FLOAT32_BOUND`
of each point's largest magnitude (binary32 per op in the IR's order, docs/float-islands.md:
float32 sums compounded over the layers, the bound the batched observation keeps); the extremes
kept for MinMax are exactly the native values' min and max; and the quantized model has the
interpreter path's zero points and scales within the same relative bound."""

import numpy as np
import onnx
import pytest
from conftest import require_tools
from models.float_models import FLOAT_BUILDERS
from models.mlperf_tiny.architectures import BUILDERS, random_input
from models.runners import random_inputs
from onnx import TensorProto, helper

from bitfold.dialects.quant import QuantizeCastOp, element_type
from bitfold.frontends.onnx import import_model
from bitfold.quantize import QuantizeOptions, observe_points, quantize_model
from bitfold.quantize_main import main

LLVM_TOOLS = ("mlir-opt-22", "mlir-translate-22", "clang-22")
SAMPLES = 5
FLOAT32_BOUND = 2**-17
QUANTIZED_NETWORKS = ["mlp-float", "cnn_depthwise-float", "residual-float", "pooling-float"]


def _compare(module, samples) -> None:
    require_tools(*LLVM_TOOLS)
    oracle = observe_points(module, samples, exact=True)
    native = observe_points(module, samples, native=True)
    extremes = observe_points(module, samples, extremes_only=True, native=True)
    assert len(oracle) == len(native) == len(extremes) > 0
    for expected, values, (low, high) in zip(oracle, native, extremes, strict=True):
        assert values.shape == expected.shape
        np.testing.assert_allclose(values, expected, rtol=0, atol=FLOAT32_BOUND * np.abs(expected).max())
        assert (low, high) == (values.min(), values.max())


@pytest.mark.parametrize("name", sorted(FLOAT_BUILDERS))
def test_catalogue_network_observed_natively_like_the_interpreter(name, tmp_path):
    path = tmp_path / f"{name}.onnx"
    onnx.save(FLOAT_BUILDERS[name](), path)
    rng = np.random.default_rng(0)
    shape = [d.dim_value for d in onnx.load(path).graph.input[0].type.tensor_type.shape.dim]
    _compare(import_model(path), [{"input": rng.standard_normal(shape).astype(np.float32)} for _ in range(SAMPLES)])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(BUILDERS) - {"mobilenet_v1"}))  # its 20 s host compile: the suite's time
def test_mlperf_tiny_network_observed_natively_like_the_interpreter(name, tmp_path):
    path = tmp_path / f"{name}.onnx"
    onnx.save(BUILDERS[name](), path)
    _compare(import_model(path), [{"input": random_input(name, seed)} for seed in range(SAMPLES)])


def _quantizers(module) -> list[tuple[np.ndarray, np.ndarray]]:
    types = [element_type(op.result.type) for op in module.walk() if isinstance(op, QuantizeCastOp)]
    return [(np.array(t.scale_values()), np.array(t.zero_point_values())) for t in types]


@pytest.mark.parametrize("name", QUANTIZED_NETWORKS)
def test_quantized_model_equals_the_interpreter_paths(model_catalogue, name):
    require_tools(*LLVM_TOOLS)
    samples = [random_inputs(model_catalogue.load(name), seed) for seed in range(8)]
    options = QuantizeOptions(per_channel=True)
    interpreted, native = (import_model(model_catalogue.path(name)) for _ in range(2))
    quantize_model(interpreted, samples, options)
    quantize_model(native, samples, options, native=True)
    expected, got = _quantizers(interpreted), _quantizers(native)
    assert len(expected) == len(got) > 0
    for (want_scale, want_zero), (scale, zero) in zip(expected, got, strict=True):
        np.testing.assert_allclose(scale, want_scale, rtol=FLOAT32_BOUND)
        assert np.abs(zero.astype(np.int64) - want_zero.astype(np.int64)).max() <= 1


def test_cli_native_writes_the_model(model_catalogue, tmp_path):
    require_tools(*LLVM_TOOLS)
    name = "mlp-float"
    data = tmp_path / "calibration.npz"
    samples = [random_inputs(model_catalogue.load(name), seed) for seed in range(4)]
    np.savez(data, **{key: np.concatenate([s[key] for s in samples]) for key in samples[0]})
    main([str(model_catalogue.path(name)), "--calibration", str(data), "--native", "-o", str(tmp_path / "q.onnx")])
    onnx.checker.check_model(onnx.load(tmp_path / "q.onnx"))


def test_cli_native_without_samples_is_one_line(model_catalogue, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([str(model_catalogue.path("mlp-float")), "--data-free", "--native", "-o", str(tmp_path / "q.onnx")])
    assert exit_info.value.code == 1
    assert capsys.readouterr().err.strip().count("\n") == 0


def test_cli_native_op_without_float_lowering_is_one_line(tmp_path, capsys):
    """Round has a float interpretation but no float lowering: the native compile names it."""
    require_tools(*LLVM_TOOLS)
    value = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 4]) for name in ("input", "y")]
    graph = helper.make_graph([helper.make_node("Round", ["input"], ["y"], name="round")], "g", value[:1], value[1:])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8), tmp_path / "m.onnx")
    np.savez(tmp_path / "data.npz", input=np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4))
    with pytest.raises(SystemExit) as exit_info:
        main([str(tmp_path / "m.onnx"), "--calibration", str(tmp_path / "data.npz"), "--native",
              "-o", str(tmp_path / "q.onnx")])
    assert exit_info.value.code == 1
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "'onnx.Round' (round): no float lowering" in error
