"""BatchNormalization between a Conv / Gemm / MatMul and its output quantizer, as Brevitas keeps it
(QCDQ and QONNX forms, weights quantized per channel, gamma with negative entries), folded into
the contraction by `quant-to-integer` (passes/quant_to_integer/batch_norm.py). Oracles:
onnxruntime (ORT_DISABLE_ALL) for QCDQ, qonnx's executor for QONNX.

- Exactly representable parameters (power-of-two scales, var + eps = 1, gamma a signed power of
  two, mean and beta on the folded accumulator grid): the integer pipeline and RV32IM under qemu
  equal the oracle bit for bit.
- General parameters: every output lies within the documented bound. With v the oracle's float
  value before the output quantizer (the same model cut there) and e[c] = |a[c]| s_x s_w[c] / 2
  a bound of the bias rounding (docs/integer-ir.md: at most e[c] / 2^k, the bias added on a grid
  2^k times finer), the integer result lies in
  [qcast(v - e - t), qcast(v + e + t)], t covering the oracle's own float32 rounding; so it is
  within one output step of the oracle, and RV32IM under qemu equals bitfold-run bit for bit."""

from dataclasses import dataclass, replace

import numpy as np
import onnx
import pytest
from models.float_models import IR_VERSION
from models.runners import run_onnxruntime, run_qonnx
from onnx import TensorProto, helper, numpy_helper
from xdsl.utils.exceptions import PassFailedException

import bitfold
from bitfold.compile import compile_model
from bitfold.load import full_context, load_module
from bitfold.passes.pipelines import integer_stages

QONNX_DOMAIN = "qonnx.custom_op.general"
EPSILON_EXACT = 2.0**-10
EPSILON = 1e-5
ORACLE_RELATIVE_ERROR = 2.0**-18
"""t above, relative to max |v|: the oracle's float32 convolution and BN (a few roundings of
2^-24 each, summed over at most 48 products)"""


@dataclass(frozen=True)
class Fixture:
    """One contraction -> BatchNormalization -> Relu -> output quantizer model's parameters."""

    contraction: str  # "conv", "gemm" or "matmul"
    channels: int
    s_x: float
    s_w: np.ndarray
    s_y: float
    weights: np.ndarray  # int8 in [-127, 127], output channel first
    bias: np.ndarray | None
    gamma: np.ndarray
    beta: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    epsilon: float

    @property
    def input_shape(self) -> tuple[int, ...]:
        return (1, 3, 6, 6) if self.contraction == "conv" else (4, 16)

    @property
    def multiplier(self) -> np.ndarray:
        return self.gamma / np.sqrt(self.var.astype(np.float64) + self.epsilon)

    def rounding_bound(self) -> np.ndarray:
        """e[c] = |a[c]| s_x s_w[c] / 2: half a step of the folded accumulator."""
        return np.abs(self.multiplier) * self.s_x * self.s_w / 2


def _fixture(contraction: str, exact: bool, seed: int = 3, coarse: bool = False) -> Fixture:
    """`exact`: representable parameters; else random ones, with `coarse` scales making the
    accumulator's step S' about a third of an output step (so the bias rounding shows)."""
    rng = np.random.default_rng(seed)
    channels = 6
    fan_in = (3, 3, 3) if contraction == "conv" else (16,)
    weights = rng.integers(-127, 128, size=(channels, *fan_in)).astype(np.int8)
    if exact:
        s_x, s_y = 2.0**-4, 2.0**-2
        s_w = 2.0 ** -rng.integers(5, 8, channels)
        gamma = np.array([0.5, -1.0, 2.0, -0.25, 1.0, -2.0])
        var = np.full(channels, 1 - EPSILON_EXACT)
        step = np.abs(gamma) * s_x * s_w  # the folded accumulator's step S'[c]
        mean = rng.integers(-200, 200, channels) * s_x * s_w
        beta = rng.integers(-400, 400, channels) * step
        bias = rng.integers(-300, 300, channels) * s_x * s_w if contraction == "conv" else None
        epsilon = EPSILON_EXACT
    else:
        s_x, s_y = (0.213, 0.0517) if coarse else (0.0371, 0.0893)
        s_w = rng.uniform(0.05, 0.1, channels) if coarse else rng.uniform(0.002, 0.01, channels)
        gamma = rng.uniform(0.3, 1.7, channels) * np.array([1, -1, 1, -1, -1, 1])
        var = rng.uniform(0.05, 2.0, channels)
        mean = rng.normal(0, 0.5, channels)
        beta = rng.normal(0, 0.5, channels)
        bias = rng.normal(0, 0.3, channels) if contraction != "matmul" else None
        epsilon = EPSILON
    as32 = lambda a: None if a is None else np.asarray(a, np.float32)
    return Fixture(contraction, channels, float(np.float32(s_x)), as32(s_w).astype(np.float64), float(np.float32(s_y)),
                   weights, as32(bias), as32(gamma), as32(beta), as32(mean), as32(var), float(np.float32(epsilon)))


