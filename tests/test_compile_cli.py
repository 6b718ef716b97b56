"""`bitfold-compile`, the README's main job: the bundled example compiles for RV32IM and runs
under qemu bit-exact to bitfold-run; bad input is one line and exit status 1."""

import subprocess
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_main_job_runs_the_example_bit_exact(tmp_path):
    done = subprocess.run(
        ["bitfold-compile", str(EXAMPLES / "cnn_depthwise_qdq.onnx"), "--target", "rv32im", "-o", str(tmp_path),
         "--run", str(EXAMPLES / "cnn_depthwise_input.npy")],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "qemu vs bitfold-run: bit-exact" in done.stdout
    assert {p.name for p in tmp_path.iterdir()} == {"cnn_depthwise.S", "cnn_depthwise.h", "cnn_depthwise.outputs.npz"}


def test_unsupported_model_is_one_line(tmp_path):
    model = tmp_path / "float.mlir"
    model.write_text(
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        '  %y = "onnx.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>\n'
        "  func.return %y : tensor<4xf32>\n}\n"
    )
    done = subprocess.run(["bitfold-compile", str(model), "--target", "rv32im", "--integer-only", "-o",
                           str(tmp_path / "out")], capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "onnx.Relu" in lines[0], done.stderr


def test_timeout_option_limits_every_external_tool(tmp_path):
    """--timeout bounds clang-22 / mlir-opt-22 (a limit no tool meets fails in one line naming the
    option); --timeout 0 removes the limit and the same compile succeeds."""
    command = ["bitfold-compile", str(EXAMPLES / "cnn_depthwise_qdq.onnx"), "--target", "rv64imv", "-o", str(tmp_path)]
    done = subprocess.run([*command, "--timeout", "0.001"], capture_output=True, text=True)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "did not finish within" in lines[0] and "--timeout" in lines[0], done.stderr
    done = subprocess.run([*command, "--timeout", "0"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "cnn_depthwise.S").is_file()
