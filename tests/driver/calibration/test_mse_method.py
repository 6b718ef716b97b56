"""`--method mse` (MSE-optimal clipping with bias correction) beats MinMax: on MLPerf Tiny's
autoencoder at w4a8, per channel, the SQNR of the outputs against the float model (onnxruntime)
on held-out inputs is higher by more than 1 dB (at w8a8 the margin is a few tenths of a dB and
depends on the calibration set: bench/quantize_sqnr.py --compare-methods)."""

import numpy as np
import onnx
from models.mlperf_tiny.architectures import BUILDERS, random_input
from models.runners import run_onnxruntime

from bitfold.frontends.onnx import import_model
from bitfold.interpreter import run
from bitfold.quantize import QuantizeOptions, quantize_model


def _sqnr(reference: np.ndarray, quantized: np.ndarray) -> float:
    return float(10 * np.log10(np.sum(reference**2) / np.sum((reference - quantized) ** 2)))


def test_mse_beats_minmax_on_the_autoencoder(tmp_path):
    path = tmp_path / "autoencoder.onnx"
    onnx.save(BUILDERS["autoencoder"](), path)
    calibration = [{"input": random_input("autoencoder", seed)} for seed in range(16)]
    tests = [{"input": random_input("autoencoder", 1000 + seed)} for seed in range(8)]
    reference = np.concatenate([run_onnxruntime(path, t)["output"] for t in tests])
    scores = {}
    for method in ("minmax", "mse"):
        module = import_model(path)
        quantize_model(module, calibration, QuantizeOptions(weight_bits=4, per_channel=True, method=method))
        scores[method] = _sqnr(reference, np.concatenate([run(module, t)["output"] for t in tests]))
    assert scores["mse"] > scores["minmax"] + 1
