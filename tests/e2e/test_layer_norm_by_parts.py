"""LayerNorm as older torch exports spell it, ReduceMean, Sub, Pow by 2, ReduceMean, Add, Sqrt,
Div (then Mul, Add by gamma and beta), between QuantizeLinear / DequantizeLinear: one float island
(Sqrt's lowering: `math.sqrt`, correctly rounded by expand-float-math). bitfold-run is within one
output step of onnxruntime (ORT_DISABLE_ALL; the references compute in float64 or another order,
which can move a value across a rounding boundary of the final QuantizeLinear), and the rv32im
code (soft float) under qemu equals bitfold-run bit for bit. A float Sqrt on +-0, subnormals,
negative values, +inf and NaN gives the same bits on rv32im as bitfold-run: the correctly rounded
root, and the canonical NaN 0x7FC00000 for negative values and NaN."""

import numpy as np
import onnx
import pytest
from conftest import require_tools
from models.float_models import IR_VERSION
from models.runners import run_onnxruntime
from onnx import TensorProto, helper, numpy_helper

import bitfold
from bitfold.compile import compile_model
from bitfold.frontends.onnx import import_model
from bitfold.load import load_module

SCALE = 0.03
"""The output quantization step."""
SHAPE = [2, 3, 8]


def layer_norm_model() -> onnx.ModelProto:
    """x (2 x 3 x 8) -> QDQ int8 -> LayerNorm over the last axis by parts -> QDQ int8 -> y."""
    rng = np.random.default_rng(5)
    initializers = [numpy_helper.from_array(np.asarray(value), name) for name, value in {
        "x_scale": np.array(0.05, np.float32), "zero": np.array(0, np.int8), "y_scale": np.array(SCALE, np.float32),
        "last": np.array([-1], np.int64), "two": np.array(2, np.float32), "eps": np.array(1e-5, np.float32),
        "gamma": rng.uniform(0.5, 1.5, 8).astype(np.float32), "beta": rng.normal(0, 0.3, 8).astype(np.float32),
    }.items()]  # fmt: skip
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "zero"], ["x_q"]),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale", "zero"], ["x_dq"]),
        helper.make_node("ReduceMean", ["x_dq", "last"], ["mean"]),
        helper.make_node("Sub", ["x_dq", "mean"], ["centered"]),
        helper.make_node("Pow", ["centered", "two"], ["squared"]),
        helper.make_node("ReduceMean", ["squared", "last"], ["variance"]),
        helper.make_node("Add", ["variance", "eps"], ["shifted"]),
        helper.make_node("Sqrt", ["shifted"], ["deviation"]),
        helper.make_node("Div", ["centered", "deviation"], ["normalized"]),
        helper.make_node("Mul", ["normalized", "gamma"], ["scaled"]),
        helper.make_node("Add", ["scaled", "beta"], ["shifted_out"]),
        helper.make_node("QuantizeLinear", ["shifted_out", "y_scale", "zero"], ["y_q"]),
        helper.make_node("DequantizeLinear", ["y_q", "y_scale", "zero"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "layer_norm_by_parts", [helper.make_tensor_value_info("x", TensorProto.FLOAT, SHAPE)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, SHAPE)], initializers)  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=IR_VERSION)


def _input(seed: int) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(SHAPE) * 2).astype(np.float32)


@pytest.mark.parametrize("seed", [0, 1])
def test_bitfold_run_within_one_step_of_onnxruntime(seed, tmp_path):
    onnx.save(layer_norm_model(), tmp_path / "ln.onnx")
    (expected,) = run_onnxruntime(tmp_path / "ln.onnx", {"x": _input(seed)}).values()
    got = bitfold.run(import_model(str(tmp_path / "ln.onnx")), [_input(seed)])["y"]
    assert np.abs(got - expected).max() <= SCALE * (1 + 1e-6)


def test_rv32im_equals_bitfold_run(tmp_path):
    require_tools("qemu-riscv32", "riscv64-unknown-elf-gcc")
    onnx.save(layer_norm_model(), tmp_path / "ln.onnx")
    compiled = compile_model(load_module(str(tmp_path / "ln.onnx")), "rv32im")
    stored = compiled.quantize({"x": _input(2)})
    (got,), (reference,) = compiled.run_qemu(stored, tmp_path / "run"), compiled.run_reference(stored)
    np.testing.assert_array_equal(got, reference)
    (expected,) = run_onnxruntime(tmp_path / "ln.onnx", {"x": _input(2)}).values()
    assert np.abs(compiled.dequantize([got])[0] - expected).max() <= SCALE * (1 + 1e-6)


SPECIAL_BITS = [0x00000000, 0x80000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0x40000000, 0x7F7FFFFF,
                0x7F800000, 0xBF800000, 0xFF800000, 0x80000001, 0x7FC00000, 0xFFC00000, 0x3E99999A, 0x4B000001]  # fmt: skip


def test_float_sqrt_specials_on_rv32im(tmp_path):
    require_tools("qemu-riscv32", "riscv64-unknown-elf-gcc")
    graph = helper.make_graph([helper.make_node("Sqrt", ["x"], ["y"])], "sqrt",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [len(SPECIAL_BITS)])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [len(SPECIAL_BITS)])])  # fmt: skip
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=IR_VERSION),
              tmp_path / "sqrt.onnx")
    x = np.array(SPECIAL_BITS, np.uint32).view(np.float32)
    (run,) = bitfold.run(import_model(str(tmp_path / "sqrt.onnx")), [x]).values()
    with np.errstate(invalid="ignore"):
        want = np.sqrt(x)
    want[np.isnan(want)] = np.float32(np.nan)  # canonical: 0x7FC00000
    np.testing.assert_array_equal(np.asarray(run).view(np.uint32), want.view(np.uint32))
    compiled = compile_model(load_module(str(tmp_path / "sqrt.onnx")), "rv32im")
    stored = compiled.quantize({"x": x})
    (got,) = compiled.run_qemu(stored, tmp_path / "run")
    np.testing.assert_array_equal(np.asarray(got).view(np.uint32), want.view(np.uint32))
