"""Unary activations on quantized values as lookup tables (`passes/quant_to_integer/tables.py`),
on QDQ models built here (`x -> Q -> DQ -> op -> Q -> DQ`, every stored input value fed once)
and on models onnxruntime's `quantize_static` quantized (QDQ Sigmoid / Tanh, QOperator
QLinearSigmoid / QLinearLeakyRelu):

- bitfold-run on the imported model against onnxruntime (ORT_DISABLE_ALL): within one output
  step. onnxruntime computes Sigmoid, Tanh, Exp, Elu, Selu, Celu, Softplus and Softsign in
  float32 with its own approximations, so a value next to a rounding boundary of the output
  grid can round to the neighbouring step (66 of the 65536 entries of the 16-bit Sigmoid
  below, none of the 8-bit tables); LeakyRelu, HardSigmoid, HardSwish, ThresholdedRelu and
  the QLinear tables are bit-exact to it.
- the integer IR (quant-to-integer, then lower-quant) bit-exact to bitfold-run on the imported
  model: the tables are the references' own numbers;
- rv32im (and rv64im for the quantize_static models) under qemu bit-exact to bitfold-run on
  the integer IR."""

import numpy as np
import onnx
import pytest
from models.float_models import IR_VERSION
from models.quantized import QuantConfig, quantize
from models.runners import onnxruntime_session
from onnx import TensorProto, helper, numpy_helper

import bitfold
from bitfold.compile import compile_model
from bitfold.load import full_context, load_module
from bitfold.passes.canonicalize_quant import CanonicalizeQuantPass
from bitfold.passes.lower_quant import LowerQuantPass
from bitfold.passes.onnx_to_quant import OnnxToQuantPass
from bitfold.passes.quant_to_integer import QuantToIntegerPass

ONNX_TYPES = {
    np.uint8: TensorProto.UINT8,
    np.int8: TensorProto.INT8,
    np.uint16: TensorProto.UINT16,
    np.int16: TensorProto.INT16,
}


def one_input_model(name: str, nodes, initializers, x_shape, y_name: str, y_shape, opset: int) -> onnx.ModelProto:
    """A checked ai.onnx model of `nodes`: float input "x", float output `y_name`."""
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info(y_name, TensorProto.FLOAT, y_shape)],
        initializers,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def qdq_activation(op_type: str, attributes: dict, opset: int, x_type, x_param, y_type, y_param) -> onnx.ModelProto:
    """x -> QuantizeLinear(x_param) -> DequantizeLinear -> op -> QuantizeLinear(y_param) -> DequantizeLinear."""
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="x_q"),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="x_dq"),
        helper.make_node(op_type, ["xd"], ["a"], name="act", **attributes),
        helper.make_node("QuantizeLinear", ["a", "ys", "yz"], ["aq"], name="a_q"),
        helper.make_node("DequantizeLinear", ["aq", "ys", "yz"], ["y"], name="a_dq"),
    ]
    initializers = [
        numpy_helper.from_array(np.array(x_param[0], np.float32), "xs"),
        numpy_helper.from_array(np.array(x_param[1], x_type), "xz"),
        numpy_helper.from_array(np.array(y_param[0], np.float32), "ys"),
        numpy_helper.from_array(np.array(y_param[1], y_type), "yz"),
    ]
    count = np.iinfo(x_type).max - np.iinfo(x_type).min + 1
    return one_input_model(op_type.lower(), nodes, initializers, [1, count], "y", [1, count], opset)


def every_stored_value(x_type, x_param) -> np.ndarray:
    """The real values of every stored value of the input type: the quantizer gives them back."""
    info = np.iinfo(x_type)
    stored = np.arange(info.min, info.max + 1, dtype=np.int64)
    return ((stored - x_param[1]) * np.float32(x_param[0])).astype(np.float32).reshape(1, -1)


