"""Data-free activation statistics against oracles: the clipped-normal moments against numpy's
sampling, and the statistics propagated from BatchNormalization through a graph against the
empirical means, deviations and extremes onnxruntime computes on many Gaussian inputs consistent
with the BatchNormalization statistics."""

import numpy as np
import onnx
import pytest
from models.runners import onnxruntime_session
from onnx import TensorProto, helper, numpy_helper

from bitfold.calibration.activation_statistics import clipped_normal_moments
from bitfold.calibration.data_free import data_free_statistics
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.frontends.onnx import import_model
from bitfold.interpreter import entry_function

SAMPLES = 400_000


@pytest.mark.parametrize(("mean", "std", "low", "high"), [
    (0.3, 1.2, 0.0, np.inf),  # Relu
    (-1.0, 0.5, 0.0, np.inf),  # Relu of a mostly negative input
    (2.0, 3.0, 0.0, 6.0),  # Relu6
    (0.1, 0.4, -0.25, 0.5),
])
def test_clipped_normal_moments_match_sampling(mean, std, low, high):
    samples = np.clip(np.random.default_rng(0).normal(mean, std, SAMPLES), low, high)
    got_mean, got_variance = clipped_normal_moments(np.array([mean]), np.array([std]), low, high)
    standard_error = samples.std() / np.sqrt(SAMPLES)
    assert abs(got_mean[0] - samples.mean()) < 5 * standard_error
    assert got_variance[0] == pytest.approx(samples.var(), rel=0.01)


CHANNELS, SIZE, BATCH = 4, 8, 512
EPSILON = 1e-3


def _batch_norm(name: str, x: str, rng: np.random.Generator, initializers: list) -> tuple[onnx.NodeProto, dict]:
    stats = {"gamma": 1 + 0.3 * rng.standard_normal(CHANNELS), "beta": 0.5 * rng.standard_normal(CHANNELS),
             "mean": rng.standard_normal(CHANNELS), "var": rng.uniform(0.5, 2.0, CHANNELS)}
    initializers += [numpy_helper.from_array(v.astype(np.float32), f"{name}.{k}") for k, v in stats.items()]
    node = helper.make_node("BatchNormalization", [x, *(f"{name}.{k}" for k in stats)], [name], name=name,
                            epsilon=EPSILON)
    return node, stats


def _conv(name: str, x: str, rng: np.random.Generator, initializers: list) -> onnx.NodeProto:
    initializers += [numpy_helper.from_array((0.3 * rng.standard_normal((CHANNELS, CHANNELS, 3, 3))).astype(np.float32),
                                             f"{name}.w"),
                     numpy_helper.from_array((0.1 * rng.standard_normal(CHANNELS)).astype(np.float32), f"{name}.b")]
    return helper.make_node("Conv", [x, f"{name}.w", f"{name}.b"], [name], name=name, kernel_shape=[3, 3])


def _network() -> tuple[onnx.ModelProto, dict]:
    """Two independent inputs: x1 -> BN -> Relu -> Conv (no BN); x2 -> Conv -> BN (folded) -> Clip(0, 1.5);
    Add, Relu, MaxPool, GlobalAveragePool, Flatten, Gemm, and a Concat of the two branches; every
    intermediate an output."""
    rng = np.random.default_rng(3)
    initializers: list = []
    norm1, stats1 = _batch_norm("bn1", "x1", rng, initializers)
    conv2 = _conv("conv2", "x2", rng, initializers)
    norm2, _ = _batch_norm("bn2", "conv2", rng, initializers)
    initializers += [numpy_helper.from_array(np.float32(0.0), "zero"), numpy_helper.from_array(np.float32(1.5), "top"),
                     numpy_helper.from_array((0.5 * rng.standard_normal((CHANNELS, 3))).astype(np.float32), "fc.w"),
                     numpy_helper.from_array(np.float32([0.1, -0.2, 0.3]), "fc.b")]
    nodes = [norm1, helper.make_node("Relu", ["bn1"], ["relu1"], name="relu1"),
             _conv("conv1", "relu1", rng, initializers), conv2, norm2,
             helper.make_node("Clip", ["bn2", "zero", "top"], ["clip2"], name="clip2"),
             helper.make_node("Add", ["conv1", "clip2"], ["add"], name="add"),
             helper.make_node("Concat", ["conv1", "clip2"], ["concat"], name="concat", axis=1),
             helper.make_node("Relu", ["add"], ["relu"], name="relu"),
             helper.make_node("MaxPool", ["relu"], ["maxpool"], name="maxpool", kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("GlobalAveragePool", ["maxpool"], ["pool"], name="pool"),
             helper.make_node("Flatten", ["pool"], ["flatten"], name="flatten"),
             helper.make_node("Gemm", ["flatten", "fc.w", "fc.b"], ["fc"], name="fc")]
    names = ["relu1", "conv1", "clip2", "add", "concat", "relu", "maxpool", "pool", "flatten", "fc"]
    inputs = [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, CHANNELS, SIZE, SIZE]) for x in ("x1", "x2")]
    model = helper.make_model(helper.make_graph(nodes, "statistics", inputs, [], initializers),
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(model, strict_mode=True).graph.value_info}
    model.graph.output.extend(inferred[n] for n in names)
    return model, stats1


