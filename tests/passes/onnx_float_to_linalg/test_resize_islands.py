"""Interpolating Resize (linear, cubic) as a float island (`onnx-float-to-linalg`'s
`LowerInterpolatingResize`) against onnxruntime (ORT_DISABLE_ALL):

- float models, every coordinate transformation mode, scales and sizes: the integer IR
  (onnx-to-integer) under bitfold-run within 1e-5 (absolute, inputs of standard deviation 1) of onnxruntime;
- tf_crop_and_resize with outputs outside its region: one line naming the node."""

import subprocess

import numpy as np
import onnx
import pytest
from models.resize import X_SHAPE, resize_model
from models.runners import onnxruntime_session

import bitfold
from bitfold.load import full_context, load_module
from bitfold.passes.pipelines import OnnxToIntegerPipeline

RNG = np.random.default_rng(22)


def integer_ir(path) -> object:
    module = load_module(str(path))
    OnnxToIntegerPipeline().apply(full_context(), module)
    assert "onnx.Resize" not in str(module)
    return module


FLOAT_CASES = {
    **{f"linear-{mode}": ({"scales": [1, 1, 2, 1.5]}, {"mode": "linear", "coordinate_transformation_mode": mode})
       for mode in ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "half_pixel_symmetric")},
    "linear-sizes": ({"sizes": [1, 3, 3, 11]}, {"mode": "linear"}),
    "linear-tf-crop": ({"scales": [1, 1, 2, 2], "roi": [0, 0, 0.1, 0.2, 1, 1, 0.9, 0.7]},
                       {"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize"}),
    "cubic": ({"scales": [1, 1, 2, 0.7]}, {"mode": "cubic"}),
    "cubic-exclude-outside": ({"scales": [1, 1, 1.5, 2]}, {"mode": "cubic", "exclude_outside": 1,
                                                          "cubic_coeff_a": -0.5}),
}  # fmt: skip


@pytest.mark.parametrize("case", FLOAT_CASES)
def test_float_island_against_onnxruntime(case, tmp_path):
    parameters, attributes = FLOAT_CASES[case]
    path = tmp_path / "model.onnx"
    onnx.save(model := resize_model(**parameters, **attributes), path)
    x = RNG.standard_normal(X_SHAPE).astype(np.float32)
    (expected,) = onnxruntime_session(model).run(None, {"x": x})
    (actual,) = bitfold.run(integer_ir(path), {"x": x}).values()
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=0, atol=1e-5)


def test_extrapolation_fails_in_one_line(tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(resize_model(scales=[1, 1, 2, 2], roi=[0, 0, -0.2, 0, 1, 1, 1, 1], mode="linear",
                           coordinate_transformation_mode="tf_crop_and_resize"), path)  # fmt: skip
    done = subprocess.run(["bitfold-opt", str(path), "-p", "onnx-to-backend-input"], capture_output=True, text=True)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert "'onnx.Resize' (resize): outputs outside tf_crop_and_resize's region" in lines[0]
