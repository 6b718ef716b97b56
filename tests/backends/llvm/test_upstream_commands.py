"""docs/upstream-mlir.md's commands, run as the page writes them (INDEX replaced by 64) on a test model: the
assembly clang-22 gives from them, linked into the harness and run under qemu (rv64imv, VLEN 128), equals
bitfold's interpreter on the integer IR bit for bit; and the pass pipeline on the page is the one the
backend runs (`toolchain.pass_pipeline`)."""

import re
import shlex
import subprocess
from pathlib import Path

import numpy as np
from conftest import require_tools

from bitfold.backends.kernel.harness import run_assembly
from bitfold.backends.llvm import harness_target
from bitfold.backends.llvm.emit import ARCH_ATTRIBUTE
from bitfold.backends.llvm.toolchain import pass_pipeline

DOC = Path(__file__).resolve().parents[3] / "docs" / "upstream-mlir.md"
MODEL = "cnn_depthwise-qdq-u8s8-perchannel"


def documented_commands() -> list[str]:
    block = re.search(r"## The commands.*?```sh\n(.*?)```", DOC.read_text(), re.DOTALL).group(1)
    return [line for line in block.splitlines() if line.strip()]


def test_the_page_gives_the_backends_pipeline():
    (mlir_opt,) = [c for c in documented_commands() if c.startswith("mlir-opt-22")]
    assert f"--pass-pipeline='{pass_pipeline(64).replace('64', 'INDEX')}'" in mlir_opt


def test_the_documented_commands_give_the_backends_assembly(model_catalogue, catalogue_compilations, tmp_path):
    require_tools("mlir-opt-22", "mlir-translate-22", "clang-22")
    model = model_catalogue.path(MODEL)
    for command in documented_commands():
        words = [w.replace("INDEX", "64") for w in shlex.split(command.replace("MODEL.onnx", str(model)))]
        done = subprocess.run(words, check=False, cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, f"{command}\n{done.stderr}"
    compiled = catalogue_compilations(MODEL, "rv64imv", "llvm")
    assembly = f"# workspace: {compiled.workspace_size} bytes\n" + ARCH_ATTRIBUTE.sub("", (tmp_path / "kernel.S").read_text())
    stored = compiled.quantize(model_catalogue.inputs(MODEL, seed=0))
    require_tools("qemu-riscv64", "riscv64-linux-gnu-gcc")
    actual = run_assembly(assembly, harness_target("rv64imv"), compiled.symbol, stored, compiled.layouts, tmp_path / "run")
    for got, want in zip(actual, compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(got, want)
