"""Brevitas' QCDQ weight pattern and its QONNX equivalent, built with `onnx.helper`.

Brevitas' QCDQ export quantizes float weights at run time: `QuantizeLinear(W, s, zp) -> Clip(lo, hi)
-> DequantizeLinear(s, zp)` on int8 (`brevitas/export/common/handler/qcdq.py`: a signed weight of at
most 8 bits is int8; the Clip is there when the range is narrow or the bit width below 8; per
channel, a 1-D scale and an int8 zero point of the same size with `axis = 0`). Activations are
`QuantizeLinear -> DequantizeLinear` (int8). The QONNX export of the same network writes each
quantizer as one `Quant(x, scale, zeropt, bitwidth)` {signed, narrow, rounding_mode ROUND}, a
per-channel scale shaped (C, 1, 1, 1).

`conv_pair(config)` builds the two forms of one network, input -> 8-bit activation quantizer ->
3x3 Conv with quantized weights -> 8-bit output quantizer, with the same float weights and scales.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from .float_models import IR_VERSION
from .qonnx_models import QONNX_DOMAIN, _finish

INPUT_SHAPE = (1, 3, 6, 6)
OUTPUT_CHANNELS = 4
INPUT_SCALE = np.float32(0.05)
OUTPUT_SCALE = np.float32(0.1)
"""The output quantizer's step (signed 8-bit, zero point 0)."""
WEIGHT_SEED = 12


@dataclass(frozen=True)
class WeightQuant:
    """A weight quantizer: `bits`-bit signed, `narrow` ([-2^(b-1) + 1, 2^(b-1) - 1]), per tensor or per
    output channel."""

    bits: int
    narrow: bool
    per_channel: bool

    @property
    def range(self) -> tuple[int, int]:
        high = 2 ** (self.bits - 1) - 1
        return (-high if self.narrow else -high - 1), high

    @property
    def name(self) -> str:
        return f"w{self.bits}{'n' if self.narrow else ''}-{'perchannel' if self.per_channel else 'pertensor'}"


CONFIGS = [WeightQuant(bits, narrow, per_channel) for bits, narrow in ((8, True), (4, False), (4, True))
           for per_channel in (False, True)]
"""8-bit narrow ([-127, 127], Brevitas' default weights), 4-bit (Clip(-8, 7)), 4-bit narrow (Clip(-7, 7))."""


def _weights(config: WeightQuant) -> tuple[np.ndarray, np.ndarray]:
    """Float weights and their scales (max |W| / hi, per output channel or per tensor), float32."""
    rng = np.random.default_rng(WEIGHT_SEED)
    weights = rng.normal(size=(OUTPUT_CHANNELS, INPUT_SHAPE[1], 3, 3)).astype(np.float32)
    high = config.range[1]
    if config.per_channel:
        scales = np.abs(weights).reshape(OUTPUT_CHANNELS, -1).max(axis=1) / high
    else:
        scales = np.asarray(np.abs(weights).max() / high)
    return weights, scales.astype(np.float32)


def _io() -> tuple[onnx.ValueInfoProto, onnx.ValueInfoProto]:
    out_shape = [1, OUTPUT_CHANNELS, *INPUT_SHAPE[2:]]
    return (helper.make_tensor_value_info("x", TensorProto.FLOAT, list(INPUT_SHAPE)),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape))


def qcdq_model(config: WeightQuant) -> onnx.ModelProto:
    """The network in Brevitas' QCDQ form (opset 13)."""
    weights, scales = _weights(config)
    low, high = config.range
    zero_point = np.zeros(scales.shape, dtype=np.int8)
    axis = [helper.make_attribute("axis", 0)] if config.per_channel else []
    initializers = [
        numpy_helper.from_array(weights, "w"), numpy_helper.from_array(scales, "w_scale"),
        numpy_helper.from_array(zero_point, "w_zero_point"),
        numpy_helper.from_array(np.int8(low), "w_min"), numpy_helper.from_array(np.int8(high), "w_max"),
        numpy_helper.from_array(INPUT_SCALE, "x_scale"), numpy_helper.from_array(np.int8(0), "x_zero_point"),
        numpy_helper.from_array(OUTPUT_SCALE, "y_scale"), numpy_helper.from_array(np.int8(0), "y_zero_point"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero_point"], ["x_q"], "x_quant"),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero_point"], ["x_dq"], "x_dequant"),
        helper.make_node("QuantizeLinear", ["w", "w_scale", "w_zero_point"], ["w_q"], "w_quant"),
        helper.make_node("Clip", ["w_q", "w_min", "w_max"], ["w_clipped"], "w_clip"),
        helper.make_node("DequantizeLinear", ["w_clipped", "w_scale", "w_zero_point"], ["w_dq"], "w_dequant"),
        helper.make_node("Conv", ["x_dq", "w_dq"], ["conv"], "conv", pads=[1, 1, 1, 1]),
        helper.make_node("QuantizeLinear", ["conv", "y_scale", "y_zero_point"], ["y_q"], "y_quant"),
        helper.make_node("DequantizeLinear", ["y_q", "y_scale", "y_zero_point"], ["y"], "y_dequant"),
    ]
    for node in nodes[2:5]:
        if node.op_type != "Clip":
            node.attribute.extend(axis)
    graph = helper.make_graph(nodes, "network", *[[v] for v in _io()], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="bitfold-tests")
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


def _quant(name: str, x: str, scale: str, bits: str, narrow: bool) -> onnx.NodeProto:
    return helper.make_node("Quant", [x, scale, "zero", bits], [name], name, domain=QONNX_DOMAIN,
                            signed=1, narrow=int(narrow), rounding_mode="ROUND")


def qonnx_model(config: WeightQuant) -> onnx.ModelProto:
    """The same network in QONNX form (Brevitas' QONNX export: one `Quant` per quantizer)."""
    weights, scales = _weights(config)
    weight_scales = scales.reshape(-1, 1, 1, 1) if config.per_channel else scales
    initializers = [
        numpy_helper.from_array(weights, "w"), numpy_helper.from_array(weight_scales, "w_scale"),
        numpy_helper.from_array(np.float32(config.bits), "w_bits"), numpy_helper.from_array(np.float32(0), "zero"),
        numpy_helper.from_array(INPUT_SCALE, "x_scale"), numpy_helper.from_array(OUTPUT_SCALE, "y_scale"),
        numpy_helper.from_array(np.float32(8), "eight"),
    ]
    nodes = [
        _quant("x_dq", "x", "x_scale", "eight", False),
        _quant("w_dq", "w", "w_scale", "w_bits", config.narrow),
        helper.make_node("Conv", ["x_dq", "w_dq"], ["conv"], "conv", pads=[1, 1, 1, 1]),
        _quant("y", "conv", "y_scale", "eight", False),
    ]
    graph = helper.make_graph(nodes, "network", *[[v] for v in _io()], initializers)
    float_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return _finish(graph, float_model, 1)


def inputs(seed: int) -> dict[str, np.ndarray]:
    """Standard normal input values."""
    return {"x": np.random.default_rng(seed).normal(size=INPUT_SHAPE).astype(np.float32)}
