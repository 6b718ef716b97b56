"""ReduceMean (Brevitas' average pool), ReduceSum, ReduceMax over any axes and the table
activations Erf, Gelu, Mish, Sqrt, Reciprocal, Neg, and Pow and Mod by a constant, on quantized values
compile to integer code (passes/quant_to_integer/reductions.py, tables.py). Oracle: onnxruntime (ORT_DISABLE_ALL).
ReduceMax is exact; the sums and tables are within one output step (the float reference
rounds the sum or activation to float before its QuantizeLinear; the integer form rounds
once); RV32IM under qemu equals bitfold-run bit for bit."""

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
from bitfold.passes.pipelines import OnnxToIntegerPipeline
from bitfold.registry import get_all_dialects

X_SCALE, X_ZERO_POINT = 0.07, 3
OUTPUTS = {
    # name: (node, output shape, output scale, output zero point (uint8 if > 0))
    "mean": (helper.make_node("ReduceMean", ["x_dq", "spatial"], ["mean_f"], keepdims=1), [1, 4, 1, 1], 0.02, 128),
    "sum": (helper.make_node("ReduceSum", ["x_dq", "channels"], ["sum_f"], keepdims=0), [1, 5, 6], 0.2, 0),
    "max": (helper.make_node("ReduceMax", ["x_dq", "last"], ["max_f"], keepdims=1), [1, 4, 5, 1], 0.05, 0),
    "all": (helper.make_node("ReduceSum", ["x_dq"], ["all_f"], keepdims=0), [], 1.0, 0),
    "gelu": (helper.make_node("Gelu", ["x_dq"], ["gelu_f"], approximate="none"), [1, 4, 5, 6], 0.04, 0),
    "erf": (helper.make_node("Erf", ["x_dq"], ["erf_f"]), [1, 4, 5, 6], 0.01, 0),
    "mish": (helper.make_node("Mish", ["x_dq"], ["mish_f"]), [1, 4, 5, 6], 0.04, 0),
    "sqrt": (helper.make_node("Sqrt", ["x_udq"], ["sqrt_f"]), [1, 4, 5, 6], 0.05, 0),
    "reciprocal": (helper.make_node("Reciprocal", ["x_udq"], ["reciprocal_f"]), [1, 4, 5, 6], 0.5, 0),
    "pow": (helper.make_node("Pow", ["x_dq", "exponent"], ["pow_f"]), [1, 4, 5, 6], 0.4, 0),
    "mod": (helper.make_node("Mod", ["x_dq", "divisor"], ["mod_f"], fmod=1), [1, 4, 5, 6], 0.02, 128),
    "neg": (helper.make_node("Neg", ["x_dq"], ["neg_f"]), [1, 4, 5, 6], 0.05, 128),
}


