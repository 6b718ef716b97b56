"""Bias correction against onnxruntime: with the quantized weights W_q in place of W and the corrected
bias, a Gemm and a 1x1 Conv (where E[x] per channel is exactly what each output reads) have the
same mean output over the calibration data as the float layer, computed by onnxruntime on both
models; uncorrected, the means differ."""

import numpy as np
import onnx
import pytest
from models.runners import run_onnxruntime
from onnx import TensorProto, helper, numpy_helper

from bitfold.calibration.bias_correction import correct_biases, observed_channel_means
from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.nn import ConvOp, GemmOp
from bitfold.frontends.onnx import import_model
from bitfold.interpreter import entry_function
from bitfold.quantize import QuantizeOptions

OPTIONS = QuantizeOptions(weight_bits=3, per_channel=True, method="mse")


def _model(kind: str, weights: np.ndarray, bias: np.ndarray) -> onnx.ModelProto:
    if kind == "gemm":
        node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)
        shapes = ([1, 16], [1, 8])
    else:
        node = helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[1, 1])
        shapes = ([1, 16, 4, 4], [1, 8, 4, 4])
    graph = helper.make_graph([node], kind, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shapes[0])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shapes[1])],
                              [numpy_helper.from_array(weights, "w"), numpy_helper.from_array(bias, "b")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.mark.parametrize("kind", ["gemm", "conv"])
def test_corrected_layer_keeps_the_float_mean(kind, tmp_path):
    rng = np.random.default_rng(3)
    weights = rng.standard_normal((8, 16) if kind == "gemm" else (8, 16, 1, 1)).astype(np.float32)
    bias = rng.standard_normal(8).astype(np.float32)
    shape = (1, 16) if kind == "gemm" else (1, 16, 4, 4)
    samples = [(rng.standard_normal(shape) + 1.5).astype(np.float32) for _ in range(32)]
    onnx.save(_model(kind, weights, bias), tmp_path / "float.onnx")
    module = import_model(tmp_path / "float.onnx")
    function = entry_function(module)
    observed = {function.args[0]: np.concatenate([s.ravel() for s in samples]).astype(np.float64)}
    correct_biases(function, observed_channel_means(observed), OPTIONS.quantized_weights)
    (op,) = [o for o in function.body.walk() if isinstance(o, ConvOp | GemmOp)]
    quantized = OPTIONS.quantized_weights(op, weights).astype(np.float32)
    corrected = constant_array(op.operands[2])

    def mean_output(model) -> np.ndarray:
        outputs = [run_onnxruntime(model, {"x": s})["y"] for s in samples]
        return np.mean(outputs, axis=tuple(i for i in range(outputs[0].ndim + 1) if i != 2))

    float_mean = mean_output(_model(kind, weights, bias))
    np.testing.assert_allclose(mean_output(_model(kind, quantized, corrected)), float_mean, atol=1e-5)
    assert np.abs(mean_output(_model(kind, quantized, bias)) - float_mean).max() > 1e-3