def _constant(name: str, value) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value), name)


def _contraction_node(fixture: Fixture, x: str, w: str) -> onnx.NodeProto:
    inputs = [x, w, *(["b"] if fixture.bias is not None else [])]
    if fixture.contraction == "conv":
        return helper.make_node("Conv", inputs, ["z"], pads=[1, 1, 1, 1])
    if fixture.contraction == "gemm":
        return helper.make_node("Gemm", inputs, ["z"], transB=1)
    return helper.make_node("MatMul", [x, w], ["z"])


def _weight_layout(fixture: Fixture, values: np.ndarray) -> np.ndarray:
    """Weights as the op reads them: Conv and Gemm(transB) channel first, MatMul (K, N)."""
    return values.T if fixture.contraction == "matmul" else values


def _finish(fixture: Fixture, nodes, initializers, output: str, qonnx: bool) -> onnx.ModelProto:
    output_shape = (1, fixture.channels, 6, 6) if fixture.contraction == "conv" else (4, fixture.channels)
    graph = helper.make_graph(
        nodes, f"{fixture.contraction}_bn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, fixture.input_shape)],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, output_shape)], initializers,
    )
    opsets = [helper.make_opsetid("", 13), *([helper.make_opsetid(QONNX_DOMAIN, 1)] if qonnx else [])]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = IR_VERSION
    if qonnx:  # qonnx's executor needs every intermediate shape; its InferShapes knows Quant
        from qonnx.core.modelwrapper import ModelWrapper
        from qonnx.transformation.infer_shapes import InferShapes

        model = ModelWrapper(model).transform(InferShapes()).model
        model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def _common(fixture: Fixture) -> tuple[list, list]:
    """BatchNormalization and Relu, and their parameters."""
    nodes = [
        helper.make_node("BatchNormalization", ["z", "gamma", "beta", "mean", "var"], ["n"], epsilon=fixture.epsilon),
        helper.make_node("Relu", ["n"], ["r"]),
    ]
    initializers = [_constant(name, getattr(fixture, name)) for name in ("gamma", "beta", "mean", "var")]
    if fixture.bias is not None:
        initializers.append(_constant("b", fixture.bias))
    return nodes, initializers


def qcdq_model(fixture: Fixture, cut: bool = False, weight_clip: int = 127) -> onnx.ModelProto:
    """Brevitas' QCDQ form: int8 weight constant -> Clip(-127, 127) -> DequantizeLinear (axis 0,
    or 1 for MatMul's (K, N)); the output QuantizeLinear (uint8) -> DequantizeLinear. `cut`: the
    output is the float value before the output quantizer; `weight_clip` 128: Clip(-128, 127),
    the full int8 range."""
    axis = 1 if fixture.contraction == "matmul" else 0
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        helper.make_node("Clip", ["w", "wlo", "whi"], ["wc"]),
        helper.make_node("DequantizeLinear", ["wc", "ws", "wz"], ["wd"], axis=axis),
        _contraction_node(fixture, "xd", "wd"),
    ]
    tail, initializers = _common(fixture)
    nodes += tail
    initializers += [
        _constant("xs", np.float32(fixture.s_x)), _constant("xz", np.int8(0)),
        _constant("w", _weight_layout(fixture, fixture.weights)), _constant("wlo", np.int8(-weight_clip)),
        _constant("whi", np.int8(127)), _constant("ws", fixture.s_w.astype(np.float32)),
        _constant("wz", np.zeros(fixture.channels, np.int8)),
    ]
    if cut:
        return _finish(fixture, nodes, initializers, "r", qonnx=False)
    nodes += [helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["yq"]),
              helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])]
    initializers += [_constant("ys", np.float32(fixture.s_y)), _constant("yz", np.uint8(0))]
    return _finish(fixture, nodes, initializers, "y", qonnx=False)


def _quant(inputs, output, signed: int, narrow: int) -> onnx.NodeProto:
    return helper.make_node("Quant", inputs, [output], domain=QONNX_DOMAIN, signed=signed, narrow=narrow,
                            rounding_mode="ROUND")


