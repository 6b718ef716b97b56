"""Malformed quantization models of issue 13: each is refused in one line naming the node (the
oracles, onnxruntime and qonnx, refuse them too, or bitfold's documented policy does), and
the well-formed neighbours of each run as onnxruntime runs them."""

import numpy as np
import onnx
import pytest
from models.runners import onnxruntime_session
from onnx import TensorProto, helper, numpy_helper
from qonnx.custom_op.general.intquant import resolve_rounding_mode

import bitfold
from bitfold.frontends import FrontendError
from bitfold.frontends.onnx import import_model

QONNX_DOMAIN = "qonnx.custom_op.general"


def qdq_model(op_type: str, x_type: int, x_shape, y_type: int, parameters: dict, opset: int, **attributes) -> onnx.ModelProto:
    """One QuantizeLinear or DequantizeLinear node, its scale and zero point initializers."""
    names = ["x", *parameters]
    node = helper.make_node(op_type, names, ["y"], name="q", **attributes)
    initializers = [numpy_helper.from_array(np.asarray(v), n) for n, v in parameters.items()]
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", x_type, x_shape)],
                              [helper.make_tensor_value_info("y", y_type, x_shape)], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def quantize(x_shape, scale, zero_point, opset=21, **attributes) -> onnx.ModelProto:
    zero_point = np.asarray(zero_point)
    y_type = helper.np_dtype_to_tensor_dtype(zero_point.dtype)
    return qdq_model("QuantizeLinear", TensorProto.FLOAT, x_shape, y_type,
                     {"scale": np.asarray(scale), "zero_point": zero_point}, opset, **attributes)


def onnxruntime_run(model: onnx.ModelProto, x: np.ndarray):
    return onnxruntime_session(model, optimize=True).run(None, {"x": x})[0]


def onnxruntime_refuses(model: onnx.ModelProto, x: np.ndarray) -> bool:
    try:
        onnxruntime_run(model, x)
    except Exception:  # noqa: BLE001 - the oracle's refusal comes as any of its exception types
        return True
    return False


def bitfold_refuses(model: onnx.ModelProto) -> str:
    with pytest.raises(FrontendError) as error:
        import_model(model.SerializeToString(), name="m.onnx")
    message = str(error.value)
    assert "\n" not in message
    return message


ORT_REFUSED = {
    "int16 zero point at opset 13": (quantize([4], np.float32(0.5), np.int16(0), opset=13), "unsupported type: tensor(int16)"),
    "int32 scale": (quantize([4], np.int32(1), np.int8(0), opset=13), "unsupported type: tensor(int32)"),
    "float64 scale": (quantize([4], np.float64(1), np.int8(0), opset=13), "unsupported type: tensor(double)"),
    "float zero point": (qdq_model("QuantizeLinear", TensorProto.FLOAT, [4], TensorProto.FLOAT,
                                   {"scale": np.float32(1), "zero_point": np.float32(0)}, 13), "unsupported type: tensor(float)"),
    "axis 5 on rank 2": (quantize([2, 4], np.ones(4, np.float32), np.zeros(4, np.int8), axis=5),
                         "'axis' 5 is out of range for an input of rank 2"),
    "scale count mismatch": (quantize([2, 4], np.ones(3, np.float32), np.zeros(3, np.int8), axis=1),
                             "'y_scale' must be 1-D of 4 elements (per axis 1), got shape [3]"),
    "zero point count mismatch": (quantize([2, 4], np.ones(4, np.float32), np.zeros(3, np.int8), axis=1),
                                  "'y_zero_point' must be 1-D of 4 elements (per axis 1), got shape [3]"),
    "block_size 0 with a 2-D scale": (quantize([2, 4], np.ones((2, 2), np.float32), np.zeros((2, 2), np.int8), axis=1, block_size=0),
                                      "'y_scale' must be 1-D of 4 elements"),
    "block_size -1": (quantize([2, 4], np.ones((2, 2), np.float32), np.zeros((2, 2), np.int8), axis=1, block_size=-1),
                      "'block_size' must be non-negative, got -1"),
    "block_size 3 with one block on 4": (quantize([2, 4], np.ones((2, 1), np.float32), np.zeros((2, 1), np.int8), axis=1, block_size=3),
                                         "'y_scale' must be of shape [2, 2] (blocks of 3 along axis 1), got shape [2, 1]"),
}


@pytest.mark.parametrize("case", ORT_REFUSED)
def test_what_onnxruntime_refuses_is_one_line(case):
    model, message = ORT_REFUSED[case]
    assert onnxruntime_refuses(model, np.ones([d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim], np.float32))
    assert message in bitfold_refuses(model)


