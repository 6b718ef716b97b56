"""Blocked (sub-channel) weights in Conv / Gemm / MatMul on the integer path
(`passes/quant_to_integer/blocked.py`):

- a MatMul whose int4 weights onnxruntime's `MatMulNBitsQuantizer` wrote as a blocked
  DequantizeLinear (QDQ format, asymmetric uint4, blocks of 16 along K): the block scales
  share no common grid, so the blocks are requantized to a fine grid: the integer IR within
  one output step of onnxruntime (ORT_DISABLE_ALL) and of bitfold-run;
- hand-built QDQ Gemm and Conv (int4 / int8 weights blocked along the reduction axis, scales
  small integer multiples of 2^-9, an int32 bias on the common grid): the exact form, whose
  integer IR is bit-exact to the exact rational result computed here from the definition
  (per-block integer sums, Fractions), and within one output step of onnxruntime;
- the same MatMul with a float result: the requantized blocks' sum within the documented bound
  of the exact value;
- rv32im under qemu bit-exact to bitfold-run on the integer IR, for all three (rv64im too
  for the MatMulNBits model)."""

from fractions import Fraction

import numpy as np
import onnx
import pytest
from models.float_models import IR_VERSION
from onnx import TensorProto, helper, numpy_helper
from test_table_activations import check_on_qemu, integer_module, one_input_model, onnxruntime_outputs

import bitfold
from bitfold.dialects.quant import element_type
from bitfold.load import load_module

X_SCALE, X_ZERO_POINT = 0.05, 3
Y_SCALE, Y_ZERO_POINT = 0.25, -2


def qdq_model(
    compute: onnx.NodeProto, x_shape, y_shape, extra_nodes=(), initializers=(), quantized_output: bool = True
) -> onnx.ModelProto:
    """x -> Q/DQ (int8, X_SCALE, X_ZERO_POINT) -> `compute` (result "m") [-> Q/DQ (int8, Y_SCALE,
    Y_ZERO_POINT)] -> y (or m)."""
    output = [
        helper.make_node("QuantizeLinear", ["m", "ys", "yz"], ["mq"], name="m_q"),
        helper.make_node("DequantizeLinear", ["mq", "ys", "yz"], ["y"], name="m_dq"),
    ] if quantized_output else []  # fmt: skip
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="x_q"),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="x_dq"),
        *extra_nodes,
        compute,
        *output,
    ]
    initializers = [
        numpy_helper.from_array(np.array(X_SCALE, np.float32), "xs"),
        numpy_helper.from_array(np.array(X_ZERO_POINT, np.int8), "xz"),
        numpy_helper.from_array(np.array(Y_SCALE, np.float32), "ys"),
        numpy_helper.from_array(np.array(Y_ZERO_POINT, np.int8), "yz"),
        *initializers,
    ]
    return one_input_model("blocked", nodes, initializers, x_shape, "y" if quantized_output else "m", y_shape, 21)


def within_one_step(path, inputs) -> np.ndarray:
    """The integer IR's output, checked within one output step of onnxruntime and bitfold-run."""
    (expected,) = onnxruntime_outputs(path, inputs)
    (reference,) = bitfold.run(load_module(str(path)), inputs).values()
    (integer,) = bitfold.run(integer_module(path), inputs).values()
    for other in (expected, reference):
        assert np.abs(integer.astype(np.float64) - other).max() <= Y_SCALE * (1 + 1e-6)
    return integer


def matmul_nbits_model(quantized_output: bool) -> onnx.ModelProto:
    """A MatMul (3 x 64 @ 64 x 8) whose weights onnxruntime's MatMulNBitsQuantizer quantized
    (QDQ format: a blocked uint4 DequantizeLinear, blocks of 16 along K, zero points)."""
    from onnxruntime.quantization.matmul_nbits_quantizer import (
        DefaultWeightOnlyQuantConfig,
        MatMulNBitsQuantizer,
        QuantFormat,
    )

    weights = numpy_helper.from_array(np.random.default_rng(11).standard_normal((64, 8)).astype(np.float32), "w")
    source = qdq_model(helper.make_node("MatMul", ["xd", "w"], ["m"], name="mm"), [3, 64], [3, 8], (), [weights],
                       quantized_output)  # fmt: skip
    config = DefaultWeightOnlyQuantConfig(block_size=16, is_symmetric=False, quant_format=QuantFormat.QDQ)
    quantizer = MatMulNBitsQuantizer(source, algo_config=config)
    quantizer.process()
    model = quantizer.model.model
    model.ir_version = IR_VERSION
    blocked = [
        n
        for n in model.graph.node
        if n.op_type == "DequantizeLinear" and any(a.name == "block_size" for a in n.attribute)
    ]
    assert len(blocked) == 1
    return model