def reductions_model(names=tuple(OUTPUTS)) -> onnx.ModelProto:
    """x (1 x 4 x 5 x 6) -> QDQ int8 (x_dq) or uint8 with zero point 0 (x_udq: Sqrt and
    Reciprocal of values >= 0) -> each op of OUTPUTS in `names` -> QDQ -> output (opset 20)."""
    initializers = [
        numpy_helper.from_array(np.array(X_SCALE, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(X_ZERO_POINT, np.int8), "x_zero_point"),
        numpy_helper.from_array(np.array(0, np.uint8), "x_unsigned_zero_point"),
        numpy_helper.from_array(np.array([2, 3], np.int64), "spatial"),
        numpy_helper.from_array(np.array([1], np.int64), "channels"),
        numpy_helper.from_array(np.array([-1], np.int64), "last"),
        numpy_helper.from_array(np.array(2, np.float32), "exponent"),
        numpy_helper.from_array(np.array([1.5], np.float32), "divisor"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero_point"], ["x_q"]),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero_point"], ["x_dq"]),
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_unsigned_zero_point"], ["x_uq"]),
        helper.make_node("DequantizeLinear", ["x_uq", "x_scale", "x_unsigned_zero_point"], ["x_udq"]),
    ]
    read = {name for output in names for name in OUTPUTS[output][0].input}
    nodes = [node for node in nodes if node.output[0] not in ("x_q", "x_dq") or "x_dq" in read]
    nodes = [node for node in nodes if node.output[0] not in ("x_uq", "x_udq") or "x_udq" in read]
    outputs = []
    for name in names:
        node, shape, scale, zero_point = OUTPUTS[name]
        zero = np.array(zero_point, np.uint8) if zero_point else np.array(0, np.int8)
        initializers += [numpy_helper.from_array(np.array(scale, np.float32), f"{name}_scale"),
                         numpy_helper.from_array(zero, f"{name}_zero_point")]
        parameters = [f"{name}_scale", f"{name}_zero_point"]
        nodes += [node, helper.make_node("QuantizeLinear", [node.output[0], *parameters], [f"{name}_q"]),
                  helper.make_node("DequantizeLinear", [f"{name}_q", *parameters], [name])]
        outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
    graph = helper.make_graph(nodes, "reductions", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 5, 6])],
                              outputs, initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=IR_VERSION)


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("reductions") / "reductions.onnx"
    onnx.save(reductions_model(), path)
    return path


@pytest.fixture(scope="module")
def integer_module(model_path):
    module = import_model(model_path)
    context = Context()
    for name, factory in get_all_dialects().items():
        context.register_dialect(name, factory)
    OnnxToIntegerPipeline().apply(context, module)
    return module


def test_no_float_op_is_left(integer_module):
    names = {op.name for op in integer_module.walk()}
    assert not {"onnx.ReduceMean", "onnx.ReduceSum", "onnx.ReduceMax", "onnx.Gelu", "onnx.Erf", "onnx.Mish",
                 "onnx.Pow", "onnx.Mod", "onnx.Neg"} & names


@pytest.mark.parametrize("seed", [0, 1])
def test_integer_form_follows_onnxruntime(model_path, integer_module, seed):
    x = (np.random.default_rng(seed).standard_normal((1, 4, 5, 6)) * 3).astype(np.float32)
    expected = run_onnxruntime(model_path, {"x": x})
    got = bitfold.run(integer_module, {"x": x})
    for name, (_, _, scale, _) in OUTPUTS.items():
        steps = np.abs(got[name].astype(np.float64) - expected[name]) / scale
        assert steps.max() <= (0 if name == "max" else 1) + 1e-6, name


@pytest.mark.parametrize("names", [("mean", "sum", "max", "all"), ("gelu", "erf", "mish"), ("sqrt", "reciprocal"),
                                   ("pow", "mod", "neg")])
def test_rv32im_equals_bitfold_run(names, tmp_path):
    """(One input quantizer and at most 7 buffers beside the workspace a model: three models.)"""
    compare_qemu_with_bitfold_run(reductions_model(names), "rv32im", tmp_path)


def test_rv64imv_equals_bitfold_run(tmp_path):
    """The reductions through upstream MLIR and LLVM (RVV)."""
    require_tools("mlir-opt-22", "mlir-translate-22", "clang-22", "qemu-riscv64")
    compare_qemu_with_bitfold_run(reductions_model(("mean", "sum", "max", "all")), "rv64imv", tmp_path)


def compare_qemu_with_bitfold_run(model: onnx.ModelProto, target: str, tmp_path) -> None:
    from bitfold.compile import compile_model
    from bitfold.load import load_module

    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    compiled = compile_model(load_module(str(path)), target)
    x = (np.random.default_rng(3).standard_normal((1, 4, 5, 6)) * 3).astype(np.float32)
    stored = compiled.quantize({"x": x})
    got = compiled.run_qemu(stored, tmp_path / "run")
    for actual, reference in zip(got, compiled.run_reference(stored)):
        np.testing.assert_array_equal(actual, reference)
