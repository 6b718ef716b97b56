"""Cross-layer equalization against onnxruntime: a Conv -> Relu -> Conv -> Relu -> depthwise Conv
network with channels scaled over two decades computes the same outputs in onnxruntime before and
after equalization (float32 rounding apart), and the equalized pair's weight ranges per channel
are equal."""

import numpy as np
import onnx
from models.runners import run_onnxruntime
from onnx import TensorProto, helper, numpy_helper

from bitfold.calibration.equalization import equalize_convolutions, equalized_pairs
from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.nn import ConvOp
from bitfold.frontends.onnx import import_model
from bitfold.interpreter import entry_function

NAMES = ("w1", "b1", "w2", "b2", "w3", "b3")


def _model(arrays: dict[str, np.ndarray]):
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1] * 4),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], kernel_shape=[3, 3], pads=[1] * 4),
             helper.make_node("Relu", ["c2"], ["r2"]),
             helper.make_node("Conv", ["r2", "w3", "b3"], ["y"], kernel_shape=[3, 3], pads=[1] * 4, group=8)]
    graph = helper.make_graph(nodes, "cle", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])],
                              [numpy_helper.from_array(arrays[n], n) for n in NAMES])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def test_equalized_network_computes_the_same(tmp_path):
    rng = np.random.default_rng(5)
    spread = np.logspace(-1, 1, 8).astype(np.float32)
    arrays = {"w1": rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * spread[:, None, None, None],
              "b1": rng.standard_normal(8).astype(np.float32) * spread,
              "w2": rng.standard_normal((8, 8, 3, 3)).astype(np.float32) * spread[::-1, None, None, None],
              "b2": rng.standard_normal(8).astype(np.float32),
              "w3": rng.standard_normal((8, 1, 3, 3)).astype(np.float32),
              "b3": rng.standard_normal(8).astype(np.float32)}
    model = _model(arrays)
    onnx.save(model, tmp_path / "cle.onnx")
    module = import_model(tmp_path / "cle.onnx")
    function = entry_function(module)
    assert equalize_convolutions(function) == 2
    convs = [op for op in function.body.walk() if isinstance(op, ConvOp)]
    equalized = {name: constant_array(conv.operands[i]) for conv, pair in zip(convs, (("w1", "b1"), ("w2", "b2"),
                                                                                      ("w3", "b3")), strict=True)
                 for i, name in enumerate(pair, start=1)}
    x = {"x": rng.standard_normal((1, 3, 8, 8)).astype(np.float32)}
    expected = run_onnxruntime(model, x)["y"]
    np.testing.assert_allclose(run_onnxruntime(_model(equalized), x)["y"], expected, rtol=1e-4, atol=1e-4)
    second_out = np.abs(equalized["w2"]).reshape(8, -1).max(axis=1)
    third_in = np.abs(equalized["w3"]).reshape(8, -1).max(axis=1)
    np.testing.assert_allclose(second_out, third_in, rtol=1e-5)
    def ratio(weights):
        peaks = np.abs(weights).reshape(8, -1).max(axis=1)
        return peaks.max() / peaks.min()

    assert ratio(equalized["w1"]) < ratio(arrays["w1"]) / 3


def test_equalized_pairs_give_each_first_convolution_its_scales(tmp_path):
    """The scales `equalized_pairs` returns are those the first Conv's channels were divided by
    (data-free calibration divides that Conv's output statistics by them)."""
    rng = np.random.default_rng(6)
    arrays = {name: rng.standard_normal(shape).astype(np.float32) for name, shape in
              zip(NAMES, ((8, 3, 3, 3), (8,), (8, 8, 3, 3), (8,), (8, 1, 3, 3), (8,)), strict=True)}
    onnx.save(_model(arrays), tmp_path / "cle.onnx")
    function = entry_function(import_model(tmp_path / "cle.onnx"))
    pairs = equalized_pairs(function)
    convs = [op for op in function.body.walk() if isinstance(op, ConvOp)]
    assert [first for first, _ in pairs] == convs[:2]
    np.testing.assert_allclose(constant_array(convs[0].operands[1]) * pairs[0][1][:, None, None, None], arrays["w1"],
                               rtol=1e-5)
    np.testing.assert_allclose(constant_array(convs[0].operands[2]) * pairs[0][1], arrays["b1"], rtol=1e-5)
