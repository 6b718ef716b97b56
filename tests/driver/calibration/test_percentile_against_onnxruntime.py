"""`--method percentile` is onnxruntime's percentile calibrator: on the calibration fixtures, the
range bitfold chooses for every quantization point equals the range onnxruntime's
`PercentileCalibrater` (as `quantize_static` creates it: symmetric histogram, 2048 bins, 99.999)
computes for the same tensor from the same samples."""

import numpy as np
import onnx
import pytest
from models.float_models import FLOAT_BUILDERS
from models.mlperf_tiny.architectures import BUILDERS, random_input

from bitfold.frontends.onnx import import_model
from bitfold.interpreter import entry_function
from bitfold.passes.calibration.points import quantization_points
from bitfold.passes.calibration.statistics import calibrated_range
from bitfold.quantize import observe_points

SAMPLES = 16


def _onnxruntime_ranges(path, samples, tmp_path) -> dict[str, tuple[float, float]]:
    from onnxruntime.quantization.calibrate import CalibrationDataReader, CalibrationMethod, create_calibrator

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.items = iter(samples)

        def get_next(self):
            return next(self.items, None)

    calibrator = create_calibrator(str(path), augmented_model_path=str(tmp_path / "augmented.onnx"),
                                   calibrate_method=CalibrationMethod.Percentile)
    calibrator.collect_data(Reader())
    return {name: tuple(float(v) for v in data.range_value) for name, data in calibrator.compute_data().data.items()}


def _fixture(name: str, tmp_path):
    path = tmp_path / f"{name}.onnx"
    if name in FLOAT_BUILDERS:
        model = FLOAT_BUILDERS[name]()
        shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
        rng = np.random.default_rng(0)
        samples = [{"input": rng.standard_normal(shape).astype(np.float32)} for _ in range(SAMPLES)]
    else:
        model = BUILDERS[name]()
        samples = [{"input": random_input(name, seed)} for seed in range(SAMPLES)]
    onnx.save(model, path)
    return path, samples


@pytest.mark.parametrize("name", [*sorted(FLOAT_BUILDERS), "autoencoder", "dscnn"])
def test_percentile_ranges_are_onnxruntimes(name, tmp_path):
    path, samples = _fixture(name, tmp_path)
    module = import_model(path)
    points = quantization_points(entry_function(module))
    expected = _onnxruntime_ranges(path, samples, tmp_path)
    compared = 0
    for point, values in zip(points, observe_points(module, samples), strict=True):
        if point.name_hint not in expected:
            continue
        low, high = calibrated_range(values, "percentile", None)
        np.testing.assert_allclose((low, high), expected[point.name_hint], rtol=1e-6, atol=1e-7,
                                   err_msg=point.name_hint)
        compared += 1
    assert compared >= len(points) - 1  # the graph input may be left out by onnxruntime
