"""The QDQ, QCDQ and QONNX variants of a network with the same bit widths get the same
storage in their quant types (docs/canonical-quant-form.md, "Types")."""

import pytest
from xdsl.context import Context

import bitfold
from bitfold.dialects.onnx.constant import ConstantOp
from bitfold.dialects.quant import QuantizeCastOp, StorageCastOp, UniformQuantizedType, element_type
from bitfold.frontends.onnx import import_model
from bitfold.passes.onnx_to_quant import OnnxToQuantPass


def storage_specs(module, weights: bool) -> set[str]:
    """`iN<lo:hi>` / `uN` of the weights (scast of a constant of rank >= 2: mlp's Add bias
    is quantized as an activation) or the activations (qcast)."""
    specs = set()
    for op in module.walk():
        if weights and isinstance(op, StorageCastOp) and isinstance(op.input.owner, ConstantOp) \
                and len(op.input.type.get_shape()) >= 2:
            qtype = element_type(op.result.type)
        elif not weights and isinstance(op, QuantizeCastOp):
            qtype = element_type(op.result.type)
        else:
            continue
        if isinstance(qtype, UniformQuantizedType) and qtype.storage_width < 32:  # not the int32 biases
            specs.add(str(qtype).split(":")[0].removeprefix("!quant.uniform<"))
    return specs


def converted(path):
    module = import_model(path)
    ctx = Context()
    bitfold.register_into(ctx)
    OnnxToQuantPass().apply(ctx, module)
    return module


@pytest.mark.parametrize("network", ["mlp", "cnn_depthwise", "residual", "pooling"])
def test_qdq_int4_and_qcdq_clip_weights_share_storage(network, model_catalogue):
    qdq = converted(model_catalogue.path(f"{network}-qdq-u8s4-perchannel"))
    qcdq = converted(model_catalogue.path(f"{network}-qdq-u8s8-perchannel-qcdq4"))
    assert storage_specs(qdq, weights=True) == storage_specs(qcdq, weights=True) == {"i4"}


def test_qdq_int4_and_qcdq_clip_activations_share_storage(model_catalogue):
    qdq = converted(model_catalogue.path("mlp-qdq-s4s4-perchannel"))
    qcdq = converted(model_catalogue.path("mlp-qdq-s8s8-qcdq4"))
    assert storage_specs(qdq, weights=False) == storage_specs(qcdq, weights=False) == {"i4"}


def test_qonnx_bit_widths_become_narrow_storage(model_catalogue):
    module = converted(model_catalogue.path("mlp-qonnx-w4a6"))
    assert storage_specs(module, weights=True) == {"i4<-7"}  # 4-bit narrow signed: i4<-7:7>
    assert storage_specs(module, weights=False) == {"i8", "u8<0"}  # 8-bit input, 6-bit u8<0:63>
