"""Quantized variants made by onnxruntime's static quantizer, and the QCDQ (Clip-narrowed) rewrite.

`quantize` runs `onnxruntime.quantization.quantize_static` on a float model with a deterministic
calibration set (`CalibrationInputs`). What onnxruntime 1.31 accepts, as probed when this catalogue
was written:

- QDQ: activation/weight QUInt8/QUInt8, QUInt8/QInt8, QInt8/QInt8, per tensor and per channel;
  QInt4/QUInt4 weights and activations (native ONNX int4/uint4 Q/DQ at opset 21; below opset 21
  the quantizer switches Q/DQ to the `com.microsoft` domain instead); 16-bit activations
  (QUInt16/QInt16, the quantizer bumps the opset to 21).
- QOperator: the same 8-bit combinations (QLinearConv, QLinearMatMul, and the `com.microsoft`
  QGemm, QLinearAdd, QLinearAveragePool, QLinearGlobalAveragePool). 16-bit: refused ("Only
  QuantFormat.QDQ supports 16-bit quantization types"). 4-bit: refused for per-tensor weights and
  for any Gemm/MatMul ("Quantized weights ... must be 8-bit before packing as 4-bit values").
- Both formats refuse activations QInt8 with weights QUInt8.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .float_models import IR_VERSION
from .runners import random_inputs

CALIBRATION_SAMPLES = 8
CALIBRATION_SEED = 1000

TYPE_CODES = {"u8": "QUInt8", "s8": "QInt8", "u4": "QUInt4", "s4": "QInt4", "u16": "QUInt16", "s16": "QInt16"}
"""Short type codes used in model names -> onnxruntime `QuantType` member names."""


class CalibrationInputs:
    """A deterministic onnxruntime `CalibrationDataReader`: `CALIBRATION_SAMPLES` random input sets.

    Sample i is `random_inputs(model, CALIBRATION_SEED + i)` (standard normal floats), so every build
    calibrates to the same ranges. (Subclassing onnxruntime's reader is not required: the quantizer
    only calls `get_next`.)
    """

    def __init__(self, model: onnx.ModelProto, samples: int = CALIBRATION_SAMPLES):
        self._samples = iter([random_inputs(model, CALIBRATION_SEED + i) for i in range(samples)])

    def get_next(self):
        return next(self._samples, None)

    def rewind(self):  # part of onnxruntime's reader interface; unused by MinMax calibration
        raise NotImplementedError


@dataclass(frozen=True)
class QuantConfig:
    """One quantize_static configuration.

    `fmt` is "qdq" or "qop"; `activations` / `weights` are type codes (see `TYPE_CODES`);
    `opset` is the opset the float model is built at before quantizing (21 gives native int4 Q/DQ;
    int4 below 21 gives `com.microsoft` Q/DQ).
    """

    fmt: str
    activations: str
    weights: str
    per_channel: bool = False
    opset: int = 13


def quantize(float_model: onnx.ModelProto, config: QuantConfig, path: str | os.PathLike) -> onnx.ModelProto:
    """Quantize `float_model` with onnxruntime's `quantize_static` per `config`; save to `path`.

    MinMax calibration over `CalibrationInputs`. The result gets `ir_version = IR_VERSION`
    (quantize_static writes onnx's default, 14) and is checked with `onnx.checker`.
    """
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_static

    path = os.fspath(path)
    source = path + ".float.onnx"
    onnx.save(float_model, source)
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)  # the quantizer logs advice about formats and opsets
    try:
        quantize_static(
            source,
            path,
            CalibrationInputs(float_model),
            quant_format=QuantFormat.QDQ if config.fmt == "qdq" else QuantFormat.QOperator,
            per_channel=config.per_channel,
            activation_type=QuantType[TYPE_CODES[config.activations]],
            weight_type=QuantType[TYPE_CODES[config.weights]],
        )
    finally:
        logging.disable(previous)
        os.remove(source)
    model = onnx.load(path)
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return model


# --- QCDQ: QuantizeLinear -> Clip -> DequantizeLinear -----------------------------------------------

_FULL_RANGE = {np.dtype(np.uint8): (0, 255), np.dtype(np.int8): (-128, 127)}


def _narrow_range(dtype: np.dtype, bits: int) -> tuple[int, int]:
    return (0, 2**bits - 1) if dtype == np.uint8 else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)


def _broadcast(param: np.ndarray, rank: int, axis: int) -> np.ndarray:
    """Reshape a per-axis 1-D parameter so it broadcasts against a tensor of `rank` along `axis`."""
    if param.ndim == 0 or param.size == 1:
        return param.reshape(())
    shape = [1] * rank
    shape[axis % rank] = param.size
    return param.reshape(shape)


def to_qcdq(model: onnx.ModelProto, bits: int = 4, weights: bool = True) -> onnx.ModelProto:
    """Rewrite an 8-bit QDQ model into the QCDQ form Brevitas exports, narrowed to `bits` bits.

    Activations: every QuantizeLinear of a computed tensor gets a Clip after it (min/max initializers
    of the storage type: int8 [-8, 7] / uint8 [0, 15] for 4 bits) feeding all its consumers; its
    scale and zero point are rescaled so the narrow grid spans the calibrated range. Both Q and DQ read
    the same scale/zero-point initializers, so the pair stays consistent.

    Weights (`weights=True`): every DequantizeLinear reading an 8-bit initializer is re-quantized to
    the narrow range (symmetric when the zero point is 0 and storage is signed, asymmetric otherwise,
    per channel when the DQ is per channel) and gets a Clip between initializer and DQ. The float
    bias DQs are untouched (they dequantize int32 values, and in QDQ everything between DQ and Q is
    float arithmetic).
    """
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}

    def get(name):
        return numpy_helper.to_array(inits[name])

    def put(name, array):
        inits[name].CopyFrom(numpy_helper.from_array(np.asarray(array), name))

    def clip_consts(prefix, dtype):
        lo, hi = _narrow_range(dtype, bits)
        names = (f"{prefix}_clip_min", f"{prefix}_clip_max")
        for n, v in zip(names, (lo, hi), strict=True):
            graph.initializer.append(numpy_helper.from_array(np.array(v, dtype=dtype), n))
        return names

    new_nodes: list[onnx.NodeProto] = []
    rescaled: set[str] = set()
    renames: dict[str, str] = {}
    for node in graph.node:
        node.input[:] = [renames.get(i, i) for i in node.input]
        if node.op_type == "QuantizeLinear" and node.input[0] not in inits:
            scale_name, zp_name = node.input[1], node.input[2]
            dtype = get(zp_name).dtype
            if dtype not in _FULL_RANGE:
                raise ValueError(f"to_qcdq: {node.name} stores {dtype}, expected int8 or uint8")
            if scale_name not in rescaled:  # initializers may be shared between Q/DQ pairs
                rescaled.add(scale_name)
                full_lo, full_hi = _FULL_RANGE[dtype]
                lo, hi = _narrow_range(dtype, bits)
                factor = (full_hi - full_lo) / (hi - lo)
                zp = get(zp_name).astype(np.int64)
                put(scale_name, (get(scale_name) * factor).astype(np.float32))
                put(zp_name, np.clip(np.round((zp - full_lo) / factor) + lo, lo, hi).astype(dtype))
            new_nodes.append(node)
            clipped = node.output[0] + "_clipped"
            lo_name, hi_name = clip_consts(node.output[0], dtype)
            new_nodes.append(
                helper.make_node("Clip", [node.output[0], lo_name, hi_name], [clipped], name=node.name + "_clip")
            )
            renames[node.output[0]] = clipped
            continue
        if weights and node.op_type == "DequantizeLinear" and node.input[0] in inits:
            q = get(node.input[0])
            if q.dtype in _FULL_RANGE and len(node.input) > 2:
                new_nodes.append(_narrow_weight(node, q, get, put, bits))
                lo_name, hi_name = clip_consts(node.input[0], q.dtype)
                clipped = node.input[0] + "_clipped"
                clip = helper.make_node("Clip", [node.input[0], lo_name, hi_name], [clipped], name=node.name + "_clip")
                new_nodes.insert(len(new_nodes) - 1, clip)
                node.input[0] = clipped
                continue
        new_nodes.append(node)
    del graph.node[:]
    graph.node.extend(new_nodes)
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def _narrow_weight(node, q, get, put, bits):
    """Re-quantize the weight initializer read by DequantizeLinear `node` to a `bits`-bit range."""
    scale, zp = get(node.input[1]), get(node.input[2])
    axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
    s = _broadcast(scale.astype(np.float64), q.ndim, axis)
    z = _broadcast(zp.astype(np.int64), q.ndim, axis)
    w = (q.astype(np.int64) - z) * s
    reduce = tuple(d for d in range(q.ndim) if scale.size == 1 or d != axis % q.ndim)
    lo, hi = _narrow_range(q.dtype, bits)
    if q.dtype == np.int8 and not zp.any():
        new_scale = np.abs(w).max(axis=reduce, keepdims=True) / hi
        new_zp = np.zeros_like(new_scale, dtype=np.int64)
    else:
        w_min = np.minimum(w.min(axis=reduce, keepdims=True), 0.0)
        w_max = np.maximum(w.max(axis=reduce, keepdims=True), 0.0)
        new_scale = (w_max - w_min) / (hi - lo)
        new_zp = np.clip(np.round(lo - w_min / np.where(new_scale > 0, new_scale, 1)), lo, hi).astype(np.int64)
    new_scale = np.where(new_scale > 0, new_scale, 1.0)
    new_q = np.clip(np.round(w / new_scale) + new_zp, lo, hi).astype(q.dtype)
    put(node.input[0], new_q)
    put(node.input[1], new_scale.astype(np.float32).reshape(scale.shape))
    put(node.input[2], new_zp.astype(q.dtype).reshape(zp.shape))
    return node
