"""Expand and Tile on quantized values are data movement: the dequantization sinks below
them (per-axis types keep their axis where it is neither broadcast nor tiled), they lower to
integer copies (onnx-data-movement-to-linalg), and the model equals onnxruntime
(ORT_DISABLE_ALL) bit for bit; RV32IM under qemu equals bitfold-run."""

import numpy as np
import onnx
import pytest
from conftest import require_tools
from models.float_models import IR_VERSION
from models.runners import run_onnxruntime
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context

import bitfold
from bitfold.frontends.onnx import import_model
from bitfold.passes.pipelines import OnnxToBackendInputPipeline
from bitfold.registry import get_all_dialects


def replication_model(op_type: str, operand: list[int], output_shape: list[int]) -> onnx.ModelProto:
    """x (1 x 3 x 1 x 4) -> QDQ int8 -> op_type(operand) -> Add of a per-channel int8 constant
    (channel axis 1) after its own Expand / Tile -> QDQ uint8 -> y."""
    rng = np.random.default_rng(5)
    initializers = [
        numpy_helper.from_array(np.array(0.05, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(-2, np.int8), "x_zero_point"),
        numpy_helper.from_array(np.array(operand, np.int64), "operand"),
        numpy_helper.from_array(rng.integers(-100, 100, (1, 3, 1, 4)).astype(np.int8), "w_q"),
        numpy_helper.from_array(np.array([0.01, 0.02, 0.04], np.float32), "w_scale"),
        numpy_helper.from_array(np.array(0.1, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "y_zero_point"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero_point"], ["x_q"]),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero_point"], ["x_dq"]),
        helper.make_node(op_type, ["x_dq", "operand"], ["x_moved"]),
        helper.make_node("DequantizeLinear", ["w_q", "w_scale"], ["w"], axis=1),
        helper.make_node(op_type, ["w", "operand"], ["w_moved"]),
        helper.make_node("Add", ["x_moved", "w_moved"], ["sum"]),
        helper.make_node("QuantizeLinear", ["sum", "y_scale", "y_zero_point"], ["y_q"]),
        helper.make_node("DequantizeLinear", ["y_q", "y_scale", "y_zero_point"], ["y"]),
    ]
    graph = helper.make_graph(nodes, op_type.lower(), [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, output_shape)], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=IR_VERSION)


CASES = {
    "expand": ("Expand", [2, 1, 5, 1], [2, 3, 5, 4]),
    "expand_rank": ("Expand", [2, 1, 1, 1, 1], [2, 1, 3, 1, 4]),
    "tile": ("Tile", [2, 1, 3, 2], [2, 3, 3, 8]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_integer_form_equals_onnxruntime(case, tmp_path):
    model = replication_model(*CASES[case])
    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    module = import_model(path)
    context = Context()
    for name, factory in get_all_dialects().items():
        context.register_dialect(name, factory)
    OnnxToBackendInputPipeline(integer_io=False).apply(context, module)
    assert not [op.name for op in module.walk() if op.name.startswith("onnx.") and op.name != "onnx.Constant"]
    for seed in range(3):
        x = (np.random.default_rng(seed).standard_normal((1, 3, 1, 4)) * 3).astype(np.float32)
        np.testing.assert_array_equal(bitfold.run(module, {"x": x})["y"], run_onnxruntime(path, {"x": x})["y"])


def compare_qemu_with_bitfold_run(model: onnx.ModelProto, shape: tuple[int, ...], target: str, tmp_path) -> None:
    from bitfold.compile import compile_model
    from bitfold.load import load_module

    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    compiled = compile_model(load_module(str(path)), target)
    stored = compiled.quantize({"x": (np.random.default_rng(7).standard_normal(shape) * 3).astype(np.float32)})
    np.testing.assert_array_equal(compiled.run_qemu(stored, tmp_path / "run")[0], compiled.run_reference(stored)[0])


def test_rv32im_equals_bitfold_run(tmp_path):
    compare_qemu_with_bitfold_run(replication_model(*CASES["tile"]), (1, 3, 1, 4), "rv32im", tmp_path)


def where_model(fill: str | None) -> onnx.ModelProto:
    """x (2 x 6) -> QDQ uint8 -> Where(constant mask, x, Y) -> QDQ uint8 -> y, Y the dequantized
    other input x2 of the same type, or a constant `fill` (masked_fill: 0.0 is the zero point)."""
    rng = np.random.default_rng(6)
    initializers = [
        numpy_helper.from_array(np.array(0.05, np.float32), "s"),
        numpy_helper.from_array(np.array(100, np.uint8), "z"),
        numpy_helper.from_array(rng.integers(0, 2, (1, 6)).astype(bool), "mask"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["x_q"]),
        helper.make_node("DequantizeLinear", ["x_q", "s", "z"], ["x_dq"]),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6])]
    if fill is None:
        inputs.append(helper.make_tensor_value_info("x2", TensorProto.FLOAT, [2, 1]))
        nodes += [helper.make_node("QuantizeLinear", ["x2", "s", "z"], ["x2_q"]),
                  helper.make_node("DequantizeLinear", ["x2_q", "s", "z"], ["other"])]
    else:
        initializers.append(numpy_helper.from_array(np.array(float(fill), np.float32), "other"))
    nodes += [
        helper.make_node("Where", ["mask", "x_dq", "other"], ["selected"]),
        helper.make_node("QuantizeLinear", ["selected", "s", "z"], ["y_q"]),
        helper.make_node("DequantizeLinear", ["y_q", "s", "z"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "where", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 6])],
                              initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=IR_VERSION)


@pytest.mark.parametrize("fill", [None, "0.0", "-1.5"])
def test_where_with_a_constant_condition_selects_integers(fill, tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(where_model(fill), path)
    module = import_model(path)
    context = Context()
    for name, factory in get_all_dialects().items():
        context.register_dialect(name, factory)
    OnnxToBackendInputPipeline(integer_io=False).apply(context, module)
    assert not [op.name for op in module.walk() if op.name.startswith("onnx.")]
    rng = np.random.default_rng(8)
    feeds = {"x": (rng.standard_normal((2, 6)) * 3).astype(np.float32)}
    if fill is None:
        feeds["x2"] = (rng.standard_normal((2, 1)) * 3).astype(np.float32)
    np.testing.assert_array_equal(bitfold.run(module, feeds)["y"], run_onnxruntime(path, feeds)["y"])


def test_where_rv32im_equals_bitfold_run(tmp_path):
    compare_qemu_with_bitfold_run(where_model("0.0"), (2, 6), "rv32im", tmp_path)


@pytest.mark.parametrize("case", ["tile", "expand_rank", "where"])
def test_rv64imv_equals_bitfold_run(case, tmp_path):
    """Expand, Tile and Where through upstream MLIR and LLVM (RVV)."""
    require_tools("mlir-opt-22", "mlir-translate-22", "clang-22", "qemu-riscv64")
    model, shape = (where_model("0.0"), (2, 6)) if case == "where" else (replication_model(*CASES[case]), (1, 3, 1, 4))
    compare_qemu_with_bitfold_run(model, shape, "rv64imv", tmp_path)
