"""The graph walk: signatures, constants, optional operands and dynamic quantization
parameters, checked against onnxruntime where values are computed."""

import numpy as np
import onnx
from models.runners import onnxruntime_session
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

import bitfold
from bitfold.dialects.onnx.constant import ConstantOp
from bitfold.frontends.onnx import import_model
from bitfold.interpreter import entry_function

IR_VERSION = 8
"""Readable by onnxruntime 1.31."""


def make_model(nodes, inputs, outputs, initializers=(), opset=21) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR_VERSION)


def run_both(model: onnx.ModelProto, inputs: dict[str, np.ndarray]):
    expected = onnxruntime_session(model).run(None, inputs)
    got = bitfold.run(import_model(model.SerializeToString()), list(inputs.values()))
    return list(got.values()), expected


def test_dynamic_quantization_parameters_run():
    """DynamicQuantizeLinear's scale and zero point are values, not constants: QuantizeLinear
    and DequantizeLinear take them as operands."""
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["q", "scale", "zero_point"], name="dynamic"),
        helper.make_node("DequantizeLinear", ["q", "scale", "zero_point"], ["y"], name="dequantize"),
        helper.make_node("QuantizeLinear", ["x2", "scale", "zero_point"], ["q2"], name="requantize"),
    ]
    model = make_model(
        nodes,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 5]) for n in ("x", "x2")],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5]),
         helper.make_tensor_value_info("q2", TensorProto.UINT8, [2, 5])],
    )
    rng = np.random.default_rng(1)
    inputs = {"x": rng.normal(size=(2, 5)).astype(np.float32), "x2": rng.normal(size=(2, 5)).astype(np.float32) * 3}
    got, expected = run_both(model, inputs)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


def test_absent_optional_input_in_the_middle():
    """An empty input name is an absent optional operand; later inputs keep their place."""
    weights = numpy_helper.from_array(np.arange(-4, 4, dtype=np.int8).reshape(2, 1, 2, 2), "w")
    w_zero_point = numpy_helper.from_array(np.array(1, np.int8), "w_zero_point")
    node = helper.make_node("ConvInteger", ["x", "w", "", "w_zero_point"], ["y"], name="conv")
    model = make_model(
        [node], [helper.make_tensor_value_info("x", TensorProto.INT8, [1, 1, 3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [1, 2, 2, 2])], [weights, w_zero_point], opset=10,
    )
    function = entry_function(import_model(model.SerializeToString()))
    conv = next(op for op in function.walk() if op.name == "onnx.ConvInteger")
    assert conv.x_zero_point is None and conv.w_zero_point is not None
    got, expected = run_both(model, {"x": np.arange(9, dtype=np.int8).reshape(1, 1, 3, 3) - 4})
    np.testing.assert_array_equal(got[0], expected[0])


def test_signature_names_and_types():
    model = make_model(
        [helper.make_node("Relu", ["input:0"], ["output.1"], name="relu")],
        [helper.make_tensor_value_info("input:0", TensorProto.FLOAT, ["batch", 3])],
        [helper.make_tensor_value_info("output.1", TensorProto.FLOAT, ["batch", 3])],
    )
    function = entry_function(import_model(model.SerializeToString()))
    assert function.sym_name.data == "g"
    assert str(function.function_type) == "(tensor<?x3xf32>) -> tensor<?x3xf32>"
    assert [a.data["onnx.name"].data for a in function.arg_attrs] == ["input:0"]
    assert [a.data["onnx.name"].data for a in function.res_attrs] == ["output.1"]
    # xDSL keeps `input_0` as the hint `input` (it drops `_<digits>`): the exact names are the
    # `onnx.name` attributes.
    assert function.args[0].name_hint == "input"


def test_initializers_keep_their_values_and_types():
    """Constants come from the tensors' bytes: int4 (unpacked), uint8, float16, bool, int64."""
    arrays = {
        "int4": (numpy_helper.from_array(np.array([-8, 7, 3], dtype=np.int8).astype(onnx.helper.tensor_dtype_to_np_dtype(TensorProto.INT4)), "int4"), "tensor<3xi4>", [-8, 7, 3]),
        "uint8": (numpy_helper.from_array(np.array([[0, 255]], np.uint8), "uint8"), "tensor<1x2xui8>", [0, 255]),
        "float16": (numpy_helper.from_array(np.array([0.5, -2], np.float16), "float16"), "tensor<2xf16>", [0.5, -2.0]),
        "bool": (numpy_helper.from_array(np.array([True, False]), "bool"), "tensor<2xi1>", [1, 0]),
        "int64": (numpy_helper.from_array(np.array(-(2**40), np.int64), "int64"), "tensor<i64>", [-(2**40)]),
    }
    outputs = [helper.make_tensor_value_info(name, t.data_type, t.dims) for name, (t, _, _) in arrays.items()]
    model = make_model([], [], outputs, [t for t, _, _ in arrays.values()])
    function = entry_function(import_model(model.SerializeToString()))
    constants = {op.output.name_hint: op.value for op in function.walk() if isinstance(op, ConstantOp)}
    for name, (_, type_text, values) in arrays.items():
        value = constants[name]
        assert isinstance(value, DenseIntOrFPElementsAttr)
        assert str(value.type) == type_text
        assert list(value.get_values()) == values


def test_numeric_value_names_survive_rewrites():
    """TorchScript names values by number (`15`, PyTorch's exporter behind Brevitas): such a name
    leaves no SSA hint (xDSL would shorten `_15` to the empty hint and refuse it in the next
    rewrite), and onnx-to-quant, which replaces those values, runs; the graph output keeps its name."""
    from xdsl.transforms.canonicalize import CanonicalizePass

    from bitfold.load import full_context
    from bitfold.passes.onnx_to_quant import OnnxToQuantPass

    scale = numpy_helper.from_array(np.array(0.25, np.float32), "7")
    zero_point = numpy_helper.from_array(np.array(3, np.uint8), "8")
    nodes = [helper.make_node("QuantizeLinear", ["0", "7", "8"], ["12"], name="q"),
             helper.make_node("DequantizeLinear", ["12", "7", "8"], ["15"], name="dq")]
    model = make_model(nodes, [helper.make_tensor_value_info("0", TensorProto.FLOAT, [2, 3])],
                       [helper.make_tensor_value_info("15", TensorProto.FLOAT, [2, 3])], [scale, zero_point])
    module = import_model(model.SerializeToString())
    function = entry_function(module)
    assert function.args[0].name_hint is None
    ctx = full_context()
    OnnxToQuantPass().apply(ctx, module)
    CanonicalizePass().apply(ctx, module)
    x = {"0": np.array([[-1.0, 0.1, 0.375], [2.0, 60.0, -0.125]], np.float32)}
    expected = onnxruntime_session(model).run(None, x)[0]
    np.testing.assert_array_equal(bitfold.run(module, x)["15"], expected)
