"""Every quantized test model compiled for RV32IM or RV64IM runs under qemu, restricted to the
target's ISA, with outputs equal bit for bit to bitfold-run on the same integer IR (issue 6's
acceptance): `bitfold.compile.compile_model`, the harness of `backends/kernel/harness`. One target
a form, so that every network runs on both targets and the suite keeps its 15 minutes (the forms
of a network differ in their parameter tables, not their loops): QDQ on RV32IM, QOperator and QONNX
on RV64IM. Each model is compiled once a session (`catalogue_compilations`, shared with the other
files compiling catalogue models). The inputs are the catalogue's float inputs quantized by the
model's own input qcast. The emitted assembly also assembles with llvm-mc-19, and the header
compiles with -Wall -Werror -std=c99."""

import shutil
import subprocess

import numpy as np
import pytest
from conftest import require_tools
from models.recipes import names

QUANTIZED_MODELS = [name for name in names() if not name.endswith("-float")]


def _target_of(name: str) -> str:
    return "rv32im" if "-qdq-" in name else "rv64im"


def _cases():
    for name in QUANTIZED_MODELS:
        yield pytest.param(name, target := _target_of(name), id=f"{name}-{target}")


@pytest.mark.parametrize(("name", "target"), list(_cases()))
def test_qemu_equals_bitfold_run(name, target, model_catalogue, catalogue_compilations, tmp_path):
    compiled = catalogue_compilations(name, target)
    stored = compiled.quantize(model_catalogue.inputs(name, seed=0))
    actual = compiled.run_qemu(stored, tmp_path)
    expected = compiled.run_reference(stored)
    for port, got, want in zip(compiled.outputs, actual, expected, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape, port.name
        np.testing.assert_array_equal(got, want, err_msg=f"{name} on {target}: {port.name}")


@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_assembly_and_header_build_with_other_tools(target, catalogue_compilations, tmp_path):
    compiled = catalogue_compilations("cnn_depthwise-qdq-u8s4-perchannel", target)
    source = tmp_path / "model.S"
    source.write_text(compiled.assembly)
    header = tmp_path / "model.h"
    header.write_text(compiled.header)
    require_tools("llvm-mc-19")
    llvm_mc = shutil.which("llvm-mc-19")
    triple = "riscv32" if target == "rv32im" else "riscv64"
    subprocess.run([llvm_mc, f"-triple={triple}", "-mattr=+m", "-filetype=obj", str(source), "-o", str(tmp_path / "m.o")],
                   check=True, capture_output=True)
    user = tmp_path / "user.c"
    user.write_text('#include "model.h"\nint main(void) { return 0; }\n')
    subprocess.run(["gcc", "-Wall", "-Werror", "-std=c99", "-c", str(user), "-o", str(tmp_path / "u.o")],
                   check=True, capture_output=True, cwd=tmp_path)
