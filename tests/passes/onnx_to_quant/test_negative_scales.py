"""DequantizeLinear with negative scales (onnxruntime's symmetric int4 quantizer writes them;
onnx.checker and onnxruntime accept them): imported as they are, and folded by onnx-to-quant
into weights negated under positive scales, bit for bit what onnxruntime dequantizes; a
negated -128 of int8 widens the storage; negative scales on computed integers are refused
with one line naming the node."""

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context
from xdsl.utils.exceptions import PassFailedException

import bitfold
from bitfold.dialects.quant import element_type
from bitfold.frontends.onnx import import_model
from bitfold.passes.onnx_to_quant import OnnxToQuantPass
from bitfold.passes.pipelines import OnnxToIntegerPipeline

X_SCALE = 0.05
Y_SCALE = 0.1


def weights_model(weights: np.ndarray, scales: np.ndarray, zero_points: np.ndarray | None, opset: int,
                  block_size: int = 0) -> onnx.ModelProto:
    """x (2 x K) -> QDQ int8 -> MatMul with DequantizeLinear(weights, scales per column, zero
    points) -> QDQ int8 -> y; the dequantized weights are a second output, w."""
    initializers = [
        numpy_helper.from_array(weights, "w_q"), numpy_helper.from_array(scales, "w_scale"),
        numpy_helper.from_array(np.array(X_SCALE, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(Y_SCALE, np.float32), "y_scale"),
    ]
    w_inputs = ["w_q", "w_scale"]
    if zero_points is not None:
        initializers.append(numpy_helper.from_array(zero_points, "w_zero_point"))
        w_inputs.append("w_zero_point")
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale"], ["x_q"], name="quantize_x"),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale"], ["x_dq"], name="dequantize_x"),
        helper.make_node("DequantizeLinear", w_inputs, ["w"], name="dequantize_w", axis=0 if block_size else 1,
                         **({"block_size": block_size} if block_size else {})),
        helper.make_node("MatMul", ["x_dq", "w"], ["product"], name="matmul"),
        helper.make_node("QuantizeLinear", ["product", "y_scale"], ["y_q"], name="quantize_y"),
        helper.make_node("DequantizeLinear", ["y_q", "y_scale"], ["y"], name="dequantize_y"),
    ]
    k, n = weights.shape
    graph = helper.make_graph(
        nodes, "negative_scales", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, n]), helper.make_tensor_value_info("w", TensorProto.FLOAT, [k, n])],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


RNG = np.random.default_rng(20)


def int4_symmetric() -> onnx.ModelProto:
    """int4 weights in [-8, 7] with half the column scales negative, no zero point (opset 21):
    a negated -8 widens i4 to hold 8."""
    weights = RNG.integers(-8, 8, (6, 4)).astype(np.int8)
    weights[0, 1] = -8
    scales = np.array([0.02, -0.03, -0.011, 0.04], np.float32)
    model = weights_model(weights, scales, None, 21)
    model.graph.initializer[0].CopyFrom(helper.make_tensor("w_q", TensorProto.INT4, weights.shape, weights.flatten().tolist()))
    return model


def int8_with_zero_points() -> onnx.ModelProto:
    """int8 weights (with -128 and 127 in a negated column) and zero points (opset 13)."""
    weights = RNG.integers(-128, 128, (5, 3)).astype(np.int8)
    weights[:2, 2] = [-128, 127]
    return weights_model(weights, np.array([0.01, -0.02, -0.005], np.float32), np.array([3, -4, 0], np.int8), 13)


def int4_blocked() -> onnx.ModelProto:
    """int4 weights (8 x 3) in blocks of 4 along K (axis 0), as onnxruntime's blockwise int4
    quantizer lays them out (opset 21), some block scales negative."""
    weights = RNG.integers(-8, 8, (8, 3)).astype(np.int8)
    scales = np.array([[0.02, -0.03, 0.01], [-0.04, 0.05, -0.015]], np.float32)
    model = weights_model(weights, scales, None, 21, block_size=4)
    model.graph.initializer[0].CopyFrom(helper.make_tensor("w_q", TensorProto.INT4, weights.shape, weights.flatten().tolist()))
    return model


MODELS = {"int4_symmetric": int4_symmetric, "int8_with_zero_points": int8_with_zero_points, "int4_blocked": int4_blocked}


def onnxruntime_outputs(model: onnx.ModelProto, x: np.ndarray) -> dict[str, np.ndarray]:
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return dict(zip(["y", "w"], session.run(None, {"x": x})))


def converted(module, pass_):
    module = module.clone()
    ctx = Context()
    bitfold.register_into(ctx)
    pass_.apply(ctx, module)
    module.verify()
    return module


@pytest.mark.parametrize("name", sorted(MODELS))
def test_negative_scales_fold_bit_exactly(name):
    model = MODELS[name]()
    onnx.checker.check_model(model)
    x = np.random.default_rng(1).standard_normal((2, model.graph.input[0].type.tensor_type.shape.dim[1].dim_value))
    x = x.astype(np.float32)
    expected = onnxruntime_outputs(model, x)
    imported = import_model(model.SerializeToString())
    quant_form = converted(imported, OnnxToQuantPass())
    assert not [op for op in quant_form.walk() if op.name == "onnx.DequantizeLinear"]
    for module in (imported, quant_form):
        got = bitfold.run(module, [x])
        np.testing.assert_array_equal(got["w"], expected["w"])  # the dequantized weights, bit for bit
        # the product sums in float64 (onnxruntime in float32): at most one step of y apart
        assert np.max(np.abs(got["y"] - expected["y"])) <= Y_SCALE * (1 + 1e-6)
    np.testing.assert_array_equal(bitfold.run(quant_form, [x])["y"], bitfold.run(imported, [x])["y"])
    integer = converted(imported, OnnxToIntegerPipeline())
    assert np.max(np.abs(bitfold.run(integer, [x])["y"] - expected["y"])) <= Y_SCALE * (1 + 1e-6)


def test_negated_minimum_widens_the_storage():
    quant_form = converted(import_model(int8_with_zero_points().SerializeToString()), OnnxToQuantPass())
    (weight_type,) = [element_type(op.operands[0].type) for op in quant_form.walk()
                      if op.name == "quant.dcast" and op.results[0].name_hint == "w"]
    assert weight_type.value_range() == (-128, 128)
    assert weight_type.storage_width == 16
    assert weight_type.zero_point_values() == (3, 4, 0)
    assert "0.019999999552965164:4" in str(weight_type)  # |-0.02| with the zero point negated


def test_negative_scale_on_computed_integers_is_refused():
    model = weights_model(np.ones((2, 2), np.int8), np.array([0.1, -0.1], np.float32), None, 13)
    nodes = list(model.graph.node)
    nodes.insert(0, helper.make_node("Identity", ["w_raw"], ["w_q"], name="copy_w"))
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    model.graph.initializer[0].name = "w_raw"
    with pytest.raises(PassFailedException, match=r"^onnx-to-quant: 'onnx.DequantizeLinear' \(dequantize_w\): a negative scale is supported on constant integers only"):
        converted(import_model(model.SerializeToString()), OnnxToQuantPass())
