"""`--method mse` (MSE-optimal clipping with bias correction) beats MinMax: on MLPerf Tiny's
autoencoder at w4a8 and w8a8, per channel, the SQNR of the outputs against the float model
(onnxruntime) on held-out inputs is higher."""

import numpy as np
import onnx
import pytest
from models.mlperf_tiny.architectures import BUILDERS, random_input
from models.runners import run_onnxruntime

from bitfold.frontends.onnx import import_model
from bitfold.interpreter import run
from bitfold.quantize import QuantizeOptions, quantize_model


def _sqnr(reference: np.ndarray, quantized: np.ndarray) -> float:
    return float(10 * np.log10(np.sum(reference**2) / np.sum((reference - quantized) ** 2)))


@pytest.mark.parametrize("weights", [4, 8])
def test_mse_beats_minmax_on_the_autoencoder(weights, tmp_path):
    path = tmp_path / "autoencoder.onnx"
    onnx.save(BUILDERS["autoencoder"](), path)
    calibration = [{"input": random_input("autoencoder", seed)} for seed in range(16)]
    tests = [{"input": random_input("autoencoder", 1000 + seed)} for seed in range(8)]
    reference = np.concatenate([run_onnxruntime(path, t)["output"] for t in tests])
    scores = {}
    for method in ("minmax", "mse"):
        module = import_model(path)
        quantize_model(module, calibration, QuantizeOptions(weight_bits=weights, per_channel=True, method=method))
        scores[method] = _sqnr(reference, np.concatenate([run(module, t)["output"] for t in tests]))
    assert scores["mse"] > scores["minmax"]
