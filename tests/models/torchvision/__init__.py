"""torchvision networks quantized by onnxruntime: committed fixtures and their inputs.

Made by `scripts/make_torchvision_fixtures.py` (torch and torchvision in an environment of their
own): ShuffleNetV2 x0.5, MobileNetV3-Small (width 0.25), EfficientNet-B0 (width 0.25) and
ResNet-18 (widths 8/16/32/64) at 32x32 inputs; MobileNetV2 (width 0.35), MobileNetV3-Small (width
0.5) and a RegNetX-400MF-style network (grouped 3x3 convolutions of group width 16) at 96x96
inputs; 10 classes, seeded weights, exported by
`torch.onnx.export` and quantized by `quantize_static` (uint8 activations, int8 weights) as

    <network>-qdq-u8s8-perchannel    QuantFormat.QDQ, per-channel weights
    <network>-qop-u8s8               QuantFormat.QOperator

`<network>.input.npy` is one float input (seed 0) of the graph input `input`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from models import report_macs

FIXTURES = Path(__file__).resolve().parent
NETWORKS = ("shufflenet_v2_x0_5", "mobilenet_v3_small", "efficientnet_b0", "resnet18", "mobilenet_v2",
            "mobilenet_v3_small_96", "regnet_x")
FORMS = ("qdq-u8s8-perchannel", "qop-u8s8")


def names() -> list[str]:
    """Every fixture model, network by network."""
    return [f"{network}-{form}" for network in NETWORKS for form in FORMS]


def path(name: str) -> Path:
    return FIXTURES / f"{name}.onnx"


def network_of(name: str) -> str:
    return next(n for n in NETWORKS if name.startswith(f"{n}-"))


def form_of(name: str) -> str:
    return name[len(network_of(name)) + 1 :]


def inputs(name: str) -> dict[str, np.ndarray]:
    return {"input": np.load(FIXTURES / f"{network_of(name)}.input.npy")}


def macs(name: str) -> int:
    """Multiply-accumulates of one inference (bitfold-report's layer costs)."""
    return report_macs(path(name))
