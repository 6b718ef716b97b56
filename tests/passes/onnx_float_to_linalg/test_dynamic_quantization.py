"""onnxruntime's `quantize_dynamic` form (DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul,
made by onnxruntime's own quantizer from a float MatMul + Add, uint8 activations, int8 weights; and
ConvInteger from a grouped, strided, padded Conv with uint8 weights and their zero point):
the integer IR (onnx-float-to-linalg's dynamic-quantization lowering) against onnx's reference
evaluator bit for bit (every step is one float32 or exact integer op of the same order) and
onnxruntime within float32 rounding, and the host code, and the rv32im code (soft float) under qemu,
bit-exact to the interpreter; a
DynamicQuantizeLinear whose integers something else reads is one line naming the node."""

import numpy as np
import onnx
import pytest
from conftest import require_tools
from models.runners import run_onnxruntime
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.context import Context
from xdsl.utils.exceptions import PassFailedException

import bitfold
from bitfold.compile import compile_model
from bitfold.frontends.onnx import import_model
from bitfold.load import load_module
from bitfold.passes.pipelines import OnnxToIntegerPipeline

RNG = np.random.default_rng(23)


@pytest.fixture(scope="module")
def dynamic_model(tmp_path_factory) -> str:
    """quantize_dynamic of x (2 x 5 x 48) @ W (48 x 24) + b."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    directory = tmp_path_factory.mktemp("dynamic")
    initializers = [
        numpy_helper.from_array(RNG.normal(0, 0.3, (48, 24)).astype(np.float32), "w"),
        numpy_helper.from_array(RNG.normal(0, 1, 24).astype(np.float32), "b"),
    ]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["p"], name="matmul"),
        helper.make_node("Add", ["p", "b"], ["y"], name="bias"),
    ]
    graph = helper.make_graph(
        nodes,
        "dense",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 48])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5, 24])],
        initializers,
    )
    float_path, path = directory / "float.onnx", directory / "dynamic.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10), float_path)
    quantize_dynamic(str(float_path), str(path), weight_type=QuantType.QInt8)
    model = onnx.load(path)
    assert {"DynamicQuantizeLinear", "MatMulInteger"} <= {n.op_type for n in model.graph.node}
    return str(path)


@pytest.fixture(scope="module")
def dynamic_conv_model(tmp_path_factory) -> str:
    """quantize_dynamic (op_types_to_quantize Conv) of a 3x3 Conv, stride 2, pads 1, 2 groups."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    directory = tmp_path_factory.mktemp("dynamic-conv")
    initializers = [
        numpy_helper.from_array(RNG.normal(0, 0.3, (6, 2, 3, 3)).astype(np.float32), "w"),
        numpy_helper.from_array(RNG.normal(0, 1, 6).astype(np.float32), "b"),
    ]
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv", pads=[1, 1, 1, 1], strides=[2, 2], group=2)
    graph = helper.make_graph(
        [node],
        "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 7, 7])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6, 4, 4])],
        initializers,
    )
    float_path, path = directory / "float.onnx", directory / "dynamic.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10), float_path)
    quantize_dynamic(str(float_path), str(path), weight_type=QuantType.QUInt8, op_types_to_quantize=["Conv"])
    assert "ConvInteger" in {n.op_type for n in onnx.load(path).graph.node}
    return str(path)


def test_conv_integer_is_the_reference_bit_for_bit(dynamic_conv_model):
    module = import_model(dynamic_conv_model)
    OnnxToIntegerPipeline().apply(Context(), module)
    assert "onnx.ConvInteger" not in str(module)
    inputs = {"x": RNG.normal(0, 1, (1, 4, 7, 7)).astype(np.float32)}
    (got,) = bitfold.run(module, inputs).values()
    (want,) = ReferenceEvaluator(onnx.load(dynamic_conv_model)).run(None, inputs)
    np.testing.assert_array_equal(np.asarray(got).view(np.int32), want.view(np.int32))


def _inputs() -> dict[str, np.ndarray]:
    x = RNG.normal(0, 1, (2, 5, 48)).astype(np.float32)
    x[0, 0, :3] = [0.0, -0.0, 5.0]
    return {"x": x}


def test_integer_ir_is_the_reference_bit_for_bit(dynamic_model):
    module = import_model(dynamic_model)
    OnnxToIntegerPipeline().apply(Context(), module)
    text = str(module)
    assert "onnx.DynamicQuantizeLinear" not in text and "onnx.MatMulInteger" not in text
    inputs = _inputs()
    (got,) = bitfold.run(module, inputs).values()
    (want,) = ReferenceEvaluator(dynamic_model).run(None, inputs)
    np.testing.assert_array_equal(np.asarray(got).view(np.int32), want.view(np.int32))
    (runtime,) = run_onnxruntime(dynamic_model, inputs).values()
    np.testing.assert_allclose(got, runtime, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fixture", ["dynamic_model", "dynamic_conv_model"])
def test_host_code_is_bit_exact_to_the_interpreter(fixture, request, tmp_path):
    require_tools("mlir-opt-22", "mlir-translate-22", "clang-22")
    path = request.getfixturevalue(fixture)
    compiled = compile_model(load_module(path), "host")
    shape = [d.dim_value for d in onnx.load(path).graph.input[0].type.tensor_type.shape.dim]
    stored = compiled.quantize({"x": RNG.normal(0, 1, shape).astype(np.float32)})
    (reference,), (native,) = compiled.run_reference(stored), compiled.run_native(stored, tmp_path)
    np.testing.assert_array_equal(native.view(np.int32), reference.view(np.int32))


@pytest.mark.parametrize("fixture", ["dynamic_model", "dynamic_conv_model"])
def test_rv32im_under_qemu_is_bit_exact_to_the_interpreter(fixture, request, tmp_path):
    """The transformer fixture's dynamic form on rv32im, in small (tests/e2e/test_transformer_encoder.py
    runs that fixture on rv64imv; on rv32im it takes minutes)."""
    require_tools("qemu-riscv32", "riscv64-unknown-elf-gcc")
    path = request.getfixturevalue(fixture)
    compiled = compile_model(load_module(path), "rv32im")
    shape = [d.dim_value for d in onnx.load(path).graph.input[0].type.tensor_type.shape.dim]
    stored = compiled.quantize({"x": RNG.normal(0, 1, shape).astype(np.float32)})
    (reference,), (got,) = compiled.run_reference(stored), compiled.run_qemu(stored, tmp_path)
    np.testing.assert_array_equal(np.asarray(got).view(np.int32), np.asarray(reference).view(np.int32))


def test_other_readers_of_the_integers_are_one_line(tmp_path):
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["q", "s", "z"], name="dql"),
        helper.make_node("Cast", ["q"], ["y"], name="cast", to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(
        nodes,
        "dql",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10), tmp_path / "m.onnx")
    module = import_model(str(tmp_path / "m.onnx"))
    with pytest.raises(
        PassFailedException,
        match=r"'onnx.DynamicQuantizeLinear' \(dql\): no lowering for "
        r"DynamicQuantizeLinear's integers read by onnx.Cast",
    ):
        OnnxToIntegerPipeline().apply(Context(), module)
