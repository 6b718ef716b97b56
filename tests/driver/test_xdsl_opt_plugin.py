"""Plain `xdsl-opt` with bitfold installed (the `xdsl.universe` plugin): the ONNX exporters are not offered
(xdsl-opt hands a target a text buffer; an ONNX model is bytes), so asking for one is xdsl-opt's usage error,
before any output file is opened; bitfold-opt writes the same model."""

import subprocess

import onnx
import pytest

MODULE = "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {\n  func.return %x : tensor<2xf32>\n}\n"


@pytest.mark.parametrize("form", ["qdq", "qcdq", "qonnx", "qop"])
def test_xdsl_opt_refuses_onnx_targets_without_writing_a_file(tmp_path, form):
    source = tmp_path / "f.mlir"
    source.write_text(MODULE)
    output = tmp_path / "x.onnx"
    done = subprocess.run(["xdsl-opt", str(source), "-t", f"onnx-{form}", "-o", str(output)],
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert f"invalid choice: 'onnx-{form}'" in done.stderr and "Traceback" not in done.stderr
    assert not output.exists()


def test_xdsl_opt_help_lists_bitfold_text_targets_only():
    done = subprocess.run(["xdsl-opt", "--help"], capture_output=True, text=True)
    assert done.returncode == 0
    assert "bitfold-riscv-asm" in done.stdout and "onnx-qdq" not in done.stdout


def test_bitfold_opt_writes_the_onnx_model(tmp_path):
    source = tmp_path / "f.mlir"
    source.write_text(MODULE)
    output = tmp_path / "x.onnx"
    done = subprocess.run(["bitfold-opt", str(source), "-t", "onnx-qdq", "-o", str(output)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    model = onnx.load(output)
    onnx.checker.check_model(model, full_check=True)
    assert len(model.graph.input) == 1 and [node.op_type for node in model.graph.node] in ([], ["Identity"])
