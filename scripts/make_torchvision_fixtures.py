"""Build the torchvision test fixtures of `tests/models/torchvision/`: small variants of
torchvision architectures at 32x32 inputs (96x96 where named), 10 classes, seeded weights (`torch.manual_seed`),
exported by `torch.onnx.export` (opset 17, static shapes, the TorchScript exporter),
pre-processed by onnxruntime's `quant_pre_process` and quantized by its `quantize_static`
(uint8 activations, int8 weights, MinMax calibration on seeded random inputs) in two forms:

    <network>-qdq-u8s8-perchannel    QuantFormat.QDQ, per-channel weights
    <network>-qop-u8s8               QuantFormat.QOperator (QLinearConv, QLinearAdd, ...)

    shufflenet_v2_x0_5     torchvision's ShuffleNetV2 x0.5 (channel split and shuffle)
    mobilenet_v3_small     MobileNetV3-Small, width 0.25 (Hardswish, squeeze-excitation)
    efficientnet_b0        EfficientNet-B0's blocks, width 0.25 (SiLU, squeeze-excitation)
    resnet18               ResNet-18's layers (BasicBlock x [2, 2, 2, 2]), widths 8/16/32/64
    mobilenet_v2           MobileNetV2, width 0.35, 96x96 (inverted residuals, ReLU6)
    mobilenet_v3_small_96  MobileNetV3-Small, width 0.5, 96x96
    regnet_x               RegNetX-400MF's blocks (group width 16, bottleneck 1, no SE), depths
                           1/1/2/2, widths 32/64/128/256, 96x96: grouped 3x3 convolutions

and `<network>.input.npy` (seed 0). Widths are reduced, and the quantized graph's tensors and
nodes renamed `t<i>` and `<op type>_<i>` (names such as
`features.3.1.block.2.fc2.bias1_quantized_scale` are half of a file otherwise), to keep each
file small.

    /path/to/torch-venv/bin/python scripts/make_torchvision_fixtures.py [--output DIR]

Needs torch and torchvision (a separate environment: they are no dependency of bitfold)
besides onnx and onnxruntime.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
from static_quantization import SeededCalibrationInputs, pre_process, quantize_static
from torch_export import export_onnx, random_normal

SIZE = 32
LARGE_SIZE = 96
"""input height and width of the networks in `LARGE`"""
CLASSES = 10
WEIGHT_SEED = 0
INPUT_SEED = 0
CALIBRATION_SEED = 1000
CALIBRATION_SAMPLES = 4
NETWORKS = ("shufflenet_v2_x0_5", "mobilenet_v3_small", "efficientnet_b0", "resnet18", "mobilenet_v2",
            "mobilenet_v3_small_96", "regnet_x")
LARGE = ("mobilenet_v2", "mobilenet_v3_small_96", "regnet_x")
REGNET_X = {"depths": [1, 1, 2, 2], "widths": [32, 64, 128, 256], "group_widths": [16] * 4,
            "bottleneck_multipliers": [1.0] * 4, "strides": [2] * 4}
FORMS = ("qdq-u8s8-perchannel", "qop-u8s8")
OUTPUT = Path(__file__).resolve().parent.parent / "tests" / "models" / "torchvision"


def random_input(name: str, seed: int) -> np.ndarray:
    size = LARGE_SIZE if name in LARGE else SIZE
    return random_normal(seed, (1, 3, size, size))


def network(name: str):
    """The torch module of `name` (module docstring), weights drawn after `manual_seed`."""
    import torch
    from torchvision import models
    from torchvision.models import efficientnet, regnet, resnet

    torch.manual_seed(WEIGHT_SEED)
    if name == "shufflenet_v2_x0_5":
        return models.shufflenet_v2_x0_5(weights=None, num_classes=CLASSES)
    if name == "mobilenet_v3_small":
        return models.mobilenet_v3_small(weights=None, num_classes=CLASSES, width_mult=0.25)
    if name == "mobilenet_v3_small_96":
        return models.mobilenet_v3_small(weights=None, num_classes=CLASSES, width_mult=0.5)
    if name == "mobilenet_v2":
        return models.mobilenet_v2(weights=None, num_classes=CLASSES, width_mult=0.35)
    if name == "regnet_x":
        return regnet.RegNet(regnet.BlockParams(**REGNET_X), num_classes=CLASSES)
    if name == "efficientnet_b0":
        setting, last_channel = efficientnet._efficientnet_conf("efficientnet_b0", width_mult=0.25, depth_mult=1.0)
        return efficientnet.EfficientNet(setting, dropout=0.2, num_classes=CLASSES, last_channel=last_channel)
    model = resnet.ResNet(resnet.BasicBlock, [2, 2, 2, 2], num_classes=CLASSES)
    model.inplanes = 8  # ResNet-18's stem and layers at 1/8 of their widths
    model.conv1 = torch.nn.Conv2d(3, 8, kernel_size=7, stride=2, padding=3, bias=False)
    model.bn1 = torch.nn.BatchNorm2d(8)
    for index, width in enumerate((8, 16, 32, 64)):
        layer = model._make_layer(resnet.BasicBlock, width, 2, stride=1 if index == 0 else 2)
        setattr(model, f"layer{index + 1}", layer)
    model.fc = torch.nn.Linear(64, CLASSES)
    return model


def export_float(name: str, path: Path) -> None:
    export_onnx(network(name).eval(), random_input(name, INPUT_SEED), path)


def shorten_names(path: Path) -> None:
    """Rename every tensor but the graph's input and output `t<i>`, every node `<op type>_<i>`."""
    import onnx

    model = onnx.load(os.fspath(path))
    graph = model.graph
    kept = {value.name for value in (*graph.input, *graph.output)}
    names: dict[str, str] = {}

    def short(name: str) -> str:
        return name if not name or name in kept else names.setdefault(name, f"t{len(names)}")

    for tensor in graph.initializer:
        tensor.name = short(tensor.name)
    for value in graph.value_info:
        value.name = short(value.name)
    for index, node in enumerate(graph.node):
        node.name = f"{node.op_type}_{index}"
        node.input[:] = [short(name) for name in node.input]
        node.output[:] = [short(name) for name in node.output]
    onnx.save(model, os.fspath(path))


def quantize(name: str, float_path: Path, path: Path, form: str) -> None:
    calibration = SeededCalibrationInputs(lambda seed: random_input(name, seed),
                                          range(CALIBRATION_SEED, CALIBRATION_SEED + CALIBRATION_SAMPLES))
    quantize_static(float_path, path, calibration, "QDQ" if form.startswith("qdq") else "QOperator",
                    per_channel=form.endswith("perchannel"))


def build(output: Path, networks: tuple[str, ...] = NETWORKS) -> None:
    output.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for name in networks:
            float_path = Path(scratch) / f"{name}-float.onnx"
            export_float(name, float_path)
            pre_processed = float_path.with_suffix(".pre.onnx")
            pre_process(float_path, pre_processed)
            for form in FORMS:
                path = output / f"{name}-{form}.onnx"
                quantize(name, pre_processed, path, form)
                shorten_names(path)
                print(f"{path}: {path.stat().st_size:,} B")
            np.save(output / f"{name}.input.npy", random_input(name, INPUT_SEED))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--networks", nargs="+", choices=NETWORKS, default=list(NETWORKS))
    arguments = parser.parse_args(argv)
    build(arguments.output, tuple(arguments.networks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