ORT_ACCEPTED = {
    "int16 zero point at opset 21": quantize([4], np.float32(0.5), np.int16(3)),
    "blocks of 3 on 4 (two blocks)": quantize([2, 4], np.float32([[1, 2], [0.5, 4]]), np.int8([[0, 1], [2, 3]]), axis=1, block_size=3),
    "per axis": quantize([2, 4], np.float32([1, 2, 0.5, 4]), np.int8([0, 1, 2, 3]), axis=1),
    "NaN and infinities into int8": quantize([2, 4], np.float32(0.5), np.int8(1)),
    "NaN and infinities into uint8": quantize([2, 4], np.float32(0.5), np.uint8(1)),
}


@pytest.mark.parametrize("case", ORT_ACCEPTED)
def test_accepted_neighbours_agree_with_onnxruntime(case):
    model = ORT_ACCEPTED[case]
    x = np.array([[np.nan, np.inf, -np.inf, 1.2], [-3.7, 100.0, -1e9, 0.25]], np.float32)
    x = x[0] if case.startswith("int16") else x
    (got,) = bitfold.run(import_model(model.SerializeToString()), {"x": x}).values()
    np.testing.assert_array_equal(got, onnxruntime_run(model, x))


@pytest.mark.parametrize("scale", [np.nan, np.inf, 0.0, -0.5])
def test_scales_must_be_finite_and_positive(scale):
    """bitfold's policy (onnxruntime divides by them silently)."""
    message = bitfold_refuses(quantize([4], np.float32(scale), np.int8(0)))
    assert "'y_scale' must be finite and positive" in message and "node 'q' (QuantizeLinear)" in message


def test_output_dtype_must_agree_with_the_zero_point():
    model = quantize([4], np.float32(1), np.int8(0), output_dtype=TensorProto.UINT8)
    assert onnxruntime_refuses(model, np.ones(4, np.float32))
    bitfold_refuses(model)


def qonnx_model(op_type: str, inputs: dict, **attributes) -> onnx.ModelProto:
    node = helper.make_node(op_type, ["x", *inputs], ["y"], name="qn", domain=QONNX_DOMAIN, **attributes)
    initializers = [numpy_helper.from_array(np.asarray(v, np.float32), n) for n, v in inputs.items()]
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(QONNX_DOMAIN, 2)])


def quant(bitwidth=8.0, **attributes):
    return qonnx_model("Quant", {"scale": 0.5, "zeropt": 0.0, "bitwidth": bitwidth}, **attributes)


def trunc(output_bit_width=4.0):
    return qonnx_model("Trunc", {"scale": 0.5, "zeropt": 0.0, "in_bits": 8.0, "out_scale": 2.0, "out_bits": output_bit_width})


QONNX_REFUSED = {
    "signed 7": (quant(signed=7), "'signed' must be 0 or 1, got 7"),
    "narrow -1": (quant(narrow=-1), "'narrow' must be 0 or 1, got -1"),
    "bit width 0": (quant(0.0), "'bitwidth' must be an integer in [1, 64], got 0.0"),
    "bit width NaN": (quant(np.nan), "'bitwidth' must be an integer in [1, 64], got nan"),
    "bit width -1": (quant(-1.0), "'bitwidth' must be an integer in [1, 64], got -1.0"),
    "bit width 2.5": (quant(2.5), "'bitwidth' must be an integer in [1, 64], got 2.5"),
    "bit width inf": (quant(np.inf), "'bitwidth' must be an integer in [1, 64], got inf"),
    "bit width 65": (quant(65.0), "'bitwidth' must be an integer in [1, 64], got 65.0"),
    "two bit widths": (quant(np.array([4.0, 8.0])), "'bitwidth' must hold one value, got 2"),
    "Trunc out_bits 0": (trunc(0.0), "'output_bit_width' must be an integer in [1, 64], got 0.0"),
    "BipolarQuant scale 0": (qonnx_model("BipolarQuant", {"scale": 0.0}), "'scale' must be finite and positive"),
}


@pytest.mark.parametrize("case", QONNX_REFUSED)
def test_malformed_qonnx_nodes_are_one_line(case):
    model, message = QONNX_REFUSED[case]
    assert f"node 'qn' ({model.graph.node[0].op_type}): {message}" in bitfold_refuses(model)


