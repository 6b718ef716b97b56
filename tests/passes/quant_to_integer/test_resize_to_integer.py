"""Interpolating Resize on quantized values (`passes/quant_to_integer/resize.py`) against
onnxruntime (ORT_DISABLE_ALL), on x -> Q -> DQ -> Resize -> Q -> DQ models (u8):

- dyadic weights (2x bilinear, pytorch_half_pixel and half_pixel; 2x bicubic): integers, no
  Resize left; a scale of 1.5 (weights in thirds): a float island; each within one output
  step of onnxruntime;
- rv64imv and rv32im under qemu bit-exact to bitfold-run on the integer IR (slow)."""

import numpy as np
import onnx
import pytest
from conftest import require_tools
from models.resize import X_SHAPE, resize_model
from models.runners import onnxruntime_session
from onnx import helper, numpy_helper

import bitfold
from bitfold.compile import compile_model
from bitfold.load import full_context, load_module
from bitfold.passes.pipelines import OnnxToIntegerPipeline

RNG = np.random.default_rng(23)

Y_SCALE, Y_ZERO_POINT = 0.02, 131


CASES = {
    "bilinear-pytorch": ({"scales": [1, 1, 2, 2]},
                         {"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel"}),
    "bilinear-half-pixel": ({"sizes": [1, 3, 10, 12]}, {"mode": "linear"}),
    "bicubic": ({"scales": [1, 1, 2, 2]}, {"mode": "cubic"}),
    "bilinear-1.5": ({"scales": [1, 1, 1.5, 1.5]}, {"mode": "linear"}),
}  # fmt: skip
INTEGER = {"bilinear-pytorch", "bilinear-half-pixel", "bicubic"}


def qdq_resize(path, case: str) -> str:
    """x -> Q -> DQ -> Resize -> Q -> DQ, u8 at scale Y_SCALE and zero point Y_ZERO_POINT
    (quantize_static leaves a Resize on a graph input float). PyTorch's
    Upsample(scale_factor=2, mode="bilinear") exports the first."""
    parameters, attributes = CASES[case]
    model = resize_model(**parameters, **attributes)
    graph = model.graph
    graph.node[0].input[0], graph.node[0].output[0] = "xd", "yf"
    graph.node.insert(0, helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"], name="x_q"))
    graph.node.insert(1, helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["xd"], name="x_dq"))
    graph.node.extend([helper.make_node("QuantizeLinear", ["yf", "s", "z"], ["yq"], name="y_q"),
                       helper.make_node("DequantizeLinear", ["yq", "s", "z"], ["y"], name="y_dq")])  # fmt: skip
    graph.initializer.extend([numpy_helper.from_array(np.array(Y_SCALE, np.float32), "s"),
                              numpy_helper.from_array(np.array(Y_ZERO_POINT, np.uint8), "z")])  # fmt: skip
    del graph.value_info[:]
    onnx.save(onnx.shape_inference.infer_shapes(model, strict_mode=True), path)
    return str(path)


@pytest.mark.parametrize("case", CASES)
def test_within_one_step(case, tmp_path):
    path = qdq_resize(tmp_path / "model.onnx", case)
    inputs = {"x": RNG.uniform(-2.6, 2.5, X_SHAPE).astype(np.float32)}
    (expected,) = onnxruntime_session(path).run(None, inputs)
    module = load_module(path)
    OnnxToIntegerPipeline().apply(full_context(), module)
    assert (str(module).count("arith.mulf") == 1) == (case in INTEGER)  # the output dcast's, or the island's too
    (actual,) = bitfold.run(module, inputs).values()
    steps = np.abs(actual.astype(np.float64) - expected) / Y_SCALE  # f32 values: a step is 0.02 +- their ulp
    assert steps.max() <= 1 + 1e-4


@pytest.mark.slow
@pytest.mark.parametrize("target", ["rv64imv", "rv32im"])
def test_bilinear_under_qemu(target, tmp_path):
    require_tools("qemu-riscv64" if target == "rv64imv" else "qemu-riscv32")
    compiled = compile_model(load_module(qdq_resize(tmp_path / "model.onnx", "bilinear-pytorch")), target)
    stored = compiled.quantize({"x": RNG.standard_normal(X_SHAPE).astype(np.float32)})
    for got, want in zip(compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(got, want)
