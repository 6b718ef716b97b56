"""A QDQ model chaining the ops of transformer and modern CNN exports (LayerNormalization,
Gelu, Erf, Mish, Pow, Sqrt, Reciprocal, Neg, Expand, Where, Tile, Mod, ReduceMean / ReduceSum /
ReduceMax, InstanceNormalization) imports, runs, and keeps its float ops between quant casts
in the quant form; both equal onnxruntime's output within one step of the output
quantization (the float64 references differ from onnxruntime's float32 in the last bits,
which can move a value across a rounding boundary of the final QuantizeLinear).

The chain is one float island (no quantizer between its ops): compiled for rv32im (soft float) and
rv64imv (LLVM), it runs under qemu bit-exact to bitfold-run on the integer IR, within one step of
onnxruntime. Mod is left out there (`FLOAT_LOWERING_MISSING`)."""

import numpy as np
import onnx
import onnxruntime
import pytest
from conftest import require_tools
from models.runners import run_onnxruntime
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context

import bitfold
from bitfold.compile import compile_model
from bitfold.frontends.onnx import import_model
from bitfold.load import load_module
from bitfold.passes.pipelines import OnnxToQuantFormPipeline
from bitfold.registry import get_all_dialects

SCALE = 0.05
"""The output quantization step."""
FLOAT_LOWERING_MISSING = {"Mod": "remainder"}
"""ops of the chain with an integer form (a table, alone between quantizers) but no float-island
lowering yet (onnx-float-to-linalg), by their output; the compiled chain skips them"""


def transformer_ops_model(without: tuple[str, ...] = ()) -> onnx.ModelProto:
    """x (1 x 3 x 8) -> QDQ -> the chain of ops (module docstring) -> QDQ -> out (2 x 3 x 3); the
    unary ops `without` left out (their readers read their input)."""
    rng = np.random.default_rng(20)
    initializers = [numpy_helper.from_array(np.asarray(value), name) for name, value in {
        "s": np.array(SCALE, np.float32), "z": np.array(0, np.int8),
        "gamma": rng.standard_normal(8).astype(np.float32), "beta": rng.standard_normal(8).astype(np.float32),
        "channel_scale": rng.standard_normal(3).astype(np.float32), "channel_bias": rng.standard_normal(3).astype(np.float32),
        "last": np.array([-1], np.int64), "two": np.array(2, np.float32), "shape": np.array([2, 3, 8], np.int64),
        "repeats": np.array([1, 1, 2], np.int64), "condition": rng.integers(0, 2, (3, 8)).astype(bool),
    }.items()]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["x_q"]),
        helper.make_node("DequantizeLinear", ["x_q", "s", "z"], ["x_dq"]),
        helper.make_node("LayerNormalization", ["x_dq", "gamma", "beta"], ["normed"], axis=-1, epsilon=1e-5),
        helper.make_node("Gelu", ["normed"], ["gelu"], approximate="tanh"),
        helper.make_node("Erf", ["gelu"], ["erf"]),
        helper.make_node("Mish", ["erf"], ["mish"]),
        helper.make_node("Pow", ["mish", "two"], ["squared"]),
        helper.make_node("Sqrt", ["squared"], ["root"]),
        helper.make_node("Add", ["root", "two"], ["shifted"]),
        helper.make_node("Reciprocal", ["shifted"], ["inverse"]),
        helper.make_node("Neg", ["inverse"], ["negated"]),
        helper.make_node("Expand", ["negated", "shape"], ["expanded"]),
        helper.make_node("Where", ["condition", "expanded", "x_dq"], ["selected"]),
        helper.make_node("InstanceNormalization", ["selected", "channel_scale", "channel_bias"], ["instance"]),
        helper.make_node("Tile", ["instance", "repeats"], ["tiled"]),
        helper.make_node("Mod", ["tiled", "two"], ["remainder"], fmod=1),
        helper.make_node("ReduceMean", ["remainder", "last"], ["mean"]),
        helper.make_node("ReduceSum", ["remainder", "last"], ["sum"]),
        helper.make_node("ReduceMax", ["remainder", "last"], ["max"]),
        helper.make_node("Concat", ["mean", "sum", "max"], ["joined"], axis=-1),
        helper.make_node("QuantizeLinear", ["joined", "s", "z"], ["y_q"]),
        helper.make_node("DequantizeLinear", ["y_q", "s", "z"], ["out"]),
    ]
    skipped = {node.output[0]: node.input[0] for node in nodes if node.op_type in without}
    nodes = [node for node in nodes if node.op_type not in without]
    for node in nodes:
        node.input[:] = [skipped.get(name, name) for name in node.input]
    graph = helper.make_graph(
        nodes, "transformer_ops",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 3, 3])],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], ir_version=10)


@pytest.fixture(scope="module")
def model_and_expected():
    model = transformer_ops_model()
    x = np.random.default_rng(0).standard_normal((1, 3, 8)).astype(np.float32)
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    (expected,) = onnxruntime.InferenceSession(model.SerializeToString(), options).run(None, {"x": x})
    return model, x, expected


def _assert_within_one_step(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.shape == expected.shape and got.dtype == expected.dtype
    assert np.max(np.abs(got - expected)) <= SCALE * (1 + 1e-6)


def test_imports_and_runs_as_onnxruntime(model_and_expected):
    model, x, expected = model_and_expected
    _assert_within_one_step(bitfold.run(import_model(model.SerializeToString()), [x])["out"], expected)


def test_quant_form_keeps_the_float_ops(model_and_expected):
    model, x, expected = model_and_expected
    module = import_model(model.SerializeToString())
    context = Context()
    for name, factory in get_all_dialects().items():
        context.register_dialect(name, factory)
    OnnxToQuantFormPipeline().apply(context, module)
    names = {op.name for op in module.walk()}
    assert {"quant.qcast", "quant.dcast", "onnx.LayerNormalization", "onnx.InstanceNormalization", "onnx.Tile"} <= names
    _assert_within_one_step(bitfold.run(module, [x])["out"], expected)


@pytest.mark.parametrize("target", ["rv32im", "rv64imv"])
def test_float_chain_on_qemu(target, tmp_path):
    require_tools("qemu-riscv32", "qemu-riscv64", "riscv64-unknown-elf-gcc", "mlir-opt-22", "clang-22")
    model = transformer_ops_model(without=tuple(FLOAT_LOWERING_MISSING))
    onnx.save(model, tmp_path / "chain.onnx")
    x = np.random.default_rng(0).standard_normal((1, 3, 8)).astype(np.float32)
    compiled = compile_model(load_module(str(tmp_path / "chain.onnx")), target)
    stored = compiled.quantize({"x": x})
    (got,), (reference,) = compiled.run_qemu(stored, tmp_path / "run"), compiled.run_reference(stored)
    np.testing.assert_array_equal(got, reference)
    (expected,) = run_onnxruntime(tmp_path / "chain.onnx", {"x": x}).values()
    _assert_within_one_step(compiled.dequantize([got])[0], expected)
