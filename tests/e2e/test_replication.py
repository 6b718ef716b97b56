"""Expand and Tile on quantized values are data movement: the dequantization sinks below
them (per-axis types keep their axis where it is neither broadcast nor tiled), they lower to
integer copies (onnx-data-movement-to-linalg), and the model equals onnxruntime
(ORT_DISABLE_ALL) bit for bit; RV32IM under qemu equals bitfold-run."""

import numpy as np
import onnx
import pytest
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


def test_rv32im_equals_bitfold_run(tmp_path):
    from bitfold.load import load_module
    from bitfold.riscv import compile_model

    path = tmp_path / "model.onnx"
    onnx.save(replication_model(*CASES["tile"]), path)
    compiled = compile_model(load_module(str(path)), "rv32im")
    stored = compiled.quantize({"x": (np.random.default_rng(7).standard_normal((1, 3, 1, 4)) * 3).astype(np.float32)})
    np.testing.assert_array_equal(compiled.run_qemu(stored, tmp_path / "run")[0], compiled.run_reference(stored)[0])
