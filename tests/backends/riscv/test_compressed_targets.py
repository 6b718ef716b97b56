"""The compressed targets rv32imc and rv64imc: the harness builds and runs programs on a qemu CPU
with the C extension, bitfold's assembly for them lets the assembler use 16-bit encodings, and a
compiled catalogue model runs bit-exact to bitfold-run in less `.text` than on rv32im / rv64im."""


import numpy as np
import pytest
from conftest import require_tools

from bitfold.backends.kernel.harness import TARGETS, compile_object, run_assembly, section_sizes
from bitfold.compile import CompiledModel

COMPRESSED = {"rv32imc": "rv32im", "rv64imc": "rv64im"}
"""each compressed target -> the same ISA without C"""
MODEL = "cnn_depthwise-qdq-u8s8-perchannel"


@pytest.fixture(scope="module")
def compiled(catalogue_compilations) -> dict[str, CompiledModel]:
    """MODEL compiled once for each compressed target and its base."""
    return {name: catalogue_compilations(MODEL, name) for pair in COMPRESSED.items() for name in pair}


@pytest.fixture(params=sorted(COMPRESSED))
def target(request):
    spec = TARGETS[request.param]
    require_tools(spec.compiler, "riscv64-unknown-elf-gcc", "riscv64-unknown-elf-size", spec.qemu)
    return request.param


def test_compressed_targets_are_the_im_targets_with_c():
    for name, base in COMPRESSED.items():
        spec, base_spec = TARGETS[name], TARGETS[base]
        assert spec.compressed and not base_spec.compressed
        assert (spec.xlen, spec.mabi, spec.march) == (base_spec.xlen, base_spec.mabi, base + "c")
        assert "c=false" in base_spec.cpu.split(",") and "c=false" not in spec.cpu.split(",")
        assert set(spec.cpu.split(",")) == set(base_spec.cpu.split(",")) - {"c=false"}


def test_a_compressed_instruction_runs(target, tmp_path):
    kernel = """    .text
    .globl one
    .type one, @function
one:
    c.li t0, 1
    sw t0, 0(a0)
    c.jr ra
    .size one, . - one
"""
    (out,) = run_assembly(kernel, target, "one", [], [((1,), np.int32)], tmp_path)
    assert out.tolist() == [1]


def test_assembly_allows_compression_only_for_compressed_targets(compiled):
    for name, base in COMPRESSED.items():
        assert "\n.option rvc\n" in compiled[name].assembly
        assert "\n.option norvc\n" in compiled[base].assembly


def test_model_runs_bit_exact_in_less_text(target, compiled, model_catalogue, tmp_path):
    model = compiled[target]
    stored = model.quantize(model_catalogue.inputs(MODEL, seed=0))
    for port, got, want in zip(model.outputs, model.run_qemu(stored, tmp_path / "run"),
                               model.run_reference(stored), strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape, port.name
        np.testing.assert_array_equal(got, want, err_msg=f"{MODEL} on {target}: {port.name}")
    text = {}
    for name in (target, COMPRESSED[target]):
        source = tmp_path / f"{name}.S"
        source.write_text(compiled[name].assembly)
        text[name] = section_sizes(compile_object(source, TARGETS[name], tmp_path))[".text"]
    assert text[target] < text[COMPRESSED[target]], text
