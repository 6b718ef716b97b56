"""The MLPerf Tiny networks quantized by onnxruntime: committed fixtures, their inputs and MAC counts.

Made by `scripts/make_mlperf_tiny_models.py` from the float graphs of `architectures.py` (not
committed: they are rebuilt in a second). Each of the four networks comes in three forms, all
`onnxruntime.quantization.quantize_static` with its defaults (uint8 activations, int8 weights,
MinMax calibration on `CALIBRATION_SAMPLES` seeded inputs):

    <network>-qdq-u8s8               QuantFormat.QDQ, per-tensor weights
    <network>-qdq-u8s8-perchannel    QuantFormat.QDQ, per-channel weights
    <network>-qop-u8s8               QuantFormat.QOperator (QLinearConv, QGemm, QLinearAdd, ...)

`<network>.input.npy` is one float input (seed 0, drawn as `architectures.random_input` draws),
and `manifest.json` records, per network, the multiply-accumulates of one inference (counted
from the float graph's shapes), the parameter count and the files.

    from models.mlperf_tiny import names, path, inputs, macs
    for name in names():
        module = load_module(str(path(name)))
        feeds = inputs(name)                 # {"input": float32 array}
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).resolve().parent
MANIFEST = FIXTURES / "manifest.json"
NETWORKS = ("resnet8", "dscnn", "mobilenet_v1", "autoencoder")
"""In the benchmark's order: image classification, keyword spotting, visual wake words, anomaly detection."""
FORMS = ("qdq-u8s8", "qdq-u8s8-perchannel", "qop-u8s8")
CALIBRATION_SAMPLES = 8
CALIBRATION_SEED = 1000
"""Calibration sample i is `architectures.random_input(network, CALIBRATION_SEED + i)`."""
INPUT_SEED = 0


def names() -> list[str]:
    """Every fixture model, network by network."""
    return [f"{network}-{form}" for network in NETWORKS for form in FORMS]


def network_of(name: str) -> str:
    """The network of a fixture model name (a network name is its own)."""
    return next(network for network in NETWORKS if name == network or name.startswith(f"{network}-"))


def form_of(name: str) -> str:
    return name[len(network_of(name)) + 1:]


def path(name: str) -> Path:
    return FIXTURES / f"{name}.onnx"


def input_path(network: str) -> Path:
    return FIXTURES / f"{network}.input.npy"


def inputs(name: str) -> dict[str, np.ndarray]:
    """The feeds of a fixture model (or network): its one graph input, `input`."""
    return {"input": np.load(input_path(network_of(name)))}


@functools.cache
def manifest() -> dict:
    return json.loads(MANIFEST.read_text())


def macs(network: str) -> int:
    """Multiply-accumulates of one inference of `network` (a network or a fixture model name)."""
    return manifest()[network_of(network)]["macs"]
