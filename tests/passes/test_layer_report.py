"""The per-layer analysis of bitfold-report, against oracles: the MLPerf Tiny architectures'
MAC counts (counted from the float graphs' shapes), QONNX's inference-cost BOPs, and onnxruntime
running the model (probes) and the model with its activation quantizers replaced by Clip
(the float network)."""

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from bitfold.frontends.onnx import import_model
from bitfold.interpreter import entry_function, run
from bitfold.passes.layer_report import add_layer_probes, layer_costs, strip_activation_quantization
from bitfold.report import quant_form
from models.mlperf_tiny.architectures import BUILDERS, multiply_accumulates
from models.recipes import names
from models.runners import run_onnxruntime

ROOT = Path(__file__).resolve().parents[2]
MLPERF = ROOT / "tests" / "models" / "mlperf_tiny"
EXAMPLE = ROOT / "examples" / "cnn_depthwise_qdq.onnx"


@pytest.mark.parametrize("network", sorted(BUILDERS))
def test_macs_are_the_architectures(network):
    canonical = quant_form(import_model(MLPERF / f"{network}-qdq-u8s8-perchannel.onnx"))
    assert sum(row.macs for row in layer_costs(canonical)) == multiply_accumulates(BUILDERS[network]())


@pytest.mark.parametrize("name", names("qonnx"))
def test_bops_and_macs_are_qonnx_inference_cost(name, model_catalogue):
    """Layer by layer (contractions in program order). QONNX types FLOAT32 what its type system
    cannot hold as a (scaled) integer: a Quant output with a nonzero zero point, a scaled bipolar
    value; bitfold counts their bit widths. Counting those operands as 32 bits gives QONNX's BOPs
    exactly (docs/report.md)."""
    from qonnx.util.inference_cost import inference_cost

    breakdown = inference_cost(str(model_catalogue.path(name)), discount_sparsity=False,
                               cost_breakdown=True)["node_cost"]
    expected = [(kind.split("_")[2:4], count, cost["total_bops"]) for cost in breakdown.values()
                for kind, count in cost.items() if kind.startswith("op_mac")]
    rows = [row for row in layer_costs(quant_form(import_model(model_catalogue.path(name)))) if row.macs]
    assert [row.macs for row in rows] == [count for _, count, _ in expected]
    for row, ((activation_type, weight_type), _, bops) in zip(rows, expected, strict=True):
        activation = 32 if activation_type == "FLOAT32" else row.activation_bits
        weight = 32 if weight_type == "FLOAT32" else row.weight_bits
        assert row.macs * activation * weight == bops
        assert row.bops == row.macs * row.activation_bits * row.weight_bits


def test_bit_widths_and_packed_weight_bytes(model_catalogue):
    model = model_catalogue.load("mlp-qonnx-w4a6")
    sizes = {init.name: int(np.prod(init.dims)) for init in model.graph.initializer}
    rows = [row for row in layer_costs(quant_form(import_model(model_catalogue.path("mlp-qonnx-w4a6")))) if row.macs]
    assert [(row.weight_bits, row.activation_bits) for row in rows] == [(4, 8), (4, 6), (4, 6)]
    weights = [node.input[0] for node in model.graph.node if node.op_type == "Quant" and node.input[0] in sizes]
    biases = [node.input[2] for node in model.graph.node if node.op_type == "Gemm" and len(node.input) > 2]
    assert sum(row.weight_bytes for row in rows) >= sum((sizes[w] * 4 + 7) // 8 for w in weights)
    assert sum(row.weight_bytes for row in rows) <= sum((sizes[w] * 4 + 7) // 8 for w in weights) + \
        sum(sizes.get(b, 0) * 4 for b in biases)


def test_last_probe_is_the_model_output_onnxruntime_computes():
    module = quant_form(import_model(EXAMPLE))
    names_ = add_layer_probes(entry_function(module))
    x = np.load(ROOT / "examples" / "cnn_depthwise_input.npy")
    got = run(module, {"input": x})
    expected = run_onnxruntime(EXAMPLE, {"input": x})
    (output,) = expected.values()
    np.testing.assert_allclose(got[f"probe{len(names_) - 1}"], output, rtol=1e-5, atol=1e-6)


def _activation_quantizers_as_clips(model: onnx.ModelProto) -> onnx.ModelProto:
    """The QDQ model with every QuantizeLinear -> DequantizeLinear pair on a computed value replaced
    by Clip to the range the quantizer represents (per-tensor parameters)."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    initializers = {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}
    consumers = {}
    for node in model.graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    kept, renamed = [], {}
    for node in model.graph.node:
        if node.op_type == "QuantizeLinear" and node.input[0] not in initializers:
            scale, zero = initializers[node.input[1]], initializers[node.input[2]]
            info = np.iinfo(zero.dtype)
            low, high = (np.float32((bound - int(zero)) * float(scale)) for bound in (info.min, info.max))
            for bound, value in (("low", low), ("high", high)):
                model.graph.initializer.append(numpy_helper.from_array(np.array(value), f"{node.name}_{bound}"))
            for dequantize in consumers[node.output[0]]:
                assert dequantize.op_type == "DequantizeLinear"
                renamed[dequantize.output[0]] = dequantize.output[0]
                kept.append(helper.make_node("Clip", [node.input[0], f"{node.name}_low", f"{node.name}_high"],
                                             [dequantize.output[0]]))
            continue
        if node.op_type == "DequantizeLinear" and node.output[0] in renamed:
            continue
        kept.append(node)
    del model.graph.node[:]
    model.graph.node.extend(kept)
    return model


def test_float_network_is_the_model_with_clips_for_quantizers():
    model = onnx.load(EXAMPLE)
    module = quant_form(import_model(EXAMPLE))
    strip_activation_quantization(module)
    x = np.load(ROOT / "examples" / "cnn_depthwise_input.npy")
    (got,) = run(module, {"input": x}).values()
    (expected,) = run_onnxruntime(_activation_quantizers_as_clips(model), {"input": x}).values()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
