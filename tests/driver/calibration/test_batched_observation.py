"""Batched calibration against the per-sample interpreter (the oracle): on every calibration fixture
(the float catalogue networks and the MLPerf Tiny architectures) the values each quantization point
takes over a chunk of samples equal those of one interpreter run a sample (within float32's last
bit: float64 matrix products summed in another order); the fast observation (batched, float32
accumulation) is within `FLOAT32_BOUND` of each point's largest magnitude (docs/calibration.md:
float32 sums compounded over the layers; at most 7 float32 ulps measured on these fixtures), and
the extremes kept for MinMax are exactly its min and max; a model that does not batch is run a
sample at a time."""

import numpy as np
import onnx
import pytest
from models.float_models import FLOAT_BUILDERS
from models.mlperf_tiny.architectures import BUILDERS, random_input
from onnx import TensorProto, helper, numpy_helper

from bitfold.calibration.batched import batched_module
from bitfold.frontends.onnx import import_model
from bitfold.quantize import observe_points

SAMPLES = 5
FLOAT32_BOUND = 2**-17


def _compare(module, samples) -> None:
    oracle = observe_points(module, samples, batch=False, exact=True)
    batched = observe_points(module, samples, batch=True, exact=True)
    fast = observe_points(module, samples)
    extremes = observe_points(module, samples, extremes_only=True)
    assert len(oracle) == len(batched) == len(fast) == len(extremes) > 0
    for expected, values, fast_values, (low, high) in zip(oracle, batched, fast, extremes, strict=True):
        np.testing.assert_allclose(values, expected, rtol=2**-23, atol=1e-30)
        np.testing.assert_allclose(fast_values, expected, rtol=0, atol=FLOAT32_BOUND * np.abs(expected).max())
        assert (low, high) == (fast_values.min(), fast_values.max())


@pytest.mark.parametrize("name", sorted(FLOAT_BUILDERS))
def test_catalogue_network_batches_like_the_interpreter(name, tmp_path):
    path = tmp_path / f"{name}.onnx"
    onnx.save(FLOAT_BUILDERS[name](), path)
    module = import_model(path)
    assert batched_module(module, SAMPLES) is not None
    rng = np.random.default_rng(0)
    shape = [d.dim_value for d in onnx.load(path).graph.input[0].type.tensor_type.shape.dim]
    samples = [{"input": rng.standard_normal(shape).astype(np.float32)} for _ in range(SAMPLES)]
    _compare(module, samples)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_mlperf_tiny_network_batches_like_the_interpreter(name, tmp_path):
    path = tmp_path / f"{name}.onnx"
    onnx.save(BUILDERS[name](), path)
    _compare(import_model(path), [{"input": random_input(name, seed)} for seed in range(SAMPLES)])


def _graph_model(nodes, initializers, output_shape) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 2, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, output_shape)], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def test_an_op_mixing_samples_is_refused_before_running(tmp_path):
    """Softmax over axis 0 keeps the shape but would mix the samples: no batched copy."""
    model = _graph_model([helper.make_node("Softmax", ["input"], ["y"], axis=0)], [], [1, 2, 2])
    onnx.save(model, tmp_path / "softmax.onnx")
    module = import_model(tmp_path / "softmax.onnx")
    assert batched_module(module, 3) is None
    samples = [{"input": np.full((1, 2, 2), float(i), np.float32)} for i in range(3)]
    values = observe_points(module, samples)
    np.testing.assert_array_equal(values[-1], np.ones(12))


def test_a_reshape_that_drops_the_batch_runs_a_sample_at_a_time(tmp_path):
    """Reshape to [1, -1] cannot follow the batch: the batched run fails its shape check, and the
    per-sample runs give the values."""
    shape = numpy_helper.from_array(np.array([1, -1], np.int64), "shape")
    model = _graph_model([helper.make_node("Reshape", ["input", "shape"], ["r"]),
                          helper.make_node("Relu", ["r"], ["y"])], [shape], [1, 4])
    onnx.save(model, tmp_path / "reshape.onnx")
    module = import_model(tmp_path / "reshape.onnx")
    samples = [{"input": np.arange(4, dtype=np.float32).reshape(1, 2, 2) - 10 * i} for i in range(3)]
    values = observe_points(module, samples)
    expected = np.concatenate([s["input"].ravel() for s in samples])
    np.testing.assert_array_equal(values[-1], np.maximum(expected, 0))


def test_a_float64_model_keeps_float64_accumulation(tmp_path):
    """float32 accumulation would round a float64 model's sums: its fast observation is the exact one."""
    weights = numpy_helper.from_array(np.random.default_rng(1).standard_normal((2, 3)), "w")
    graph = helper.make_graph([helper.make_node("MatMul", ["input", "w"], ["y"])], "g",
                              [helper.make_tensor_value_info("input", TensorProto.DOUBLE, [1, 2, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [1, 2, 3])], [weights])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    onnx.save(model, tmp_path / "f64.onnx")
    module = import_model(tmp_path / "f64.onnx")
    samples = [{"input": np.random.default_rng(i).standard_normal((1, 2, 2)) / 3} for i in range(3)]
    fast, exact = observe_points(module, samples), observe_points(module, samples, exact=True)
    assert len(fast) == len(exact) > 0
    for a, b in zip(fast, exact, strict=True):
        np.testing.assert_array_equal(a, b)
