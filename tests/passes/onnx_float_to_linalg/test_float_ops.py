"""onnx-float-to-linalg and expand-float-math on one-op float models (onnx.helper): the integer-IR
stage run by bitfold's interpreter against onnxruntime (within rtol 1e-5, atol 1e-6: the expansions'
few-ulp error and a different summation order), and the host code (`--target host`) bit-exact to
the interpreter on the f32 outputs themselves."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from conftest import require_tools
from models.float_models import IR_VERSION
from onnx import TensorProto, helper, numpy_helper

from bitfold.compile import compile_model
from bitfold.load import load_module

LLVM_TOOLS = ("mlir-opt-22", "mlir-translate-22", "clang-22")
OPSET = 20
"""Gelu's first opset (LayerNormalization's is 17, HardSwish's 14; the reductions' axes are inputs)"""
RNG = np.random.default_rng(7)
W = numpy_helper.from_array(RNG.normal(0, 1, (16, 5)).astype(np.float32), "w")
B = numpy_helper.from_array(RNG.normal(0, 1, (5,)).astype(np.float32), "b")
CW = numpy_helper.from_array(RNG.normal(0, 1, (6, 2, 3, 3)).astype(np.float32), "cw")
CB = numpy_helper.from_array(RNG.normal(0, 1, (6,)).astype(np.float32), "cb")
BN = [numpy_helper.from_array(v.astype(np.float32), n) for n, v in
      (("s", RNG.uniform(0.5, 2, 4)), ("o", RNG.normal(0, 1, 4)), ("m", RNG.normal(0, 1, 4)), ("v", RNG.uniform(0.5, 2, 4)))]  # fmt: skip
LN = [numpy_helper.from_array(v.astype(np.float32), n)
      for n, v in (("ls", RNG.uniform(0.5, 2, (3, 8))), ("lb", RNG.normal(0, 1, 8)))]
LOW, HIGH = (numpy_helper.from_array(np.float32(v), n) for n, v in (("low", -0.5), ("high", 1.5)))
TWO = numpy_helper.from_array(np.float32(2), "two")
AXES = numpy_helper.from_array(np.array([1], np.int64), "axes")
SPATIAL = numpy_helper.from_array(np.array([0, 2], np.int64), "spatial")

# name: (node, input shape, output shape, initializers)
OPS = {
    "add": (helper.make_node("Add", ["x", "b"], ["y"]), [3, 5], [3, 5], [B]),
    "div": (helper.make_node("Div", ["x", "b"], ["y"]), [3, 5], [3, 5], [B]),
    "relu": (helper.make_node("Relu", ["x"], ["y"]), [4, 9], [4, 9], []),
    "clip": (helper.make_node("Clip", ["x", "low", "high"], ["y"]), [4, 9], [4, 9], [LOW, HIGH]),
    "leaky_relu": (helper.make_node("LeakyRelu", ["x"], ["y"], alpha=0.1), [4, 9], [4, 9], []),
    "hard_sigmoid": (helper.make_node("HardSigmoid", ["x"], ["y"], alpha=0.3, beta=0.4), [4, 9], [4, 9], []),
    "hard_swish": (helper.make_node("HardSwish", ["x"], ["y"]), [4, 9], [4, 9], []),
    "exp": (helper.make_node("Exp", ["x"], ["y"]), [8, 64], [8, 64], []),
    "tanh": (helper.make_node("Tanh", ["x"], ["y"]), [8, 64], [8, 64], []),
    "sigmoid": (helper.make_node("Sigmoid", ["x"], ["y"]), [8, 64], [8, 64], []),
    "erf": (helper.make_node("Erf", ["x"], ["y"]), [8, 64], [8, 64], []),
    "layer_norm": (helper.make_node("LayerNormalization", ["x", "ls", "lb"], ["y"], axis=-2, epsilon=1e-3),
                   [2, 3, 8], [2, 3, 8], LN),
    "softmax": (helper.make_node("Softmax", ["x"], ["y"], axis=1), [4, 50], [4, 50], []),
    "reduce_max": (helper.make_node("ReduceMax", ["x", "axes"], ["y"], keepdims=1), [4, 50], [4, 1], [AXES]),
    "reduce_sum": (helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0), [4, 50], [4], [AXES]),
    "reduce_mean": (helper.make_node("ReduceMean", ["x", "spatial"], ["y"], keepdims=1), [3, 4, 7], [1, 4, 1],
                    [SPATIAL]),
    "instance_norm": (helper.make_node("InstanceNormalization", ["x", "s", "o"], ["y"], epsilon=1e-3), [2, 4, 3, 5],
                      [2, 4, 3, 5], BN[:2]),
    "reciprocal": (helper.make_node("Reciprocal", ["x"], ["y"]), [8, 64], [8, 64], []),
    "neg": (helper.make_node("Neg", ["x"], ["y"]), [4, 9], [4, 9], []),
    "sqrt": (helper.make_node("Sqrt", ["x"], ["y"]), [4, 9], [4, 9], []),
    "gelu": (helper.make_node("Gelu", ["x"], ["y"]), [8, 64], [8, 64], []),
    "mish": (helper.make_node("Mish", ["x"], ["y"]), [8, 64], [8, 64], []),
    "square": (helper.make_node("Pow", ["x", "two"], ["y"]), [4, 9], [4, 9], [TWO]),
    "gelu_tanh": (helper.make_node("Gelu", ["x"], ["y"], approximate="tanh"), [8, 64], [8, 64], []),
    "gemm": (helper.make_node("Gemm", ["x", "w", "b"], ["y"], alpha=0.5, beta=2.0), [4, 16], [4, 5], [W, B]),
    "matmul": (helper.make_node("MatMul", ["x", "w"], ["y"]), [2, 3, 16], [2, 3, 5], [W]),
    "conv": (helper.make_node("Conv", ["x", "cw", "cb"], ["y"], pads=[1, 1, 1, 1], strides=[2, 2], group=2,
                              dilations=[2, 1]), [1, 4, 7, 7], [1, 6, 3, 4], [CW, CB]),
    "batch_norm": (helper.make_node("BatchNormalization", ["x", "s", "o", "m", "v"], ["y"]), [1, 4, 3, 3], [1, 4, 3, 3], BN),
    "max_pool": (helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
                 [1, 2, 7, 7], [1, 2, 4, 4], []),
    "average_pool": (helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                                      strides=[2, 2]), [1, 2, 7, 7], [1, 2, 4, 4], []),
    "global_average_pool": (helper.make_node("GlobalAveragePool", ["x"], ["y"]), [1, 2, 7, 7], [1, 2, 1, 1], []),
}  # fmt: skip


@pytest.fixture(scope="session")
def op_models(tmp_path_factory) -> dict[str, str]:
    directory = tmp_path_factory.mktemp("float-ops")
    paths = {}
    for name, (node, shape, out_shape, initializers) in OPS.items():
        graph = helper.make_graph([node], name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], initializers)  # fmt: skip
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = IR_VERSION
        paths[name] = str(directory / f"{name}.onnx")
        onnx.save(model, paths[name])
    return paths


def _input(name: str) -> dict[str, np.ndarray]:
    return {"x": np.random.default_rng(0).normal(0, 3, OPS[name][1]).astype(np.float32)}


@pytest.mark.parametrize("name", OPS)
def test_float_op_against_onnxruntime_and_host(name, op_models, tmp_path):
    require_tools(*LLVM_TOOLS)
    compiled = compile_model(load_module(op_models[name]), "host")
    stored = compiled.quantize(_input(name))
    (reference,) = compiled.run_reference(stored)
    (want,) = ort.InferenceSession(op_models[name]).run(None, _input(name))
    np.testing.assert_allclose(reference, want, rtol=1e-5, atol=1e-6)
    (native,) = compiled.run_native(stored, tmp_path)
    np.testing.assert_array_equal(native.view(np.int32), reference.view(np.int32))


def test_a_float_op_without_lowering_is_named(op_models, tmp_path):
    graph = helper.make_graph([helper.make_node("Round", ["x"], ["y"], name="round_it")], "round",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = IR_VERSION
    onnx.save(model, tmp_path / "round.onnx")
    with pytest.raises(Exception, match=r"onnx-float-to-linalg: 'onnx.Round' \(round_it\): no float lowering for this op"):
        compile_model(load_module(str(tmp_path / "round.onnx")), "host")


@pytest.mark.parametrize("name", ["relu", "clip", "max_pool", "softmax", "tanh", "erf", "reciprocal", "gelu", "mish",
                                  "square", "neg", "sqrt"])
def test_signed_zeros_and_extremes_bit_exact_on_the_host(name, op_models, tmp_path):
    """-0.0 against +0.0 in maximumf / minimumf (MLIR: -0.0 < +0.0), huge and tiny values through
    exp and tanh: the interpreter gives the host code's bits."""
    require_tools(*LLVM_TOOLS)
    specials = np.array([-0.0, 0.0, -1e-45, 1e-45, -1e30, 1e30, -88.5, 88.5, 0.5, -0.625], np.float32)
    x = np.resize(specials, OPS[name][1]).astype(np.float32)
    compiled = compile_model(load_module(op_models[name]), "host")
    stored = compiled.quantize({"x": x})
    (reference,), (native,) = compiled.run_reference(stored), compiled.run_native(stored, tmp_path)
    np.testing.assert_array_equal(native.view(np.int32), reference.view(np.int32))


DYNAMIC_RELU = """
func.func @f(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = "onnx.Relu"(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> loc("relu_dynamic")
  func.return %y : tensor<?x4xf32>
}
"""


def test_dynamic_shapes_are_one_line(bitfold_opt):
    done = bitfold_opt(DYNAMIC_RELU, "-p", "onnx-float-to-linalg")
    assert done.returncode == 1 and done.stderr.strip().splitlines() == [
        "error: onnx-float-to-linalg: 'onnx.Relu' (relu_dynamic): no float lowering for dynamic shapes "
        "(float islands need static ones)"]
