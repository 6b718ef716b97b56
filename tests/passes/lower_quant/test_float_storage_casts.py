"""lower-quant's float-storage casts (`passes/lower_quant/float_storage.py`): the integer IR of a float8 /
float4 QuantizeLinear -> DequantizeLinear model computes, under bitfold-run, bit for bit what the imported
model computes (whose QuantizeLinear / DequantizeLinear match onnx's reference and onnxruntime:
tests/dialects/onnx_ops/test_onnx_float8_quantization.py), on the inputs where rounding decides, every
format, per tensor and per axis."""

import numpy as np
import onnx
import pytest
from models.minifloat_cases import CASES, qdq_model
from onnx import TensorProto
from xdsl.context import Context

import bitfold
from bitfold.frontends.onnx import import_model
from bitfold.passes.pipelines import OnnxToIntegerPipeline

TYPES = [TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E4M3FNUZ, TensorProto.FLOAT8E5M2, TensorProto.FLOAT8E5M2FNUZ,
         TensorProto.FLOAT4E2M1]


def dequantized_model(code: int, scale: np.ndarray, shape, saturate: int = 1) -> onnx.ModelProto:
    """qdq_model with only the dequantized output; float4 without a zero point (`output_dtype`)."""
    model = qdq_model(code, saturate, scale, shape=shape)
    model.graph.output.pop(0)
    if code == TensorProto.FLOAT4E2M1:
        for node in model.graph.node:
            del node.input[2:]
        model.graph.node[0].attribute.append(onnx.helper.make_attribute("output_dtype", code))
    return model


@pytest.mark.parametrize("code", TYPES, ids=TensorProto.DataType.Name)
@pytest.mark.parametrize("per_axis", [False, True])
@pytest.mark.parametrize("saturate", [1, 0])
def test_integer_ir_computes_what_the_model_computes(code, per_axis, saturate):
    """saturate = 0: overflow (infinities included) to the format's infinity or NaN code."""
    x = CASES.reshape(-1, 2)
    scale = np.array([0.375, 3.0], np.float32) if per_axis else np.array(0.375, np.float32)
    model = dequantized_model(code, scale, list(x.shape), saturate)
    want = bitfold.run(import_model(model.SerializeToString()), {"x": x})["z"]
    module = import_model(model.SerializeToString())
    OnnxToIntegerPipeline().apply(Context(), module)
    assert "quant.qcast" not in str(module) and "quant.dcast" not in str(module)
    with np.errstate(all="ignore"):
        got = bitfold.run(module, {"x": x})["z"]
    assert got.tobytes() == want.tobytes()