def _empirical(model: onnx.ModelProto, stats1: dict) -> dict[str, np.ndarray]:
    """Each output over BATCH inputs: x1 per channel N(mean, var) of bn1 (so bn1's output has the
    statistics it records), x2 standard normal (conv2 -> bn2: the fold's statistics follow what
    conv2 computes only through bn2's own parameters, so x2 is fed through the fitted graph)."""
    rng = np.random.default_rng(4)
    shape = (BATCH, CHANNELS, SIZE, SIZE)
    spread = (1, CHANNELS, 1, 1)
    x1 = rng.standard_normal(shape) * np.sqrt(stats1["var"]).reshape(spread) + stats1["mean"].reshape(spread)
    x2 = rng.standard_normal(shape)
    session = onnxruntime_session(model)
    results = [session.run(None, {"x1": x1[i:i + 1].astype(np.float32), "x2": x2[i:i + 1].astype(np.float32)})
               for i in range(BATCH)]
    names = [o.name for o in session.get_outputs()]
    return {name: np.concatenate([r[k] for r in results]) for k, name in enumerate(names)}


def _fitted(model: onnx.ModelProto) -> onnx.ModelProto:
    """bn2's statistics made those conv2 computes on standard normal x2 (the variance of a Conv of
    independent unit inputs is the sum of its squared weights, its mean the bias)."""
    initializers = {t.name: t for t in model.graph.initializer}
    weights = numpy_helper.to_array(initializers["conv2.w"]).astype(np.float64)
    bias = numpy_helper.to_array(initializers["conv2.b"])
    for name, values in (("bn2.mean", bias), ("bn2.var", (weights**2).sum(axis=(1, 2, 3)))):
        initializers[name].CopyFrom(numpy_helper.from_array(values.astype(np.float32), name))
    return model


@pytest.fixture(scope="module")
def propagated(tmp_path_factory):
    model, stats1 = _network()
    model = _fitted(model)
    path = tmp_path_factory.mktemp("statistics") / "statistics.onnx"
    onnx.save(model, path)
    function = entry_function(import_model(path))
    statistics = data_free_statistics(function, input_range=None)
    by_node = {op.node_name: statistics.get(op.results[0]) for op in function.body.walk()
               if isinstance(op, OnnxOp) and op.results}
    return by_node, _empirical(model, stats1)


def _channel_moments(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    axes = (0, *range(2, values.ndim))
    return values.mean(axis=axes), values.var(axis=axes)


@pytest.mark.parametrize("name", ["relu1", "conv1", "clip2", "add", "concat", "relu"])
def test_propagated_moments_match_onnxruntime(propagated, name):
    """Exact rules (clipped normal of a normal, Conv of independent inputs, Add of independent
    operands, the clipped normal of that sum, taken as normal): within sampling error."""
    statistics, empirical = propagated
    mean, variance = _channel_moments(empirical[name])
    np.testing.assert_allclose(statistics[name].mean, mean, atol=0.03 * np.sqrt(variance.max()))
    np.testing.assert_allclose(statistics[name].variance, variance, rtol=0.08)


@pytest.mark.parametrize("name", ["relu1", "conv1", "clip2", "add", "concat", "relu", "maxpool", "pool", "flatten",
                                  "fc"])
def test_propagated_ranges_hold_every_value(propagated, name):
    statistics, empirical = propagated
    axes = (0, *range(2, empirical[name].ndim))
    assert np.all(empirical[name].min(axis=axes) >= statistics[name].low - 1e-6)
    assert np.all(empirical[name].max(axis=axes) <= statistics[name].high + 1e-6)


def test_average_keeps_the_mean_and_bounds_the_variance(propagated):
    """GlobalAveragePool: the mean is its input's (MaxPool's, itself taken as its input's: the
    empirical one is at least that), the variance at most its input's."""
    statistics, empirical = propagated
    mean, variance = _channel_moments(empirical["pool"])
    input_mean, _ = _channel_moments(empirical["maxpool"])
    np.testing.assert_allclose(mean, input_mean, rtol=1e-5)
    assert np.all(statistics["pool"].mean <= mean + 1e-3)
    assert np.all(variance <= statistics["pool"].variance)