def test_unknown_rounding_mode_is_refused_as_qonnx_refuses_it():
    with pytest.raises(ValueError, match="Could not resolve rounding mode called: BANANA"):
        resolve_rounding_mode("BANANA")  # the oracle
    assert "unknown rounding_mode 'BANANA'" in bitfold_refuses(quant(rounding_mode="BANANA"))


def test_negative_dimension_is_one_line():
    model = quantize([4], np.float32(1), np.int8(0))
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = -4
    model.graph.output[0].type.tensor_type.shape.dim[0].dim_value = -4
    assert "negative dimension" in bitfold_refuses(model)


def add_model(weight: onnx.TensorProto, shape) -> onnx.ModelProto:
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], [weight])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_initializer_with_too_much_data_is_one_line():
    weight = numpy_helper.from_array(np.ones(4, np.float32), "w")
    weight.float_data.extend([1.0] * 5)
    weight.ClearField("raw_data")
    assert "initializer 'w' holds data that does not fit its shape [4]" in bitfold_refuses(add_model(weight, [4]))


def test_initializer_with_too_little_data_is_one_line():
    weight = numpy_helper.from_array(np.ones(4, np.float32), "w")
    weight.raw_data = weight.raw_data[:8]
    assert "too small" in bitfold_refuses(add_model(weight, [4]))


def test_huge_declared_input_is_refused_before_allocation():
    weight = numpy_helper.from_array(np.ones(1, np.float32), "w")
    assert "input 'x' has 100,000,000,000 elements" in bitfold_refuses(add_model(weight, [10**11]))


def test_pad_by_a_billion_is_refused_at_import():
    pads = numpy_helper.from_array(np.array([0, 10**9], np.int64), "pads")
    graph = helper.make_graph([helper.make_node("Pad", ["x", "pads"], ["y"], name="pad")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])], [pads])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    assert "1,000,000,004 elements" in bitfold_refuses(model)


def test_reshape_to_a_million_squared_is_refused_at_import():
    shape = numpy_helper.from_array(np.array([10**6, 10**6], np.int64), "shape")
    graph = helper.make_graph([helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, None])], [shape])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    bitfold_refuses(model)


# Cases the fuzz suite found (tests/fuzz), each refused in one line as onnxruntime refuses it.


def test_clip_bounds_must_be_scalars():
    graph = helper.make_graph([helper.make_node("Clip", ["x", "lo"], ["y"], name="clip")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
                              [numpy_helper.from_array(np.zeros((2, 2), np.float32), "lo")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    assert onnxruntime_refuses(model, np.ones(4, np.float32))
    assert "'min' must be a scalar" in bitfold_refuses(model)


def test_precision_must_be_a_float_type():
    model = quantize([4], np.float32(1), np.int8(0), opset=23, precision=TensorProto.INT64)
    assert onnxruntime_refuses(model, np.ones(4, np.float32))
    assert "'precision' 7 is not 0, FLOAT, FLOAT16, DOUBLE or BFLOAT16" in bitfold_refuses(model)


def test_graph_output_without_element_type():
    model = quantize([4], np.float32(1), np.int8(0))
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.UNDEFINED
    assert onnxruntime_refuses(model, np.ones(4, np.float32))
    assert "graph input or output 'y' has no element type" in bitfold_refuses(model)


def test_declared_output_type_disagreeing_with_the_node():
    model = qdq_model("DequantizeLinear", TensorProto.INT8, [4], TensorProto.UINT8,
                      {"scale": np.float32(1), "zero_point": np.int8(0)}, 13)
    assert onnxruntime_refuses(model, np.ones(4, np.int8))
    assert "Inferred elem type differs from existing elem type" in bitfold_refuses(model)


def test_qonnx_result_must_be_float_like_x():
    model = quant()
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.UINT4
    assert "the result must be a float tensor like x's" in bitfold_refuses(model)


def test_non_utf8_string_attribute():
    model = quant(rounding_mode="ROUND")
    next(a for a in model.graph.node[0].attribute if a.name == "rounding_mode").s = b"\xff"
    message = bitfold_refuses(model)
    assert "attribute 'rounding_mode' " in message and "is not UTF-8 text" in message


def test_standard_node_on_a_qonnx_result_of_a_wrong_type():
    model = quant()
    model.graph.input[0].type.tensor_type.elem_type = TensorProto.INT16
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.INT16
    bitfold_refuses(model)


def test_names_that_are_not_utf8():
    model = quantize([4], np.float32(1), np.int8(0))
    model.graph.name = "fuzzname"
    data = model.SerializeToString().replace(b"fuzzname", b"f\xdazzname")
    with pytest.raises(FrontendError, match="a name in the graph is not UTF-8 text"):
        import_model(data)
