"""A two-layer transformer encoder (torch.nn.TransformerEncoder: d_model 64, 4 heads, feed-forward
128, exact GELU, LayerNorm, seeded weights) exported by torch.onnx.export at a 1 x 8 x 64 input and
quantized by onnxruntime three ways: committed fixtures made by `scripts/make_transformer_models.py`.

    encoder-qdq        quantize_static, QDQ, per-channel int8 weights, uint8 activations (attention's
                       Q.K^T and P.V are MatMuls of two quantized activations)
    encoder-dynamic    quantize_dynamic (DynamicQuantizeLinear + MatMulInteger, int8 weights)
    encoder-nbits      MatMulNBitsQuantizer (com.microsoft MatMulNBits, 4-bit symmetric blocks of 32)

`encoder.input.npy` is the float input (seed 0).
"""

from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).resolve().parent
FORMS = ("qdq", "dynamic", "nbits")


def path(form: str) -> Path:
    return FIXTURES / f"encoder-{form}.onnx"


def inputs() -> dict[str, np.ndarray]:
    return {"input": np.load(FIXTURES / "encoder.input.npy")}
