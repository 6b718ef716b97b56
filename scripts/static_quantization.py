"""The onnxruntime steps the fixture scripts share: pre-processing, `quantize_static` on seeded
calibration inputs, and the finish every written model gets (the IR version onnxruntime reads,
onnx's full check)."""

import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

IR_VERSION = 10
"""what onnxruntime reads (onnx 1.23 writes 14 by default)"""


class SeededCalibrationInputs:
    """An onnxruntime `CalibrationDataReader`: one feed `{input_name: make_input(seed)}` per seed,
    in order, then None (`make_input(seed)` is the float input array)."""

    def __init__(self, make_input: Callable[[int], np.ndarray], seeds: Iterable[int], input_name: str = "input"):
        self._samples = iter([{input_name: make_input(seed)} for seed in seeds])

    def get_next(self):
        return next(self._samples, None)


def pre_process(float_path: Path, path: Path, skip_symbolic_shape: bool = False) -> None:
    """onnxruntime's recommended step before quantizing (shape inference, graph optimization):
    torch's export shares equal biases through Identity nodes, which the quantizer would leave
    float."""
    from onnxruntime.quantization.shape_inference import quant_pre_process

    quant_pre_process(os.fspath(float_path), os.fspath(path), skip_symbolic_shape=skip_symbolic_shape)


def finish(path: Path, ir_version: int = IR_VERSION):
    """Set the model's IR version to `ir_version`, check it (onnx's full check) and save it;
    returns the model."""
    import onnx

    model = onnx.load(os.fspath(path))
    model.ir_version = ir_version
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.fspath(path))
    return model


def quantize_static(float_path: Path, path: Path, calibration: SeededCalibrationInputs, quant_format: str,
                    per_channel: bool, ir_version: int = IR_VERSION):
    """onnxruntime's `quantize_static` of the model at `float_path` into `path` (`quant_format`
    "QDQ" or "QOperator", uint8 activations, int8 weights, MinMax calibration, everything else
    its defaults; its advice about pre-processing silenced), then `finish`; returns the model."""
    from onnxruntime import quantization

    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        quantization.quantize_static(os.fspath(float_path), os.fspath(path), calibration,
                                     quant_format=quantization.QuantFormat[quant_format], per_channel=per_channel)
    finally:
        logging.disable(previous)
    return finish(path, ir_version)
