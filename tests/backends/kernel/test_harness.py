"""The RISC-V harness runs hand-written kernels under qemu (RV32IM, RV64IM) and reports failures."""

import subprocess
from dataclasses import replace

import numpy as np
import pytest
from conftest import require_tools

from bitfold.backends.kernel.harness import (
    TARGETS,
    HarnessError,
    build_program,
    count_instructions,
    run_assembly,
)

# The compressed targets (rv32imc, rv64imc) are tested in test_compressed_targets.py.
TARGET_NAMES = sorted(name for name, spec in TARGETS.items() if not spec.compressed)


@pytest.fixture(params=TARGET_NAMES)
def target(request):
    spec = TARGETS[request.param]
    require_tools(spec.compiler, "riscv64-unknown-elf-gcc", spec.qemu)
    return request.param


def leaf(symbol: str, body: str) -> str:
    return f"""    .text
    .globl {symbol}
    .type {symbol}, @function
{symbol}:
{body}
    ret
    .size {symbol}, . - {symbol}
"""


# void add_i8(const int8_t *a, const int8_t *b, int8_t *c): c = a + b (wrapping), 64 elements.
ADD_I8 = leaf("add_i8", """\
    li t0, 64
1:  lb t1, 0(a0)
    lb t2, 0(a1)
    add t1, t1, t2
    sb t1, 0(a2)
    addi a0, a0, 1
    addi a1, a1, 1
    addi a2, a2, 1
    addi t0, t0, -1
    bnez t0, 1b""")

# void dot_i32(const int32_t *a, const int32_t *b, int32_t *out): out[0] = sum a[i] * b[i] (wrapping), 100 elements.
DOT_I32 = leaf("dot_i32", """\
    li t0, 100
    li t3, 0
1:  lw t1, 0(a0)
    lw t2, 0(a1)
    mul t1, t1, t2
    add t3, t3, t1
    addi a0, a0, 4
    addi a1, a1, 4
    addi t0, t0, -1
    bnez t0, 1b
    sw t3, 0(a2)""")

# void widen_sum(const uint8_t *x, uint16_t *wide, int32_t *sum): wide = x, sum[0] = sum x, 5 elements.
WIDEN_SUM = leaf("widen_sum", """\
    li t0, 5
    li t2, 0
1:  lbu t1, 0(a0)
    sh t1, 0(a1)
    add t2, t2, t1
    addi a0, a0, 1
    addi a1, a1, 2
    addi t0, t0, -1
    bnez t0, 1b
    sw t2, 0(a2)""")

# void sum9(const int32_t *x0, ..., const int32_t *x8, int32_t *out): out[0] = x0[0] + ... + x8[0];
# x8 and out are the ninth and tenth arguments, on the stack.
SUM9 = leaf("sum9", "\n".join(
    ["    lw t0, 0(a0)"]
    + [f"    lw t1, 0(a{i})\n    add t0, t0, t1" for i in range(1, 8)]
    + ["    lw t2, 0(sp)", "    lw t1, 0(t2)", "    add t0, t0, t1"]
    + ["    .if __riscv_xlen == 64", "    ld t2, 8(sp)", "    .else", "    lw t2, 4(sp)", "    .endif"]
    + ["    sw t0, 0(t2)"]))


def test_i8_add(target, tmp_path):
    rng = np.random.default_rng(0)
    a, b = (rng.integers(-128, 128, size=(8, 8), dtype=np.int8) for _ in range(2))
    (c,) = run_assembly(ADD_I8, target, "add_i8", [a, b], [((8, 8), np.int8)], tmp_path)
    assert c.dtype == np.int8 and c.shape == (8, 8)
    np.testing.assert_array_equal(c, (a.astype(np.int16) + b).astype(np.int8))


def test_i32_dot_product_wraps(target, tmp_path):
    rng = np.random.default_rng(1)
    a, b = (rng.integers(-(2**31), 2**31, size=100, dtype=np.int64).astype(np.int32) for _ in range(2))
    (out,) = run_assembly(DOT_I32, target, "dot_i32", [a, b], [((1,), np.int32)], tmp_path)
    expected = (a.astype(np.int64) * b.astype(np.int64)).sum() & 0xFFFFFFFF
    assert out.tolist() == [np.array(expected, np.uint32).astype(np.int32)]


def test_several_outputs_of_different_types(target, tmp_path):
    x = np.array([0, 1, 127, 128, 255], np.uint8)
    wide, total = run_assembly(WIDEN_SUM, target, "widen_sum", [x], [((5,), np.uint16), ((), np.int32)], tmp_path)
    assert wide.dtype == np.uint16 and wide.tolist() == x.tolist()
    assert total.shape == () and int(total) == 511


def test_arguments_past_the_eighth_go_on_the_stack(target, tmp_path):
    xs = [np.array([10**i], np.int32) for i in range(9)]
    (out,) = run_assembly(SUM9, target, "sum9", xs, [((1,), np.int32)], tmp_path)
    assert out.tolist() == [111111111]


