"""Build the transformer-encoder fixtures (tests/models/transformer): a two-layer
`torch.nn.TransformerEncoder` (d_model 64, 4 heads, feed-forward 128, exact GELU, post-norm
LayerNorm, batch first) with seeded weights, exported by `torch.onnx.export` (opset 17, static
shapes, the TorchScript exporter) at a (1, SEQUENCE, 64) input, then quantized three ways by
onnxruntime:

The QDQ and dynamic ones start from the exported model after `quant_pre_process`, the MatMulNBits
ones from the export itself (pre-processing fuses MatMul + Add into Gemm, which that quantizer
leaves float).

- `encoder-qdq.onnx`: `quantize_static` (QDQ, per-channel int8 weights,
  uint8 activations, MinMax calibration on seeded random inputs): attention's Q.K^T and P.V are
  MatMuls of two quantized activations;
- `encoder-dynamic.onnx`: `quantize_dynamic` (uint8 DynamicQuantizeLinear + MatMulInteger on the
  int8 weights of every MatMul with a constant weight);
- `encoder-nbits.onnx`: `MatMulNBitsQuantizer` (4-bit weights in blocks of BLOCK_SIZE along K,
  symmetric: MatMulNBits nodes of com.microsoft, no zero points, negative scales; the other MatMuls
  and the out-projection's Gemm stay float).

    /path/to/torch-venv/bin/python scripts/make_transformer_models.py --output tests/models/transformer

Needs torch besides onnx and onnxruntime (install it in a separate environment: it is no
dependency of bitfold). Writes the models and `encoder.input.npy` (seed 0).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
from static_quantization import SeededCalibrationInputs, finish, pre_process
from torch_export import export_onnx, random_normal

D_MODEL = 64
HEADS = 4
FEED_FORWARD = 128
LAYERS = 2
SEQUENCE = 8
BLOCK_SIZE = 32
"""MatMulNBits' block along K (a power of two >= 16, as onnxruntime requires)"""
WEIGHT_SEED = 0
INPUT_SEED = 0
CALIBRATION_SEEDS = range(1000, 1008)
"""seeds of the calibration inputs given to quantize_static"""


def random_input(seed: int) -> np.ndarray:
    return random_normal(seed, (1, SEQUENCE, D_MODEL))


def export_float(path: Path) -> None:
    import torch

    torch.manual_seed(WEIGHT_SEED)
    layer = torch.nn.TransformerEncoderLayer(
        D_MODEL, HEADS, FEED_FORWARD, dropout=0.0, activation="gelu", batch_first=True
    )
    model = torch.nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False).eval()
    with torch.no_grad():  # the layers are copies of one: give each its own weights, biases and norms
        for name, parameter in model.named_parameters():
            if parameter.dim() > 1:
                torch.nn.init.xavier_uniform_(parameter)
            else:
                parameter.copy_(
                    0.1 * torch.randn_like(parameter) + (1.0 if "norm" in name and "weight" in name else 0.0)
                )
    export_onnx(model, random_input(INPUT_SEED), path)


def quantize_qdq(float_path: Path, path: Path) -> None:
    from onnxruntime.quantization import QuantFormat, quantize_static

    calibration = SeededCalibrationInputs(random_input, CALIBRATION_SEEDS)
    quantize_static(
        os.fspath(float_path), os.fspath(path), calibration, quant_format=QuantFormat.QDQ, per_channel=True
    )


def quantize_dynamic(float_path: Path, path: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(os.fspath(float_path), os.fspath(path), weight_type=QuantType.QInt8)


def quantize_nbits(float_path: Path, path: Path) -> None:
    import onnx
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    quantizer = MatMulNBitsQuantizer(
        onnx.load(os.fspath(float_path)), block_size=BLOCK_SIZE, is_symmetric=True, accuracy_level=None
    )
    quantizer.process()
    quantizer.model.save_model_to_file(os.fspath(path), use_external_data_format=False)


def build(output: Path) -> None:
    output.mkdir(parents=True, exist_ok=True)
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)  # the quantizers' advice
    try:
        with tempfile.TemporaryDirectory() as scratch:
            exported = Path(scratch) / "encoder-exported.onnx"
            export_float(exported)
            float_path = Path(scratch) / "encoder-float.onnx"
            pre_process(exported, float_path, skip_symbolic_shape=True)  # it fails on torch's attention Reshape
            made = {
                "encoder-qdq.onnx": lambda p: quantize_qdq(float_path, p),
                "encoder-dynamic.onnx": lambda p: quantize_dynamic(float_path, p),
                "encoder-nbits.onnx": lambda p: quantize_nbits(exported, p),
            }
            for name, make in made.items():
                make(output / name)
                finish(output / name)
                print(f"{output / name}: {(output / name).stat().st_size:,} B")
    finally:
        logging.disable(previous)
    np.save(output / "encoder.input.npy", random_input(INPUT_SEED))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, required=True)
    build(parser.parse_args(argv).output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
