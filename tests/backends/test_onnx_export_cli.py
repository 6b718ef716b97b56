"""`bitfold-opt in.mlir -t onnx-<form> -o out.onnx` writes the binary model."""

import subprocess

import onnx
import pytest

MODULE = """
func.func @f(%x: tensor<4xf32> {onnx.name = "x"}) -> (tensor<4xf32> {onnx.name = "y"}) {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.25>> loc("act_q")
  %y = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 0.25>> to tensor<4xf32> loc("act_dq")
  func.return %y : tensor<4xf32>
}"""


@pytest.mark.parametrize("target", ["onnx-qdq", "onnx-qcdq", "onnx-qonnx", "onnx-qop"])
def test_bitfold_opt_writes_an_onnx_file(target, tmp_path):
    source, output = tmp_path / "in.mlir", tmp_path / "out.onnx"
    source.write_text(MODULE)
    done = subprocess.run(["bitfold-opt", str(source), "-t", target, "-o", str(output)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    model = onnx.load(output)
    assert [n.name for n in model.graph.node][0] == "act_q"