def qonnx_model(fixture: Fixture) -> onnx.ModelProto:
    """Brevitas' QONNX form: Quant on the input (8-bit signed), on the float weights (8-bit
    narrow, scale per output channel) and on the Relu's output (8-bit unsigned)."""
    channel_shape = (1, fixture.channels) if fixture.contraction == "matmul" else (fixture.channels, 1, *(1,) * (
        fixture.weights.ndim - 2))
    float_weights = fixture.weights.astype(np.float32) * fixture.s_w.astype(np.float32).reshape(fixture.channels, *(
        1,) * (fixture.weights.ndim - 1))
    nodes = [
        _quant(["x", "xs", "zero", "bits"], "xd", signed=1, narrow=0),
        _quant(["w", "ws", "zero", "bits"], "wd", signed=1, narrow=1),
        _contraction_node(fixture, "xd", "wd"),
    ]
    tail, initializers = _common(fixture)
    nodes += [*tail, _quant(["r", "ys", "zero", "bits"], "y", signed=0, narrow=0)]
    initializers += [
        _constant("xs", np.float32(fixture.s_x)), _constant("zero", np.float32(0)), _constant("bits", np.float32(8)),
        _constant("w", _weight_layout(fixture, float_weights)),
        _constant("ws", fixture.s_w.astype(np.float32).reshape(channel_shape)), _constant("ys", np.float32(fixture.s_y)),
    ]
    return _finish(fixture, nodes, initializers, "y", qonnx=True)


def _input(fixture: Fixture, seed: int) -> dict[str, np.ndarray]:
    return {"x": (np.random.default_rng(seed).standard_normal(fixture.input_shape) * 2).astype(np.float32)}


def _integer_output(path, inputs, integer_only: bool = False) -> np.ndarray:
    module = load_module(str(path))
    for stage in integer_stages(integer_io=False, integer_only=integer_only):
        stage.apply(full_context(), module)
    module.verify()
    assert "onnx.BatchNormalization" not in str(module)
    (got,) = bitfold.run(module, inputs).values()
    return got


def _steps(values: np.ndarray, s_y: float) -> np.ndarray:
    """The uint8 output quantizer's integers of `values` (half to even, clamped)."""
    return np.clip(np.round(values.astype(np.float64) / s_y), 0, 255)


CONTRACTIONS = ["conv", "gemm", "matmul"]


@pytest.mark.parametrize("contraction", CONTRACTIONS)
@pytest.mark.parametrize("form", ["qcdq", "qonnx"])
def test_representable_batch_norm_is_bit_exact(contraction, form, tmp_path):
    fixture = _fixture(contraction, exact=True)
    path = tmp_path / f"{form}.onnx"
    onnx.save(qcdq_model(fixture) if form == "qcdq" else qonnx_model(fixture), path)
    for seed in (0, 1):
        inputs = _input(fixture, seed)
        expected = (run_onnxruntime if form == "qcdq" else run_qonnx)(path, inputs)["y"]
        assert np.any(expected != 0)
        np.testing.assert_array_equal(_integer_output(path, inputs), expected)


@pytest.mark.parametrize("contraction", CONTRACTIONS)
@pytest.mark.parametrize("form", ["qcdq", "qonnx"])
def test_dead_channel_at_a_clamped_scale_is_exact(contraction, form, tmp_path):
    """Brevitas exports a channel whose weights are all zero at a scale clamped to 1e-10 (as in the
    ESPCN models of the qonnx wheel). Its output is the constant r[c] = a[c] (b[c] - mean[c]) +
    beta[c], here 3 output steps, which on the accumulator's grid |a[c]| s_x 1e-10 would need an
    integer beyond i32; on its own grid |r[c]| (contraction.constant_channel_scales) it is exact:
    the contraction stays integer (integer-only) and bit-exact to the oracle."""
    fixture = _fixture(contraction, exact=True)
    dead = 2  # gamma 2.0: Relu passes r
    weights, s_w, beta, mean = fixture.weights.copy(), fixture.s_w.copy(), fixture.beta.copy(), fixture.mean.copy()
    weights[dead], s_w[dead], beta[dead], mean[dead] = 0, float(np.float32(1e-10)), 3 * fixture.s_y, 0.0
    bias = None if fixture.bias is None else fixture.bias.copy()
    if bias is not None:
        bias[dead] = 0
    fixture = replace(fixture, weights=weights, s_w=s_w, beta=beta, mean=mean, bias=bias)
    path = tmp_path / f"{form}.onnx"
    onnx.save(qcdq_model(fixture) if form == "qcdq" else qonnx_model(fixture), path)
    inputs = _input(fixture, 0)
    expected = (run_onnxruntime if form == "qcdq" else run_qonnx)(path, inputs)["y"]
    channel_axis = 1
    assert np.all(np.take(expected, dead, axis=channel_axis) == 3 * np.float32(fixture.s_y))
    np.testing.assert_array_equal(_integer_output(path, inputs, integer_only=True), expected)