HAND_BUILT = [
    pytest.param("Sigmoid", {}, 13, np.uint8, (0.05, 128), np.uint8, (1 / 256, 0), id="sigmoid-u8"),
    pytest.param("Tanh", {}, 13, np.int8, (0.03, -5), np.int8, (1 / 128, 0), id="tanh-s8"),
    pytest.param("LeakyRelu", {"alpha": 0.1}, 13, np.int8, (0.1, 3), np.int8, (0.07, -100), id="leakyrelu-s8"),
    pytest.param("HardSigmoid", {"alpha": 0.25, "beta": 0.4}, 13, np.uint8, (0.04, 100), np.uint8, (1 / 255, 0), id="hardsigmoid-u8"),
    pytest.param("HardSwish", {}, 14, np.int8, (0.05, 0), np.uint8, (0.025, 20), id="hardswish-s8-u8"),
    pytest.param("Exp", {}, 13, np.int8, (0.02, 10), np.uint8, (0.05, 0), id="exp-s8-u8"),
    pytest.param("Sigmoid", {}, 21, np.int16, (0.0005, 0), np.uint16, (1 / 65536, 0), id="sigmoid-s16-u16"),
    pytest.param("Elu", {"alpha": 0.5}, 13, np.int8, (0.04, 0), np.int8, (0.03, -20), id="elu-s8"),
    pytest.param("Selu", {}, 13, np.int8, (0.04, 0), np.int8, (0.04, -30), id="selu-s8"),
    pytest.param("Celu", {"alpha": 2.0}, 13, np.uint8, (0.05, 100), np.int8, (0.05, -40), id="celu-u8-s8"),
    pytest.param("Softplus", {}, 13, np.int8, (0.05, 0), np.uint8, (0.03, 0), id="softplus-s8-u8"),
    pytest.param("Softsign", {}, 13, np.int8, (0.1, 0), np.int8, (1 / 127, 0), id="softsign-s8"),
    pytest.param("ThresholdedRelu", {"alpha": 0.7}, 13, np.int8, (0.05, 2), np.int8, (0.05, 2), id="thresholdedrelu-s8"),
]  # fmt: skip

EXACT_TO_ONNXRUNTIME = {"LeakyRelu", "HardSigmoid", "HardSwish", "ThresholdedRelu"}


def onnxruntime_outputs(path, inputs: dict) -> list[np.ndarray]:
    """onnxruntime (ORT_DISABLE_ALL) on the model, its integer kernels exact on every CPU."""
    return onnxruntime_session(path).run(None, inputs)


def integer_module(path, lower: bool = True):
    """The model through onnx-to-quant, canonicalize-quant, quant-to-integer and (`lower`) lower-quant."""
    module = load_module(str(path))
    ctx = full_context()
    for stage in (OnnxToQuantPass(), CanonicalizeQuantPass(), QuantToIntegerPass(), *[LowerQuantPass()] * lower):
        stage.apply(ctx, module)
    module.verify()
    return module


def check_all_stages(path, inputs: dict, step: float, exact_to_onnxruntime: bool) -> None:
    (expected,) = onnxruntime_outputs(path, inputs)
    (reference,) = bitfold.run(load_module(str(path)), inputs).values()
    if exact_to_onnxruntime:
        np.testing.assert_array_equal(reference, expected)
    else:
        assert np.abs(reference.astype(np.float64) - expected).max() <= step * (1 + 1e-6)
    (integer,) = bitfold.run(integer_module(path), inputs).values()
    np.testing.assert_array_equal(integer, reference)


def check_on_qemu(path, inputs: dict, tmp_path, target: str = "rv32im") -> None:
    """The model compiled for `target` runs under qemu bit-exact to bitfold-run on its integer IR."""
    compiled = compile_model(load_module(str(path)), target)
    stored = compiled.quantize(inputs)
    for got, want in zip(compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("op_type", "attributes", "opset", "x_type", "x_param", "y_type", "y_param"), HAND_BUILT)
def test_hand_built_tables(op_type, attributes, opset, x_type, x_param, y_type, y_param, tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(qdq_activation(op_type, attributes, opset, x_type, x_param, y_type, y_param), path)
    inputs = {"x": every_stored_value(x_type, x_param)}
    check_all_stages(path, inputs, y_param[0], op_type in EXACT_TO_ONNXRUNTIME)
    check_on_qemu(path, inputs, tmp_path)


def gemm_activations(activations: list[tuple[str, dict]]) -> onnx.ModelProto:
    """x (4 x 16) -> Gemm(16 -> 16) -> the activations in a chain."""
    rng = np.random.default_rng(7)
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["h"], transB=1, name="fc")]
    current = "h"
    for i, (op_type, attributes) in enumerate(activations):
        nodes.append(helper.make_node(op_type, [current], [f"a{i}"], name=f"{op_type.lower()}{i}", **attributes))
        current = f"a{i}"
    weights = [numpy_helper.from_array(rng.standard_normal((16, 16)).astype(np.float32), "w"),
               numpy_helper.from_array(rng.standard_normal(16).astype(np.float32), "b")]  # fmt: skip
    return one_input_model("activations", nodes, weights, [4, 16], current, [4, 16], 13)


