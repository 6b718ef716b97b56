"""`bitfold-compile --target rv64imv --vlen 256 --run` and `--target host --run` compile a test model
through MLIR and LLVM, run it (qemu with the vector extension; the host object in-process) and find it
bit-exact to bitfold-run; `--count` is refused for the host in one line."""

import subprocess

import numpy as np
import pytest
from conftest import require_tools

MODEL = "mlp-qdq-u8s8-perchannel"


def compile_and_run(model_catalogue, tmp_path, *options):
    (name, values), = model_catalogue.inputs(MODEL, seed=0).items()
    np.save(tmp_path / "x.npy", values)
    return subprocess.run(["bitfold-compile", str(model_catalogue.path(MODEL)), "-o", str(tmp_path / "out"),
                           "--run", f"{name}={tmp_path / 'x.npy'}", *options], check=False, capture_output=True, text=True)


@pytest.mark.parametrize("options", [("--target", "rv64imv", "--vlen", "256"), ("--target", "host")])
def test_run_is_bit_exact(options, model_catalogue, tmp_path):
    require_tools("mlir-opt-22", "mlir-translate-22", "clang-22", "qemu-riscv64")
    done = compile_and_run(model_catalogue, tmp_path, *options)
    assert done.returncode == 0, done.stderr
    assert "qemu vs bitfold-run: bit-exact" in done.stdout and "DIFFERS" not in done.stdout


def test_count_on_the_host_is_refused(model_catalogue, tmp_path):
    done = compile_and_run(model_catalogue, tmp_path, "--target", "host", "--count")
    assert done.returncode == 2
    assert "--count counts instructions under qemu: not for --target host" in done.stderr