@pytest.mark.parametrize("contraction", CONTRACTIONS)
@pytest.mark.parametrize("form", ["qcdq", "qonnx"])
def test_live_channel_at_a_tiny_scale_becomes_a_float_island(contraction, form, tmp_path):
    """A channel with nonzero weights at a scale of 1e-30 (a clamped scale left on live weights):
    r[c] on the accumulator's grid |a[c]| s_x 1e-30 is an integer beyond int64, which no i32
    accumulator holds (`operands.round_to_grid` saturates, the bound check refuses): the
    contraction stays a float island, no exception; within the float-island bound (1 output
    step) of the oracle, and `integer-only` refuses it (the accumulator bound)."""
    fixture = _fixture(contraction, exact=True)
    tiny = 2
    s_w, beta = fixture.s_w.copy(), fixture.beta.copy()
    s_w[tiny], beta[tiny] = float(np.float32(1e-30)), 3 * fixture.s_y
    fixture = replace(fixture, s_w=s_w, beta=beta)
    assert np.any(fixture.weights[tiny] != 0)
    path = tmp_path / f"{form}.onnx"
    onnx.save(qcdq_model(fixture) if form == "qcdq" else qonnx_model(fixture), path)
    inputs = _input(fixture, 0)
    expected = (run_onnxruntime if form == "qcdq" else run_qonnx)(path, inputs)["y"]
    steps = np.abs(_integer_output(path, inputs).astype(np.float64) - expected) / fixture.s_y
    assert steps.max() <= 1 + 1e-6
    with pytest.raises(PassFailedException, match="beyond an i32 accumulator"):
        _integer_output(path, inputs, integer_only=True)


@pytest.mark.parametrize("coarse", [False, True], ids=["fine", "coarse"])
@pytest.mark.parametrize("contraction", CONTRACTIONS)
def test_bias_rounding_stays_within_the_documented_bound(contraction, coarse, tmp_path):
    fixture = _fixture(contraction, exact=False, coarse=coarse)
    path, cut_path = tmp_path / "model.onnx", tmp_path / "cut.onnx"
    onnx.save(qcdq_model(fixture), path)
    onnx.save(qcdq_model(fixture, cut=True), cut_path)
    channel_shape = (-1, 1, 1) if contraction == "conv" else (-1,)
    bound = fixture.rounding_bound().reshape(channel_shape)
    differing = compared = 0
    for seed in range(4):
        inputs = _input(fixture, seed)
        before_quantizer = run_onnxruntime(cut_path, inputs)["r"].astype(np.float64)
        oracle = run_onnxruntime(path, inputs)["y"]
        slack = bound + ORACLE_RELATIVE_ERROR * np.abs(before_quantizer).max()
        got = _steps(_integer_output(path, inputs), fixture.s_y)
        low, high = _steps(before_quantizer - slack, fixture.s_y), _steps(before_quantizer + slack, fixture.s_y)
        assert np.all(low <= got) and np.all(got <= high)
        difference = np.abs(got - _steps(oracle, fixture.s_y))
        assert difference.max() <= (np.ceil(2 * bound.max() / fixture.s_y) if coarse else 1)
        differing += int(np.count_nonzero(difference))
        compared += difference.size
    print(f"\n{contraction} + BatchNormalization ({'coarse' if coarse else 'fine'} accumulator): {differing} of "
          f"{compared} outputs differ from onnxruntime, bound e / s_y = {bound.max() / fixture.s_y:.3f} steps")


@pytest.mark.parametrize("exact", [True, False], ids=["representable", "general"])
def test_rv32im_equals_bitfold_run_and_follows_the_oracle(exact, tmp_path):
    fixture = _fixture("conv", exact=exact)
    path = tmp_path / "model.onnx"
    onnx.save(qcdq_model(fixture), path)
    inputs = _input(fixture, 5)
    compiled = compile_model(load_module(str(path)), "rv32im")
    stored = compiled.quantize(inputs)
    got = compiled.run_qemu(stored, tmp_path / "run")
    np.testing.assert_array_equal(got[0], compiled.run_reference(stored)[0])
    oracle = _steps(run_onnxruntime(path, inputs)["y"], fixture.s_y)
    difference = np.abs(_steps(compiled.dequantize(got)[0], fixture.s_y) - oracle)
    assert difference.max() <= (0 if exact else 1)