MATMUL_INPUT = (np.random.default_rng(12).standard_normal((3, 64)) * 2).astype(np.float32)


@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_onnxruntime_matmul_nbits_qdq(target, tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(matmul_nbits_model(quantized_output=True), path)
    within_one_step(path, {"x": MATMUL_INPUT})
    check_on_qemu(path, {"x": MATMUL_INPUT}, tmp_path, target)


def test_requantized_blocks_within_the_bound(tmp_path):
    """A float result: the integer IR's sum of requantized blocks against the exact value
    (from the model's stored weights, scales and zero points) within n_b half steps of the
    grid the IR's accumulator type states (plus the float32 rounding of the result)."""
    model = matmul_nbits_model(quantized_output=False)
    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    tensors = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
    w, scales, zero_points = (tensors[n] for n in ("w_DQ_Q4", "w_DQ_scales", "w_DQ_zero_points"))
    block = w.shape[0] // scales.shape[0]
    weights = (w - np.repeat(zero_points, block, axis=0)) * np.repeat(scales, block, axis=0)
    exact = (stored_input(MATMUL_INPUT) * float(np.float32(X_SCALE))) @ weights
    module = integer_module(path, lower=False)
    (dcast,) = [op for op in module.walk() if op.name == "quant.dcast"]
    grid = np.array(element_type(dcast.input.type).scale_values())
    (actual,) = bitfold.run(module, {"x": MATMUL_INPUT}).values()
    bound = scales.shape[0] * grid / 2 + np.abs(exact) * 2.0**-23
    assert np.all(np.abs(actual - exact) <= bound)


def block_scales(rng, shape) -> np.ndarray:
    """Scales m 2^-9 with m in 1..12: integer multiples of a common grid (the exact form)."""
    return (rng.integers(1, 13, shape) / 512).astype(np.float32)


def exact_output(block_sums: np.ndarray, scales: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """clamp(R_even((s_x sum_b S[c, b] P[..., c, b] + bias[c]) / s_y) + zp_y) in Fractions, from the
    per-block integer sums P[..., c, b] (channel last but one)."""
    s_x, s_y = Fraction(float(np.float32(X_SCALE))), Fraction(float(np.float32(Y_SCALE)))
    weighted = np.frompyfunc(lambda p, s: int(p) * Fraction(float(s)), 2, 1)(block_sums, scales)
    real = weighted.sum(axis=-1) * s_x + np.frompyfunc(lambda b: Fraction(float(b)), 1, 1)(bias)
    stored = np.frompyfunc(lambda v: round(v / s_y) + Y_ZERO_POINT, 1, 1)(real).astype(np.int64)
    return (np.clip(stored, -128, 127) - Y_ZERO_POINT) * np.float32(Y_SCALE)


def stored_input(x: np.ndarray) -> np.ndarray:
    """QuantizeLinear of x (X_SCALE, X_ZERO_POINT), centered: q - zp."""
    q = np.clip(np.round(x / np.float32(X_SCALE)) + X_ZERO_POINT, -128, 127).astype(np.int64)
    return q - X_ZERO_POINT


@pytest.mark.parametrize("trans_b", [1, 0])
@pytest.mark.parametrize(("weight_type", "low", "high"), [(TensorProto.INT4, -8, 7), (TensorProto.INT8, -128, 127)])
def test_gemm_blocks_on_a_common_grid_are_exact(weight_type, low, high, trans_b, tmp_path):
    """B is (N, K) blocked along axis 1 (transB = 1), or (K, N) blocked along axis 0."""
    rng = np.random.default_rng(weight_type)
    k, n, block = 32, 6, 8
    w = rng.integers(low, high + 1, (n, k))
    scales = block_scales(rng, (n, k // block))
    zero_points = rng.integers(-2, 3, (n, k // block))
    stored = [w, scales, zero_points] if trans_b else [w.T, scales.T, zero_points.T]
    dq = helper.make_node(
        "DequantizeLinear", ["wq", "wscale", "wzero"], ["wd"], name="w_dq", axis=trans_b, block_size=block
    )
    initializers = [
        helper.make_tensor("wq", weight_type, stored[0].shape, stored[0].reshape(-1).tolist()),
        numpy_helper.from_array(np.ascontiguousarray(stored[1]), "wscale"),
        helper.make_tensor("wzero", weight_type, stored[2].shape, stored[2].reshape(-1).tolist()),
    ]
    gemm = helper.make_node("Gemm", ["xd", "wd"], ["m"], name="gemm", transB=trans_b)
    model = qdq_model(gemm, [2, k], [2, n], [dq], initializers)
    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    x = (rng.standard_normal((2, k)) * 3).astype(np.float32)
    integer = within_one_step(path, {"x": x})
    centered = (w - np.repeat(zero_points, block, axis=1)).reshape(n, k // block, block)
    sums = np.einsum("ibr,nbr->inb", stored_input(x).reshape(2, k // block, block), centered)
    np.testing.assert_array_equal(integer, exact_output(sums, scales, np.zeros(n)))
    check_on_qemu(path, {"x": x}, tmp_path)


@pytest.mark.parametrize("per_tap", [False, True], ids=["same-over-taps", "per-tap"])
def test_conv_blocks_along_input_channels_are_exact(per_tap, tmp_path):
    """ONNX's layout of the scales is (M, C/B, 3, 3): one per block of input channels and tap
    (blocks along three reduction axes), or the same over the taps (one blocked axis)."""
    rng = np.random.default_rng(5)
    m, c, block, size = 4, 8, 4, 6
    w = rng.integers(-8, 8, (m, c, 3, 3))
    per_block = block_scales(rng, (m, c // block, 9 if per_tap else 1)).repeat(1 if per_tap else 9, axis=2)
    per_block[:, 0, 0] = 1 / 512  # the common grid is 2^-9 in every channel: the bias (at s_x 2^-9) lies on it
    scales = per_block.reshape(m, c // block, 3, 3)
    grid = np.float32(X_SCALE) * np.float32(1 / 512)
    bias = rng.integers(-200, 200, m)
    dq_w = helper.make_node("DequantizeLinear", ["wq", "wscale"], ["wd"], name="w_dq", axis=1, block_size=block)
    dq_b = helper.make_node("DequantizeLinear", ["bq", "bscale"], ["bd"], name="b_dq")
    initializers = [
        helper.make_tensor("wq", TensorProto.INT4, w.shape, w.reshape(-1).tolist()),
        numpy_helper.from_array(scales.astype(np.float32), "wscale"),
        numpy_helper.from_array(bias.astype(np.int32), "bq"),
        numpy_helper.from_array(np.array(grid, np.float32), "bscale"),
    ]
    conv = helper.make_node("Conv", ["xd", "wd", "bd"], ["m"], name="conv", pads=[1, 1, 1, 1])
    model = qdq_model(conv, [1, c, size, size], [1, m, size, size], [dq_w, dq_b], initializers)
    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    x = (rng.standard_normal((1, c, size, size)) * 3).astype(np.float32)
    integer = within_one_step(path, {"x": x})
    padded = np.pad(stored_input(x), ((0, 0), (0, 0), (1, 1), (1, 1)))
    patches = np.stack([padded[:, :, i : i + size, j : j + size] for i in range(3) for j in range(3)], axis=-1)
    sums = np.einsum("nbrhwt,mbrt->nhwmbt", patches.reshape(1, c // block, block, size, size, 9),
                     w.reshape(m, c // block, block, 9))  # fmt: skip
    bias_real = bias * np.float64(np.float32(grid))
    expected = exact_output(sums.reshape(1, size, size, m, -1), per_block.reshape(m, -1), bias_real)
    expected = expected.transpose(0, 3, 1, 2)
    np.testing.assert_array_equal(integer, expected)
    check_on_qemu(path, {"x": x}, tmp_path)
