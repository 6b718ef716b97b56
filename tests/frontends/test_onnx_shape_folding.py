"""Shape computations on static shapes fold into constants at import (frontends/onnx/
shape_folding.py): PyTorch's attention shape subgraph leaves no shape op and computes what
onnxruntime computes; a dynamic shape is one error line naming the node; quantization ops and
weight arithmetic on constants are never folded."""

import numpy as np
import onnx
import onnxruntime
import pytest
from models.shape_computations import SEQUENCE, attention_shapes
from onnx import TensorProto, helper, numpy_helper

import bitfold
from bitfold.frontends import FrontendError
from bitfold.frontends.onnx import import_model

SHAPE_OPS = {"onnx.Shape", "onnx.Size", "onnx.Gather", "onnx.Unsqueeze", "onnx.Concat", "onnx.Slice", "onnx.Cast",
             "onnx.Sqrt", "onnx.Div", "onnx.ConstantOfShape", "onnx.Equal", "onnx.Where", "onnx.Range"}


def op_names(module) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith("onnx.") and op.name != "onnx.Constant"]


def run_onnxruntime(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    return onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)


@pytest.mark.parametrize("opset", [13, 17])
def test_attention_shapes_fold_and_compute_as_onnxruntime(opset):
    model = attention_shapes(opset=opset)
    module = import_model(model.SerializeToString())
    assert op_names(module) == ["onnx.Reshape", "onnx.Transpose", "onnx.Mul", "onnx.Expand", "onnx.Add",
                                "onnx.Transpose", "onnx.Reshape"]
    x = np.random.default_rng(1).standard_normal((2, SEQUENCE, 16)).astype(np.float32)
    (expected,) = run_onnxruntime(model, {"x": x})
    np.testing.assert_array_equal(bitfold.run(module, [x])["y"], expected)


def test_dynamic_shape_is_one_error_naming_the_node():
    with pytest.raises(FrontendError) as error:
        import_model(attention_shapes(batch="batch").SerializeToString(), name="attention.onnx")
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("attention.onnx: node 'shape' (Shape) reads the shape of 'x', which is not static (batchx8x16)")


def model_of(nodes, inputs, outputs, initializers=(), opset=17) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def test_static_part_of_a_dynamic_shape_folds():
    """Shape(x)[1:] of a batch x 4 x 6 input is static: the Reshape keeps the batch with 0."""
    nodes = [
        helper.make_node("Shape", ["x"], ["tail"], name="shape_tail", start=1),
        helper.make_node("ReduceProd", ["tail"], ["features"], name="features", keepdims=1),
        helper.make_node("Concat", ["zero", "features"], ["flat_shape"], name="concat", axis=0),
        helper.make_node("Reshape", ["x", "flat_shape"], ["y"], name="flatten"),
    ]
    model = model_of(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 24])],
        [numpy_helper.from_array(np.array([0], np.int64), "zero")],
    )
    module = import_model(model.SerializeToString())
    assert op_names(module) == ["onnx.Reshape"]
    x = np.arange(3 * 24, dtype=np.float32).reshape(3, 4, 6)
    np.testing.assert_array_equal(bitfold.run(module, [x])["y"], run_onnxruntime(model, {"x": x})[0])


def test_range_constant_of_shape_and_float_shape_arithmetic_fold():
    """An upsampling size computed in float from a shape, a Range of positions up to a Size and a float
    mask from ConstantOfShape: all constants, equal to onnxruntime's."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"], name="shape"),
        helper.make_node("Cast", ["shape"], ["shape_float"], name="to_float", to=TensorProto.FLOAT),
        helper.make_node("Mul", ["shape_float", "factor"], ["scaled"], name="scale"),
        helper.make_node("Floor", ["scaled"], ["floored"], name="floor"),
        helper.make_node("Cast", ["floored"], ["size"], name="to_int", to=TensorProto.INT64),
        helper.make_node("Size", ["x"], ["limit"], name="size"),
        helper.make_node("Range", ["start", "limit", "delta"], ["positions"], name="range"),
        helper.make_node("ConstantOfShape", ["size"], ["mask"], name="mask",
                         value=numpy_helper.from_array(np.array([0.5], np.float32))),
    ]
    model = model_of(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in
         [("size", TensorProto.INT64, [2]), ("positions", TensorProto.INT64, [2]), ("mask", TensorProto.FLOAT, [3, 4])]],
        [numpy_helper.from_array(v, n) for n, v in [("factor", np.array(1.5, np.float32)), ("start", np.array(2, np.int64)),
                                                    ("delta", np.array(3, np.int64))]],
    )
    module = import_model(model.SerializeToString())
    assert op_names(module) == []
    x = np.zeros((2, 3), np.float32)
    got = bitfold.run(module, [x])
    for name, expected in zip(["size", "positions", "mask"], run_onnxruntime(model, {"x": x})):
        np.testing.assert_array_equal(got[name], expected)


def test_quantization_and_weight_arithmetic_stay():
    """QuantizeLinear of a constant weight (an int8 output of constant inputs), a Transpose of
    int8 weights and float arithmetic on weights are the quant form's to read: kept."""
    nodes = [
        helper.make_node("QuantizeLinear", ["w", "scale"], ["w_q"], name="quantize_w"),
        helper.make_node("Transpose", ["w_q"], ["w_qt"], name="transpose_w"),
        helper.make_node("DequantizeLinear", ["w_qt", "scale"], ["w_dq"], name="dequantize_w"),
        helper.make_node("Mul", ["w_dq", "two"], ["w_2"], name="double_w"),
        helper.make_node("MatMul", ["x", "w_2"], ["y"], name="matmul"),
    ]
    model = model_of(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])],
        [numpy_helper.from_array(np.arange(9, dtype=np.float32).reshape(3, 3) / 10, "w"),
         numpy_helper.from_array(np.array(0.1, np.float32), "scale"), numpy_helper.from_array(np.array(2, np.float32), "two")],
    )
    module = import_model(model.SerializeToString())
    assert op_names(module) == ["onnx.QuantizeLinear", "onnx.Transpose", "onnx.DequantizeLinear", "onnx.Mul", "onnx.MatMul"]


def test_huge_range_is_not_evaluated():
    """A Range of 2**40 elements stays a node (bitfold has no Range op: one error line), never
    an allocation."""
    model = model_of(
        [helper.make_node("Range", ["start", "limit", "delta"], ["positions"], name="huge_range")],
        [], [helper.make_tensor_value_info("positions", TensorProto.INT64, [2**40])],
        [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in [("start", 0), ("limit", 2**40), ("delta", 1)]],
    )
    with pytest.raises(FrontendError, match="huge_range"):
        import_model(model.SerializeToString())