@pytest.mark.parametrize("fmt", ["qdq", "qop"])
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_onnxruntime_quantized_activations(fmt, target, tmp_path):
    """quantize_static: QDQ Sigmoid / Tanh around float ops, or QOperator QLinearSigmoid /
    QLinearLeakyRelu (onnxruntime's own tables) and a QDQ Tanh."""
    path = tmp_path / "model.onnx"
    model = gemm_activations([("Sigmoid", {}), ("Tanh", {}), ("LeakyRelu", {"alpha": 0.2})])
    quantized = quantize(model, QuantConfig(fmt, "u8", "s8"), path)
    assert {"QLinearSigmoid", "QLinearLeakyRelu"} <= {n.op_type for n in quantized.graph.node} or fmt == "qdq"
    inputs = {"x": np.random.default_rng(3).standard_normal((4, 16)).astype(np.float32) * 2}
    (expected,) = onnxruntime_outputs(path, inputs)
    (reference,) = bitfold.run(load_module(str(path)), inputs).values()
    step = next(
        numpy_helper.to_array(t) for t in quantized.graph.initializer if t.name.startswith("a2") and "scale" in t.name
    )
    assert np.abs(reference.astype(np.float64) - expected).max() <= float(step) * (1 + 1e-6)
    (integer,) = bitfold.run(integer_module(path, lower=False), inputs).values()
    np.testing.assert_array_equal(integer, reference)
    check_on_qemu(path, inputs, tmp_path, target)


REFUSED_TABLE = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %xq = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i32<-100000:100000>:f32, 0.001>>
  %xf = quant.dcast %xq : tensor<4x!quant.uniform<i32<-100000:100000>:f32, 0.001>> to tensor<4xf32>
  %y = "onnx.Sigmoid"(%xf) : (tensor<4xf32>) -> tensor<4xf32> loc("sigmoid_wide")
  %yq = quant.qcast %y : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.00390625>>
  %yf = quant.dcast %yq : tensor<4x!quant.uniform<u8:f32, 0.00390625>> to tensor<4xf32>
  func.return %yf : tensor<4xf32>
}
"""


def test_table_above_16_bits_is_refused_in_one_line_with_integer_only(bitfold_opt):
    done = bitfold_opt(REFUSED_TABLE, "-p", "quant-to-integer{integer-only=true}")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert "quant-to-integer: 'onnx.Sigmoid' (sigmoid_wide): a table of 200001 entries" in lines[0], lines[0]


def test_table_above_16_bits_becomes_a_float_island(bitfold_opt):
    """Without integer-only the Sigmoid stays float between its dcast and qcast, and
    onnx-float-to-linalg lowers it (docs/float-islands.md)."""
    done = bitfold_opt(REFUSED_TABLE, "-p", "quant-to-integer,lower-quant,onnx-float-to-linalg,expand-float-math")
    assert done.returncode == 0, done.stderr
    assert "onnx.Sigmoid" not in done.stdout and "arith.divf" in done.stdout and "math." not in done.stdout


def test_qlinear_sigmoid_returned_as_uint8(tmp_path):
    """QuantizeLinear -> QLinearSigmoid, the model's output the uint8 result: the table's integers
    are the model's output, bit-exact to onnxruntime, through the integer IR and on rv32im."""
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="x_q"),
        helper.make_node(
            "QLinearSigmoid", ["xq", "xs", "xz", "ys", "yz"], ["y"], domain="com.microsoft", name="sigmoid"
        ),
    ]
    initializers = [
        numpy_helper.from_array(np.array(0.05, np.float32), "xs"),
        numpy_helper.from_array(np.array(128, np.uint8), "xz"),
        numpy_helper.from_array(np.array(1 / 256, np.float32), "ys"),
        numpy_helper.from_array(np.array(0, np.uint8), "yz"),
    ]
    graph = helper.make_graph(
        nodes, "sigmoid",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 256])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, 256])],
        initializers,
    )  # fmt: skip
    opsets = [helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = IR_VERSION
    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    inputs = {"x": every_stored_value(np.uint8, (0.05, 128))}
    (expected,) = onnxruntime_outputs(path, inputs)
    (integer,) = bitfold.run(integer_module(path), inputs).values()
    assert integer.dtype == np.uint8
    np.testing.assert_array_equal(integer, expected)
    check_on_qemu(path, inputs, tmp_path)
