"""ONNX export of quantized constants (issue 12, item 2): a constant needs no clamp, so QDQ and QOp
write one of a narrow range (Brevitas' [-7, 7] and [-127, 127] weights) or a bipolar one (its values
-1 and +1, zero point 0) as a plain ONNX integer initializer read by DequantizeLinear: the narrowest
integer type holding the range that the model's opset has (int8 for [-7, 7] at opset 13, int4 at 21).
Each export runs under onnxruntime (ORT_DISABLE_ALL) and must give the source's numbers under its own
oracle (qonnx's executor)."""

import numpy as np
import onnx
import pytest
from models.float_models import IR_VERSION
from models.qonnx_models import QONNX_DOMAIN, _finish
from models.runners import run_onnxruntime, run_qonnx
from onnx import TensorProto, helper, numpy_helper
from xdsl.transforms.canonicalize import CanonicalizePass

from bitfold.backends.onnx import export_model
from bitfold.backends.onnx.qcdq import QcdqForm
from bitfold.backends.onnx.qdq import QdqForm
from bitfold.backends.onnx.qop import QopForm
from bitfold.load import full_context, import_onnx
from bitfold.passes.onnx_to_quant import OnnxToQuantPass

OUTPUT_SCALE = 0.25
FORMS = {"qdq": QdqForm, "qcdq": QcdqForm, "qop": QopForm}


def weight_quant_model(weight_node: str, opset: int) -> onnx.ModelProto:
    """QONNX: 8-bit input -> Conv 3x3 with weights quantized by `weight_node` ("narrow4": 4-bit narrow
    `Quant`, "bipolar": `BipolarQuant`) -> 8-bit output `Quant`."""
    rng = np.random.default_rng(3)
    weights = rng.normal(size=(4, 2, 3, 3)).astype(np.float32)
    initializers = [numpy_helper.from_array(a, n) for n, a in (
        ("w", weights), ("w_scale", np.float32(0.3)), ("x_scale", np.float32(0.05)), ("y_scale", np.float32(OUTPUT_SCALE)),
        ("zero", np.float32(0)), ("four", np.float32(4)), ("eight", np.float32(8)))]
    if weight_node == "bipolar":
        weight = helper.make_node("BipolarQuant", ["w", "w_scale"], ["w_q"], "w_quant", domain=QONNX_DOMAIN)
    else:
        weight = helper.make_node("Quant", ["w", "w_scale", "zero", "four"], ["w_q"], "w_quant", domain=QONNX_DOMAIN,
                                  signed=1, narrow=1, rounding_mode="ROUND")
    nodes = [helper.make_node("Quant", ["x", "x_scale", "zero", "eight"], ["x_q"], "x_quant", domain=QONNX_DOMAIN,
                              signed=1, narrow=0, rounding_mode="ROUND"),
             weight, helper.make_node("Conv", ["x_q", "w_q"], ["c"], "conv", pads=[1, 1, 1, 1]),
             helper.make_node("Quant", ["c", "y_scale", "zero", "eight"], ["y"], "y_quant", domain=QONNX_DOMAIN,
                              signed=1, narrow=0, rounding_mode="ROUND")]
    graph = helper.make_graph(nodes, "weights", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 5, 5])], initializers)
    float_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    float_model.ir_version = IR_VERSION
    return _finish(graph, float_model, 1)


def exported(model: onnx.ModelProto, form: str) -> onnx.ModelProto:
    module = import_onnx(model.SerializeToString(), None, model.graph.name)
    for stage in (OnnxToQuantPass(), CanonicalizePass()):
        stage.apply(full_context(), module)
    return export_model(module, FORMS[form]())


def weight_initializer(model: onnx.ModelProto) -> onnx.TensorProto:
    """The initializer the weights' DequantizeLinear reads (the Conv's second input's producer)."""
    producers = {out: node for node in model.graph.node for out in node.output}
    conv = next(node for node in model.graph.node if node.op_type in ("Conv", "QLinearConv"))
    read = conv.input[1] if conv.op_type == "Conv" else conv.input[3]
    while read in producers:
        read = producers[read].input[0]
    return next(t for t in model.graph.initializer if t.name == read)


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize(("weights", "opset", "stored_as"), [
    ("narrow4", 13, TensorProto.INT8), ("narrow4", 21, TensorProto.INT4), ("bipolar", 13, TensorProto.INT8)])
def test_constant_weights_export_and_run(form, weights, opset, stored_as):
    model = weight_quant_model(weights, opset)
    converted = exported(model, form)
    if form != "qcdq":
        assert weight_initializer(converted).data_type == stored_as
    for seed in (0, 1):
        feeds = {"x": np.random.default_rng(seed).normal(size=(1, 2, 5, 5)).astype(np.float32)}
        got, want = run_onnxruntime(converted, feeds)["y"], run_qonnx(model, feeds)["y"]
        # QLinearConv sums integers and requantizes in float32: one step off near a tie
        assert np.abs(got.astype(np.float64) - want).max() <= (OUTPUT_SCALE if form == "qop" else 0)
