"""`calibrated-to-uniform{layer-weight-bits=...}`: each contraction with a constant weight gets its
own width, in program order (1 bipolar); a list of the wrong length is one error line."""

import pytest
from models.runners import random_inputs

from bitfold.dialects.quant import BipolarQuantizedType, DequantizeCastOp, element_type
from bitfold.frontends.onnx import import_model
from bitfold.interpreter import entry_function
from bitfold.load import full_context
from bitfold.passes.calibration.calibrated_to_uniform import (
    CalibratedToUniformPass,
    CalibrationError,
    weighted_contractions,
)
from bitfold.quantize import QuantizeOptions, calibrate_model


@pytest.fixture(scope="module")
def calibrated(model_catalogue):
    module = import_model(model_catalogue.path("cnn_depthwise-float"))
    samples = [random_inputs(model_catalogue.load("cnn_depthwise-float"), seed) for seed in range(4)]
    calibrate_model(module, samples, QuantizeOptions())
    return module


def _weight_bits(op) -> int:
    stored = element_type(op.operands[1].owner.input.type)
    return 1 if isinstance(stored, BipolarQuantizedType) else stored.bit_width


def test_each_layer_gets_its_width(calibrated):
    module = calibrated.clone()
    layers = weighted_contractions(entry_function(module))
    widths = tuple([1, 2, 4, 8, 3][i % 5] for i in range(len(layers)))
    CalibratedToUniformPass(per_channel=True, layer_weight_bits=widths).apply(full_context(), module)
    assert all(isinstance(op.operands[1].owner, DequantizeCastOp) for op in layers)
    assert tuple(_weight_bits(op) for op in layers) == widths


def test_wrong_number_of_widths(calibrated):
    with pytest.raises(CalibrationError, match=r"lists 1 widths for \d+ layers with constant weights"):
        CalibratedToUniformPass(layer_weight_bits=(4,)).apply(full_context(), calibrated.clone())
