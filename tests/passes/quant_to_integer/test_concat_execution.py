"""Concat of differently quantized inputs: the integer form (requant each input to the
output type, join) against the float reference (dequantize, join, quantize) on random
inputs: within 1 LSB, and equal except where the float pair rounds a product first."""

from pathlib import Path

import numpy as np

import bitfold
from bitfold.dialects.quant import UniformQuantizedType, element_type
from bitfold.load import full_context, load_module
from bitfold.passes.quant_to_integer import QuantToIntegerPass

SOURCE = Path(__file__).resolve().parents[2] / "filecheck" / "passes" / "quant_to_integer" / "concat.mlir"
OUTPUT_STEP = 0.375


def test_concat_matches_the_float_reference():
    module = load_module(str(SOURCE))
    rng = np.random.default_rng(0)
    batches = [[rng.uniform(-40, 80, size=(1, 2, 2)).astype(np.float32),
                rng.uniform(-40, 40, size=(1, 3, 2)).astype(np.float32)] for _ in range(50)]
    expected = [bitfold.run(module, b)["output0"] for b in batches]
    QuantToIntegerPass().apply(full_context(), module)
    concat = next(op for op in module.walk() if op.name == "onnx.Concat")
    assert isinstance(element_type(concat.results[0].type), UniformQuantizedType)
    actual = [bitfold.run(module, b)["output0"] for b in batches]
    differing = sum(int(np.count_nonzero(got != want)) for got, want in zip(actual, expected))
    for want, got in zip(expected, actual):
        assert np.abs(np.rint((got - want) / OUTPUT_STEP)).max() <= 1
    assert differing <= 0.01 * sum(w.size for w in expected), differing
