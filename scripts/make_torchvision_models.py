"""Build the large models of `bench/compile_speed.py`: torchvision's EfficientNet-B0 and ResNet-18 at
64x64 inputs with seeded weights (`torch.manual_seed`), exported by `torch.onnx.export` (opset 17,
static shapes, the TorchScript exporter), pre-processed by onnxruntime's `quant_pre_process` and
quantized by its `quantize_static` (QDQ,
per-channel int8 weights, uint8 activations, MinMax calibration on seeded random inputs).

    python scripts/make_torchvision_models.py [--output DIR] [--networks efficientnet_b0 resnet18]

Needs torch and torchvision (install them in a separate environment: they are no dependency of
bitfold) besides onnx and onnxruntime. Writes `<network>-qdq-u8s8-perchannel.onnx` and
`<network>.input.npy` (seed 0) to DIR. The models are not committed (ResNet-18 alone is 11 MB).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
from static_quantization import SeededCalibrationInputs, pre_process, quantize_static
from torch_export import export_onnx, random_normal

NETWORKS = ("efficientnet_b0", "resnet18")
SIZE = 64
"""input height and width"""
WEIGHT_SEED = 0
INPUT_SEED = 0
CALIBRATION_SEEDS = range(1000, 1004)
"""seeds of the calibration inputs given to quantize_static"""
FORM = "qdq-u8s8-perchannel"


def random_input(seed: int) -> np.ndarray:
    return random_normal(seed, (1, 3, SIZE, SIZE))


def export_float(network: str, path: Path) -> None:
    import torch
    import torchvision

    torch.manual_seed(WEIGHT_SEED)
    export_onnx(getattr(torchvision.models, network)(weights=None).eval(), random_input(INPUT_SEED), path)


def quantize(float_path: Path, path: Path) -> None:
    calibration = SeededCalibrationInputs(random_input, CALIBRATION_SEEDS)
    quantize_static(float_path, path, calibration, "QDQ", per_channel=True)


def model_path(output: Path, network: str) -> Path:
    return output / f"{network}-{FORM}.onnx"


def build(output: Path, networks: tuple[str, ...] = NETWORKS) -> None:
    output.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        for network in networks:
            float_path = Path(scratch) / f"{network}-float.onnx"
            export_float(network, float_path)
            pre_processed = float_path.with_suffix(".pre.onnx")
            pre_process(float_path, pre_processed)
            quantize(pre_processed, model_path(output, network))
            np.save(output / f"{network}.input.npy", random_input(INPUT_SEED))
            print(f"{model_path(output, network)}: {model_path(output, network).stat().st_size:,} B")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--networks", nargs="+", choices=NETWORKS, default=list(NETWORKS))
    arguments = parser.parse_args(argv)
    build(arguments.output, tuple(arguments.networks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
