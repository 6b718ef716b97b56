"""onnx-to-quant on float8 QDQ models: the quant form (qcast / dcast with float storage) computes what the
imported model computes, bit for bit (bitfold-run before and after the pass), which onnx's reference
evaluator checks for the imported model (tests/dialects/onnx_ops/test_onnx_float8_quantization.py); forms
without a quant type are refused with one line naming the node."""

import re

import numpy as np
import pytest
from models.minifloat_cases import CASES, qdq_model
from onnx import TensorProto
from xdsl.context import Context
from xdsl.utils.exceptions import PassFailedException

import bitfold
from bitfold.frontends.onnx import import_model
from bitfold.passes.onnx_to_quant import OnnxToQuantPass

FLOAT8 = [TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E4M3FNUZ, TensorProto.FLOAT8E5M2, TensorProto.FLOAT8E5M2FNUZ]


def before_and_after(model, x: np.ndarray):
    module = import_model(model.SerializeToString())
    before = bitfold.run(module, {"x": x})
    OnnxToQuantPass().apply(Context(), module)
    text = str(module)
    assert "onnx.QuantizeLinear" not in text and "onnx.DequantizeLinear" not in text
    assert "!quant.uniform<f" in text
    return before, bitfold.run(module, {"x": x})


@pytest.mark.parametrize("code", FLOAT8, ids=TensorProto.DataType.Name)
@pytest.mark.parametrize("axis", [None, 1])
@pytest.mark.parametrize("saturate", [1, 0])
def test_quant_form_computes_what_the_model_computes(code, axis, saturate):
    """saturate = 0 (overflow to the format's infinity or NaN) is a `non_saturating` qcast."""
    x = CASES.reshape(-1, 2)
    scale = np.array(0.375, np.float32) if axis is None else np.array([0.375, 3.0], np.float32)
    before, after = before_and_after(qdq_model(code, saturate, scale, shape=list(x.shape)), x)
    for name in before:
        assert after[name].dtype == before[name].dtype
        assert after[name].tobytes() == before[name].tobytes(), name


@pytest.mark.parametrize(("code", "saturate", "message"), [
    (TensorProto.FLOAT4E2M1, 1, "a float4 zero point turns -0 into +0"),
])  # fmt: skip
def test_forms_without_a_quant_type_are_refused(code, saturate, message):
    module = import_model(qdq_model(code, saturate, np.array(1.0, np.float32)).SerializeToString())
    with pytest.raises(PassFailedException, match=re.escape(message)):
        OnnxToQuantPass().apply(Context(), module)
