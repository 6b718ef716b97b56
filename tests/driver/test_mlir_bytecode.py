"""`.mlirbc` input: bitfold-opt and bitfold-run read MLIR bytecode written by mlir-opt-22 (through
mlir-opt-22); without mlir-opt-22, or for bytes it cannot read, one error line and exit status 1."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from conftest import require_tools

MODULE = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1:-3>>
  %y = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 0.1:-3>> to tensor<4xf32>
  func.return %y : tensor<4xf32>
}
"""


def _bytecode(tmp_path: Path) -> Path:
    require_tools("mlir-opt-22")
    path = tmp_path / "model.mlirbc"
    subprocess.run(["mlir-opt-22", "--emit-bytecode", "-o", str(path)], input=MODULE.encode(), check=True)
    assert path.read_bytes().startswith(b"ML\xefR")  # MLIR bytecode's magic number
    return path


def test_bitfold_opt_reads_bytecode_as_the_text(tmp_path):
    text = tmp_path / "model.mlir"
    text.write_text(MODULE)
    from_text = subprocess.run(["bitfold-opt", str(text)], capture_output=True, text=True)
    from_bytecode = subprocess.run(["bitfold-opt", str(_bytecode(tmp_path))], capture_output=True, text=True)
    assert from_bytecode.returncode == 0, from_bytecode.stderr
    assert from_bytecode.stdout.replace("%arg0", "%x").replace("%0", "%q").replace("%1", "%y") == from_text.stdout


def test_bitfold_run_runs_bytecode_as_the_text(tmp_path):
    values = tmp_path / "x.npy"
    np.save(values, np.array([0.05, 0.15, -12.0, 20.0], np.float32))
    text = tmp_path / "model.mlir"
    text.write_text(MODULE)
    outputs = []
    for model, argument in ((text, "x"), (_bytecode(tmp_path), "arg0")):  # bytecode keeps no SSA names
        done = subprocess.run(["bitfold-run", str(model), "--input", f"{argument}={values}", "--output-dir",
                               str(tmp_path / model.suffix[1:])], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        (saved,) = (tmp_path / model.suffix[1:]).iterdir()
        outputs.append(np.load(saved))
    np.testing.assert_array_equal(outputs[0], outputs[1])


def test_unreadable_bytecode_is_one_line(tmp_path):
    require_tools("mlir-opt-22")
    bad = tmp_path / "bad.mlirbc"
    bad.write_bytes(b"ML\xefR\x00\x01garbage")
    for tool in ("bitfold-opt", "bitfold-run"):
        done = subprocess.run([tool, str(bad)], capture_output=True, text=True)
        assert done.returncode == 1 and "Traceback" not in done.stderr
        assert done.stderr.startswith(f"error: {bad}: mlir-opt-22 cannot read it as MLIR bytecode: ")
        assert len(done.stderr.strip().splitlines()) == 1


def test_bytecode_without_mlir_opt_is_refused_in_one_line(tmp_path):
    model = tmp_path / "model.mlirbc"
    model.write_bytes(b"ML\xefR")
    bin_dir = Path(sys.executable).parent  # the tools, without /usr/bin where mlir-opt-22 lives
    done = subprocess.run([str(bin_dir / "bitfold-opt"), str(model)], capture_output=True, text=True,
                          env={**os.environ, "PATH": str(bin_dir)})
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"error: {model}: MLIR bytecode is read through mlir-opt-22, which is not installed "
        "(apt-get install mlir-22-tools); give the IR as text (.mlir) instead"
    ]