def batch_norm_on_input(exact: bool, cut: bool = False) -> tuple[onnx.ModelProto, np.ndarray]:
    """QCDQ without a contraction: x -> Q (int8, zp 3) -> DQ -> BatchNormalization -> Relu ->
    Q (uint8) -> DQ; and e[c] = |a[c]| s_x / 2^17, the bound of `BatchNormToInteger`'s offset
    rounding (k = 16: an 8-bit (q - zp) << 16 fits i32). `cut`: the output is the Relu's."""
    rng = np.random.default_rng(11)
    channels = 6
    if exact:
        s_x, s_y, epsilon = 2.0**-3, 2.0**-2, EPSILON_EXACT
        gamma = np.array([0.5, -1.0, 2.0, -0.25, 1.0, -2.0])
        var = np.full(channels, 1 - EPSILON_EXACT)
        mean = rng.integers(-20, 20, channels) * s_x
        beta = rng.integers(-40, 40, channels) * np.abs(gamma) * s_x / 4
    else:
        s_x, s_y, epsilon = 0.0417, 0.0291, EPSILON
        gamma = rng.uniform(0.3, 1.7, channels) * np.array([1, -1, 1, -1, -1, 1])
        var, mean, beta = rng.uniform(0.05, 2.0, channels), rng.normal(0, 0.5, channels), rng.normal(0, 0.5, channels)
    gamma, beta, mean, var = (np.asarray(a, np.float32) for a in (gamma, beta, mean, var))
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["z"]),
        helper.make_node("BatchNormalization", ["z", "gamma", "beta", "mean", "var"], ["n"], epsilon=epsilon),
        helper.make_node("Relu", ["n"], ["r"]),
    ]
    initializers = [_constant(name, value) for name, value in
                    (("gamma", gamma), ("beta", beta), ("mean", mean), ("var", var),
                     ("xs", np.float32(s_x)), ("xz", np.int8(3)), ("ys", np.float32(s_y)), ("yz", np.uint8(0)))]
    if not cut:
        nodes += [helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["yq"]),
                  helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"])]
    shape = (1, channels, 5, 5)
    graph = helper.make_graph(nodes, "bn_on_input", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("r" if cut else "y", TensorProto.FLOAT, shape)],
                              initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    multiplier = gamma / np.sqrt(var.astype(np.float64) + np.float32(epsilon))
    return model, np.abs(multiplier) * np.float32(s_x) / 2**17


@pytest.mark.parametrize("exact", [True, False], ids=["representable", "general"])
def test_batch_norm_on_a_dequantized_input(exact, tmp_path):
    model, bound = batch_norm_on_input(exact)
    path, cut_path = tmp_path / "model.onnx", tmp_path / "cut.onnx"
    onnx.save(model, path)
    onnx.save(batch_norm_on_input(exact, cut=True)[0], cut_path)
    s_y = float(numpy_helper.to_array(next(t for t in model.graph.initializer if t.name == "ys")))
    bound = bound.reshape(-1, 1, 1)
    for seed in range(3):
        inputs = {"x": (np.random.default_rng(seed).standard_normal((1, 6, 5, 5)) * 2).astype(np.float32)}
        got = _integer_output(path, inputs)
        oracle = run_onnxruntime(path, inputs)["y"]
        if exact:
            np.testing.assert_array_equal(got, oracle)
            continue
        before_quantizer = run_onnxruntime(cut_path, inputs)["r"].astype(np.float64)
        slack = bound + ORACLE_RELATIVE_ERROR * np.abs(before_quantizer).max()
        steps = _steps(got, s_y)
        assert np.all(_steps(before_quantizer - slack, s_y) <= steps)
        assert np.all(steps <= _steps(before_quantizer + slack, s_y))
        assert np.abs(steps - _steps(oracle, s_y)).max() <= 1
    compiled = compile_model(load_module(str(path)), "rv32im")
    stored = compiled.quantize(inputs)
    np.testing.assert_array_equal(compiled.run_qemu(stored, tmp_path / "run")[0], compiled.run_reference(stored)[0])


def test_negated_channel_with_full_range_weights(tmp_path):
    """A channel with a[c] < 0 whose int8 weights include -128: negated, 128 needs a wider
    constant (i16), still exact."""
    fixture = _fixture("conv", exact=True)
    fixture.weights[1, 0, 0, 0] = -128  # channel 1 has gamma -1
    path = tmp_path / "model.onnx"
    onnx.save(qcdq_model(fixture, weight_clip=128), path)
    inputs = _input(fixture, 2)
    np.testing.assert_array_equal(_integer_output(path, inputs), run_onnxruntime(path, inputs)["y"])
