"""Interpolating Resize (linear, cubic) as a float island (`onnx-float-to-linalg`'s
`LowerInterpolatingResize`) against onnxruntime (ORT_DISABLE_ALL):

- float models, every coordinate transformation mode, scales and sizes: the integer IR
  (onnx-to-integer) under bitfold-run within 1e-5 (absolute, inputs of standard deviation 1) of onnxruntime;
- a QDQ bilinear upsampling (u8): within one output step of onnxruntime;
  rv64imv and rv32im (soft float) under qemu bit-exact to bitfold-run on the integer IR (slow);
- tf_crop_and_resize with outputs outside its region: one line naming the node."""

import subprocess

import numpy as np
import onnx
import pytest
from conftest import require_tools
from models.runners import onnxruntime_session
from onnx import TensorProto, helper, numpy_helper

import bitfold
from bitfold.load import full_context, load_module
from bitfold.passes.pipelines import OnnxToIntegerPipeline
from bitfold.riscv import compile_model

IR_VERSION = 10
RNG = np.random.default_rng(22)
X_SHAPE = [1, 3, 5, 6]


def resize_model(scales=None, sizes=None, roi=None, **attributes) -> onnx.ModelProto:
    """x -> Resize(roi, scales, sizes) -> y at opset 19."""
    initializers = [numpy_helper.from_array(np.array(v, dtype), name) for v, dtype, name in
                    ((roi, np.float32, "roi"), (scales, np.float32, "scales"), (sizes, np.int64, "sizes"))
                    if v is not None]  # fmt: skip
    inputs = ["x", "roi" if roi is not None else "", "scales" if scales is not None else "",
              "sizes" if sizes is not None else ""]  # fmt: skip
    while not inputs[-1]:
        inputs.pop()
    node = helper.make_node("Resize", inputs, ["y"], name="resize", **attributes)
    graph = helper.make_graph([node], "resize", [helper.make_tensor_value_info("x", TensorProto.FLOAT, X_SHAPE)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializers)  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=IR_VERSION)
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)


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


Y_SCALE, Y_ZERO_POINT = 0.02, 131


@pytest.fixture(scope="module")
def bilinear_qdq(tmp_path_factory) -> str:
    """x -> Q -> DQ -> Resize 2x (linear, pytorch_half_pixel: what PyTorch's
    Upsample(scale_factor=2, mode="bilinear") exports) -> Q -> DQ, u8 at scale Y_SCALE and zero
    point Y_ZERO_POINT (quantize_static leaves a Resize on a graph input float)."""
    model = resize_model(scales=[1, 1, 2, 2], mode="linear", coordinate_transformation_mode="pytorch_half_pixel")
    graph = model.graph
    graph.node[0].input[0], graph.node[0].output[0] = "xd", "yf"
    graph.node.insert(0, helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"], name="x_q"))
    graph.node.insert(1, helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"], name="x_dq"))
    graph.node.extend([helper.make_node("QuantizeLinear", ["yf", "s", "z"], ["yq"], name="y_q"),
                       helper.make_node("DequantizeLinear", ["yq", "s", "z"], ["y"], name="y_dq")])  # fmt: skip
    graph.initializer.extend([numpy_helper.from_array(np.array(Y_SCALE, np.float32), "s"),
                              numpy_helper.from_array(np.array(Y_ZERO_POINT, np.uint8), "z")])  # fmt: skip
    del graph.value_info[:]
    path = tmp_path_factory.mktemp("bilinear") / "bilinear-qdq.onnx"
    onnx.save(onnx.shape_inference.infer_shapes(model, strict_mode=True), path)
    return str(path)


def test_quantized_bilinear_within_one_step(bilinear_qdq):
    inputs = {"x": RNG.standard_normal(X_SHAPE).astype(np.float32)}
    (expected,) = onnxruntime_session(bilinear_qdq).run(None, inputs)
    (actual,) = bitfold.run(integer_ir(bilinear_qdq), inputs).values()
    assert np.abs(actual.astype(np.float64) - expected).max() <= Y_SCALE * (1 + 1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("target", ["rv64imv", "rv32im"])
def test_quantized_bilinear_under_qemu(target, bilinear_qdq, tmp_path):
    require_tools("qemu-riscv64" if target == "rv64imv" else "qemu-riscv32")
    compiled = compile_model(load_module(bilinear_qdq), target)
    stored = compiled.quantize({"x": RNG.standard_normal(X_SHAPE).astype(np.float32)})
    for got, want in zip(compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(got, want)


def test_extrapolation_fails_in_one_line(tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(resize_model(scales=[1, 1, 2, 2], roi=[0, 0, -0.2, 0, 1, 1, 1, 1], mode="linear",
                           coordinate_transformation_mode="tf_crop_and_resize"), path)  # fmt: skip
    done = subprocess.run(["bitfold-opt", str(path), "-p", "onnx-to-backend-input"], capture_output=True, text=True)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert "'onnx.Resize' (resize): outputs outside tf_crop_and_resize's region" in lines[0]
