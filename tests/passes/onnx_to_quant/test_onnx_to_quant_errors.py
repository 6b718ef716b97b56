"""onnx-to-quant refuses what the canonical form cannot hold with one line naming the node,
through `bitfold-opt` as well (no traceback)."""

import subprocess

import pytest

QUANT = """
func.func @f(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {{
  %zp = "onnx.Constant"() {{value = dense<{zp}> : tensor<f32>}} : () -> tensor<f32>
  %scale = "onnx.Constant"() {{value = dense<0.5> : tensor<f32>}} : () -> tensor<f32>
  %bits = "onnx.Constant"() {{value = dense<{bits}> : tensor<f32>}} : () -> tensor<f32>
  %y = "qonnx.Quant"(%x, {scale}, %zp, %bits) {{signed = 1 : i64, narrow = 0 : i64, rounding_mode = "ROUND"}} : (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32> loc("q1")
  func.return %y : tensor<4xf32>
}}
"""


@pytest.mark.parametrize(("zp", "bits", "scale", "message"), [
    ("0.0", "8.0", "%s", "scale is not a constant"),
    ("0.5", "8.0", "%scale", "zero point must be an integer, got 0.5"),
    ("0.0", "4.5", "%scale", "'bitwidth' must be an integer in [1, 64], got 4.5"),  # the verifier's, before the pass
    ("0.0", "33.0", "%scale", "bitwidth must be one integer in 1..32, got 33"),
    ("1.0", "1.0", "%scale", "a bipolar (1-bit signed) quantizer takes no zero point"),
])
def test_refusal_is_one_line_naming_the_node(zp, bits, scale, message):
    source = QUANT.format(zp=zp, bits=bits, scale=scale)
    done = subprocess.run(["bitfold-opt", "-p", "onnx-to-quant"], input=source, capture_output=True, text=True)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: 'qonnx.Quant' op ") and message in lines[0]


TRUNC = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = "onnx.Constant"() {value = dense<0.25> : tensor<f32>} : () -> tensor<f32>
  %zp = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %in = "onnx.Constant"() {value = dense<8.0> : tensor<f32>} : () -> tensor<f32>
  %so = "onnx.Constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
  %out = "onnx.Constant"() {value = dense<6.0> : tensor<f32>} : () -> tensor<f32>
  %y = "qonnx.Trunc"(%x, %s, %zp, %in, %so, %out) {rounding_mode = "FLOOR", narrow = 0 : i64, signed = 1 : i64} : (tensor<4xf32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<4xf32> loc("t1")
  func.return %y : tensor<4xf32>
}
"""


def test_trunc_output_zero_point_must_be_an_integer():
    done = subprocess.run(["bitfold-opt", "-p", "onnx-to-quant"], input=TRUNC, capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.strip() == ("error: 'qonnx.Trunc' op onnx-to-quant: 'qonnx.Trunc' (t1): output zero point "
                                   "(zeropt / 2^k) must be an integer, got 0.25")
