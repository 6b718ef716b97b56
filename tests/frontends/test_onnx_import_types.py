"""Value types of ops onnx has no schemas for: each com.microsoft and QONNX op class states its
result types, and onnx's inference continues from them through the standard ops after it."""

import numpy as np
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects import func

from bitfold.frontends.onnx import import_model


def result_types(model) -> dict[str, str]:
    """Op name -> its result type, as text, of the imported model's function."""
    function = import_model(model.SerializeToString()).body.block.first_op
    assert isinstance(function, func.FuncOp)
    return {op.name: str(op.results[0].type) for op in function.body.ops if op.results}


def initializer(name: str, value, dtype) -> TensorProto:
    return numpy_helper.from_array(np.array(value, dtype=dtype), name)


def test_contrib_chain_is_typed_through_standard_ops():
    """QGemm (transB) -> QLinearAveragePool -> standard DequantizeLinear -> Flatten."""
    nodes = [
        helper.make_node("QGemm", ["x", "s", "z", "w", "s", "z", "", "s", "z"], ["g"], domain="com.microsoft", transB=1),
        helper.make_node("Reshape", ["g", "shape"], ["r"]),
        helper.make_node("QLinearAveragePool", ["r", "s", "z", "s", "z"], ["p"], domain="com.microsoft",
                         kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
        helper.make_node("DequantizeLinear", ["p", "s", "z"], ["d"]),
        helper.make_node("Flatten", ["d"], ["y"]),
    ]
    initializers = [
        initializer("s", 0.1, np.float32), initializer("z", 3, np.uint8),
        initializer("w", np.ones((30, 4)), np.uint8), initializer("shape", [2, 1, 5, 6], np.int64),
    ]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.UINT8, [2, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b"])], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    types = result_types(model)
    assert types["onnx.QGemm"] == "tensor<2x30xui8>"
    assert types["onnx.QLinearAveragePool"] == "tensor<2x1x3x3xui8>"
    assert types["onnx.Flatten"] == "tensor<2x9xf32>"


def test_contrib_quantize_linear_and_qonnx_quant_are_typed():
    nodes = [
        helper.make_node("Quant", ["x", "s", "f0", "bits"], ["q"], domain="qonnx.custom_op.general"),
        helper.make_node("QuantizeLinear", ["q", "s", "z4"], ["i"], domain="com.microsoft"),
        helper.make_node("DequantizeLinear", ["i", "s", "z4"], ["y"], domain="com.microsoft"),
    ]
    initializers = [
        initializer("s", 0.5, np.float32), initializer("f0", 0.0, np.float32), initializer("bits", 4.0, np.float32),
        numpy_helper.from_array(np.array(1, dtype=np.int8), "z4"),
    ]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, "n"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, "n"])], initializers)
    opsets = [helper.make_opsetid(d, 1) for d in ("com.microsoft", "qonnx.custom_op.general")]
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), *opsets])
    types = result_types(model)
    assert types["qonnx.Quant"] == "tensor<3x?xf32>"
    assert types["onnx.QuantizeLinear"] == "tensor<3x?xi8>"
    assert types["onnx.DequantizeLinear"] == "tensor<3x?xf32>"


def test_declared_symbolic_dimensions_are_refined_by_the_op_class():
    """Brevitas declares each QONNX Quant output with symbols (`Quantq_dim_0`, ...), and the graph
    output too: the Quant's op class numbers them, and onnx's inference carries the numbers through
    the standard ops after it (a nearest Resize by constant scales) to the output. A declared
    number stays."""
    nodes = [
        helper.make_node("Quant", ["x", "s", "f0", "bits"], ["q"], domain="qonnx.custom_op.general"),
        helper.make_node("Resize", ["q", "roi", "scales"], ["r"], mode="nearest"),
        helper.make_node("Quant", ["r", "s", "f0", "bits"], ["y"], domain="qonnx.custom_op.general"),
    ]
    initializers = [
        initializer("s", 0.5, np.float32), initializer("f0", 0.0, np.float32), initializer("bits", 4.0, np.float32),
        initializer("roi", [], np.float32), initializer("scales", [1, 1, 2, 2], np.float32),
    ]
    symbols = [f"Quantq_dim_{i}" for i in range(4)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "c", "h", "w"])], initializers,
                              value_info=[helper.make_tensor_value_info("q", TensorProto.FLOAT, symbols)])
    opsets = [helper.make_opsetid("", 11), helper.make_opsetid("qonnx.custom_op.general", 1)]
    model = helper.make_model(graph, opset_imports=opsets)
    function = import_model(model.SerializeToString()).body.block.first_op
    assert isinstance(function, func.FuncOp)
    assert [str(op.results[0].type) for op in function.body.ops if op.name in ("qonnx.Quant", "onnx.Resize")] == [
        "tensor<1x2x3x4xf32>", "tensor<1x2x6x8xf32>", "tensor<1x2x6x8xf32>"]
    assert str(function.function_type.outputs.data[0]) == "tensor<1x2x6x8xf32>"
