"""QDQ models in the layouts producers write: float data movement before the first
QuantizeLinear or after the last DequantizeLinear, as tf2onnx / tflite2onnx exports of TFLite
int8 models have it. Committed fixtures, made by `scripts/make_producer_layout_models.py`
(onnx.helper graphs, seeded int8 weights, scales fixed by hand):

    nhwc-transpose-conv      float NHWC input -> Transpose(0,3,1,2) -> Q -> DQ -> Conv -> Relu
                             -> Q -> DQ -> MaxPool -> Flatten -> Gemm -> Q -> DQ (image classifier)
    kws-reshape              float [1, 490] input -> Reshape [1,1,49,10] -> Q -> DQ -> Conv (per
                             channel weights) -> Relu -> Q -> DQ -> Conv -> Q -> DQ -> Reshape (keyword
                             spotting)
    nhwc-output-transpose    NHWC input transposed in, Conv -> Q -> DQ, then the output transposed
                             back NCHW -> NHWC after the last DequantizeLinear
    nhwc-perchannel-movement NHWC input -> Transpose -> QuantizeLinear per channel (axis 1) -> DQ ->
                             MaxPool -> Transpose back -> output: the quantized axis moves with both
                             Transposes (data movement and quantizers only)

`<name>.input.npy` is the seeded float input of each; `MACS` the multiply-accumulates of one
inference (Conv and Gemm)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).resolve().parent
NAMES = ("nhwc-transpose-conv", "kws-reshape", "nhwc-output-transpose", "nhwc-perchannel-movement")
MACS = {
    "nhwc-transpose-conv": 16 * 16 * 8 * 3 * 3 * 3 + 8 * 8 * 8 * 10,
    "kws-reshape": 49 * 10 * 8 * 3 * 3 + 49 * 10 * 8 * 8,
    "nhwc-output-transpose": 8 * 8 * 4 * 3 * 3 * 3,
    "nhwc-perchannel-movement": 0,
}
"""Multiply-accumulates of one inference (0: data movement only)."""


def names() -> list[str]:
    return list(NAMES)


def network_of(name: str) -> str:
    return name


def form_of(name: str) -> str:
    return "qdq-u8"


def macs(name: str) -> int:
    return MACS[name]


def path(name: str) -> Path:
    return FIXTURES / f"{name}.onnx"


def inputs(name: str) -> dict[str, np.ndarray]:
    """The feeds of a fixture model: its one graph input, `input`."""
    return {"input": np.load(FIXTURES / f"{name}.input.npy")}
