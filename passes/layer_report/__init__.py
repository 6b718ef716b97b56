"""Per-layer figures of a model in the canonical quant form (bitfold-report's calculation).

    rows = layer_costs(module)          # costs.py: MACs, BOPs, bits, packed bytes, live bytes
    probes = add_layer_probes(module)   # probes.py: every layer's output as an extra result
    strip_activation_quantization(m)    # probes.py: the same network without activation quantization
    computes_in_float(ops)              # islands.py: a layer's integer-IR code is a float island

A layer is an ONNX compute or data-movement op of the quant form (not a constant); layers are
listed in program order and named by their ONNX node."""

from bitfold.passes.layer_report.costs import LayerCost, layer_costs, layer_ops, output_quantization
from bitfold.passes.layer_report.islands import computes_in_float
from bitfold.passes.layer_report.probes import add_layer_probes, strip_activation_quantization

__all__ = ["LayerCost", "add_layer_probes", "computes_in_float", "layer_costs", "layer_ops", "output_quantization",
           "strip_activation_quantization"]