def test_program_reads_stdin_and_writes_stdout(target, tmp_path):
    kernel = tmp_path / "add_i8.S"
    kernel.write_text(ADD_I8)
    layout = [((64,), np.dtype(np.int8))] * 2
    program = build_program([kernel], target, "add_i8", layout, layout[:1], tmp_path)
    a = np.arange(64, dtype=np.int8)
    spec = TARGETS[target]
    done = subprocess.run([spec.qemu, "-cpu", spec.cpu, str(program)], input=a.tobytes() * 2, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (2 * a).tobytes()


def test_count_needs_a_sized_function_symbol(target, tmp_path):
    unsized = ADD_I8.replace("    .size add_i8, . - add_i8\n", "")
    a = np.zeros(64, np.int8)
    with pytest.raises(HarnessError, match=r"add_i8 is not a function symbol with a size.*\.size add_i8, \. - add_i8"):
        count_instructions(unsized, target, "add_i8", [a, a], [((64,), np.int8)], tmp_path)


def test_assembler_error_carries_the_assemblers_message(target, tmp_path):
    with pytest.raises(HarnessError, match=r"(?s)compiling kernel_broken\.S.*unrecognized opcode `frobnicate a0'"):
        run_assembly(leaf("broken", "    frobnicate a0"), target, "broken", [], [((1,), np.int32)], tmp_path)


def test_missing_symbol_is_a_link_error(target, tmp_path):
    with pytest.raises(HarnessError, match=r"(?s)linking absent.*undefined reference to `absent'"):
        run_assembly(leaf("present", ""), target, "absent", [], [((1,), np.int32)], tmp_path)


def test_instruction_outside_the_isa_is_illegal(target, tmp_path):
    # The assembler accepts a compressed nop here; the CPU qemu emulates has no C extension.
    body = "    .option push\n    .option arch, +c\n    c.nop\n    .option pop"
    with pytest.raises(HarnessError, match="SIGILL"):
        run_assembly(leaf("compressed", body), target, "compressed", [], [((1,), np.int32)], tmp_path)


def test_clobbered_callee_saved_registers_are_named(target, tmp_path):
    body = "    li s1, 0\n    li s11, 0"
    with pytest.raises(HarnessError, match="did not preserve callee-saved registers: s1 s11$"):
        run_assembly(leaf("clobber", body), target, "clobber", [], [((1,), np.int32)], tmp_path)


@pytest.mark.parametrize("offset", [-1, 4])
def test_write_outside_an_output_is_an_error(target, tmp_path, offset):
    body = f"    sb zero, {offset}(a0)"
    with pytest.raises(HarnessError, match="overflow wrote outside out0"):
        run_assembly(leaf("overflow", body), target, "overflow", [], [((1,), np.int32)], tmp_path)


def test_unwritten_output_elements_hold_a_marker(target, tmp_path):
    (out,) = run_assembly(leaf("nothing", ""), target, "nothing", [], [((2,), np.uint8)], tmp_path)
    assert out.tolist() == [0x5C, 0x5C]


def test_unknown_target(tmp_path):
    with pytest.raises(HarnessError, match="unknown RISC-V target 'rv128im'"):
        run_assembly(ADD_I8, "rv128im", "add_i8", [], [], tmp_path)


def test_missing_toolchain_is_named(tmp_path):
    target = replace(TARGETS["rv64im"], compiler="riscv64-nonexistent-gcc")
    with pytest.raises(HarnessError, match="riscv64-nonexistent-gcc is not installed"):
        build_program([], target, "f", [], [], tmp_path)


@pytest.mark.parametrize("float_target", ["rv32imf", "rv64imfd"])
def test_clobbered_float_callee_saved_registers_are_named(float_target, tmp_path):
    spec = TARGETS[float_target]
    require_tools(spec.compiler, "riscv64-unknown-elf-gcc", spec.qemu)
    body = "    fmv.w.x fs0, zero\n    fmv.w.x fs11, zero"
    with pytest.raises(HarnessError, match="did not preserve callee-saved registers: fs0 fs11$"):
        run_assembly(leaf("clobber", body), float_target, "clobber", [], [((1,), np.int32)], tmp_path)


def test_float_registers_are_caller_saved_under_a_soft_float_abi(tmp_path):
    """rv64imv is lp64 (soft-float ABI, D implied by V): fs0..fs11 are not callee-saved there (psABI)."""
    from bitfold.backends.llvm import harness_target

    spec = harness_target("rv64imv")
    require_tools(spec.compiler, spec.qemu)
    body = "    fmv.d.x fs0, zero\n    fmv.d.x fs11, zero"
    (out,) = run_assembly(leaf("clobber", body), spec, "clobber", [], [((1,), np.uint8)], tmp_path)
    assert out.tolist() == [0x5C]
