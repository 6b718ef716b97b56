"""Softmax on quantized values in integers (`passes/quant_to_integer/softmax.py`) against
onnxruntime's float Softmax (ORT_DISABLE_ALL) on QDQ models:

- a float result (DQ -> Softmax -> graph output): the integer IR's u 2^-P within the
  documented bound eps of onnxruntime's softmax (plus float32 rounding);
- a quantized result (... -> Softmax -> Q -> DQ): within one output step of onnxruntime, on
  hand-built models (axis lengths 10 and 1000, rows with ties at the maximum) and on
  `quantize_static` models (QDQ, and QOperator's QLinearSoftmax); rv32im (rv64im too for the
  quantize_static models) under qemu bit-exact to bitfold-run on the integer IR;
- any axis (first, middle, last of a 3-D tensor) within one output step of onnxruntime;
- an axis too long for the output's step: one line naming the node."""

import subprocess

import numpy as np
import onnx
import pytest
from models.quantized import QuantConfig, quantize
from onnx import helper, numpy_helper
from test_table_activations import (
    check_on_qemu,
    gemm_activations,
    integer_module,
    one_input_model,
    onnxruntime_outputs,
)

import bitfold
from bitfold.load import load_module
from bitfold.passes.quant_to_integer.softmax import fixed_point_bits, softmax_error_bound

X_SCALE, X_ZERO_POINT = 0.06, -3
Y_SCALE = 1 / 256


def softmax_model(
    shape: list[int], quantized_output: bool, axis: int = -1, y_scale: float = Y_SCALE
) -> onnx.ModelProto:
    """x -> Q (s8, X_SCALE, X_ZERO_POINT) -> DQ -> Softmax(axis) [-> Q (u8, y_scale) -> DQ]."""
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="x_q"),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="x_dq"),
        helper.make_node("Softmax", ["xd"], ["p" if quantized_output else "y"], name="softmax", axis=axis),
    ]
    initializers = [
        numpy_helper.from_array(np.array(X_SCALE, np.float32), "xs"),
        numpy_helper.from_array(np.array(X_ZERO_POINT, np.int8), "xz"),
    ]
    if quantized_output:
        nodes += [
            helper.make_node("QuantizeLinear", ["p", "ys", "yz"], ["pq"], name="p_q"),
            helper.make_node("DequantizeLinear", ["pq", "ys", "yz"], ["y"], name="p_dq"),
        ]
        initializers += [
            numpy_helper.from_array(np.array(y_scale, np.float32), "ys"),
            numpy_helper.from_array(np.array(0, np.uint8), "yz"),
        ]
    return one_input_model("softmax", nodes, initializers, shape, "y", shape, 13)


def softmax_inputs(rows: int, length: int, seed: int) -> np.ndarray:
    """Random rows over the whole input grid, a row of equal values and rows with ties at the
    maximum (where every term counts)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-8, 8, (rows, length)).astype(np.float32)
    x[0] = 1.0
    x[1, : length // 2] = x[1].max()
    x[2] = rng.uniform(5, 7.5, length)
    return x


@pytest.mark.parametrize("length", [10, 1000])
def test_float_result_within_the_bound(length, tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(softmax_model([4, length], quantized_output=False), path)
    inputs = {"x": softmax_inputs(4, length, seed=length)}
    (expected,) = onnxruntime_outputs(path, inputs)
    (actual,) = bitfold.run(integer_module(path), inputs).values()
    bound = softmax_error_bound(length, *fixed_point_bits(length))
    assert np.abs(actual.astype(np.float64) - expected).max() <= bound + 1e-6


@pytest.mark.parametrize("y_scale", [Y_SCALE, 1 / 255], ids=["step-2^-8", "step-1/255"])
@pytest.mark.parametrize("length", [10, 1000])
def test_quantized_result_within_one_step(length, y_scale, tmp_path):
    """Step 2^-8: the division rounds onto the output grid; 1/255: a finer grid, requantized."""
    path = tmp_path / "model.onnx"
    onnx.save(softmax_model([4, length], quantized_output=True, y_scale=y_scale), path)
    inputs = {"x": softmax_inputs(4, length, seed=length + 1)}
    (expected,) = onnxruntime_outputs(path, inputs)
    (actual,) = bitfold.run(integer_module(path), inputs).values()
    assert np.abs(actual.astype(np.float64) - expected).max() <= y_scale * (1 + 1e-6)
    check_on_qemu(path, inputs, tmp_path)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_any_axis_within_one_step(axis, tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(softmax_model([3, 5, 7], quantized_output=True, axis=axis), path)
    inputs = {"x": np.random.default_rng(7).uniform(-8, 8, (3, 5, 7)).astype(np.float32)}
    (expected,) = onnxruntime_outputs(path, inputs)
    module = integer_module(path)
    assert "onnx.Softmax" not in str(module)
    (actual,) = bitfold.run(module, inputs).values()
    assert np.abs(actual.astype(np.float64) - expected).max() <= Y_SCALE * (1 + 1e-6)


@pytest.mark.parametrize("fmt", ["qdq", "qop"])
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_onnxruntime_quantized_softmax(fmt, target, tmp_path):
    """quantize_static: a QDQ Softmax, or the com.microsoft QLinearSoftmax (bitfold-run on the
    imported model bit-exact to onnxruntime there: its reference is onnxruntime's kernel)."""
    path = tmp_path / "model.onnx"
    model = quantize(gemm_activations([("Softmax", {"axis": -1})]), QuantConfig(fmt, "u8", "s8"), path)
    assert fmt == "qdq" or "QLinearSoftmax" in {n.op_type for n in model.graph.node}
    inputs = {"x": np.random.default_rng(4).standard_normal((4, 16)).astype(np.float32) * 2}
    (expected,) = onnxruntime_outputs(path, inputs)
    if fmt == "qop":
        np.testing.assert_array_equal(next(iter(bitfold.run(load_module(str(path)), inputs).values())), expected)
    (actual,) = bitfold.run(integer_module(path), inputs).values()
    step = next(float(numpy_helper.to_array(t)) for t in model.graph.initializer if t.name == "a0_scale")
    assert np.abs(actual.astype(np.float64) - expected).max() <= step * (1 + 1e-6)
    check_on_qemu(path, inputs, tmp_path, target)


@pytest.mark.parametrize(("shape", "axis", "message"), [
    ([1, 4096], -1, "'onnx.Softmax' (softmax): over 4096 values the error bound 0.00794 is not below half an output step"),
])  # fmt: skip
def test_refusals(shape, axis, message, tmp_path):
    """Refused with integer-only; otherwise the Softmax stays float (docs/float-islands.md)."""
    path = tmp_path / "model.onnx"
    onnx.save(softmax_model(shape, quantized_output=True, axis=axis), path)

    def quant_to_integer(options: str) -> subprocess.CompletedProcess:
        command = ["bitfold-opt", str(path), "-p", f"onnx-to-quant,canonicalize-quant,quant-to-integer{options}"]
        return subprocess.run(command, check=False, capture_output=True, text=True)

    done = quant_to_integer("{integer-only=true}")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], done.stderr
    island = quant_to_integer("")
    assert island.returncode == 0 and '"onnx.Softmax"' in island.stdout, island.stderr
