"""`math.ctpop` on RISC-V (Zbb's cpop/cpopw, else the SWAR expansion) against numpy's
bitwise_count on edge words of 32 and (RV64) 64 bits, and the ISA strings the code generator accepts."""

import numpy as np
import pytest
from test_codegen_execution import needs_qemu, parse, riscv_toolchain, run_kernel  # noqa: F401 (the fixture)

from bitfold.backends.kernel.isa import ARCHITECTURES, Isa, IsaError
from bitfold.backends.riscv import CodegenError, compile_to_assembly

WORDS = np.array(
    [0, -1, 1, -(2**31), 2**31 - 1, 0x55555555, -0x55555556, 0x0F0F0F0F, 0x7F7F7F7F, -0x80808081, 0x12345678],
    dtype=np.int64,
)


def popcount_ir(n: int) -> str:
    """out[i] = ctpop(x[i]) + ctpop(x[i] ^ w) on i32 (a reduction-free generic)."""
    return f"""
func.func @kernel(%x: tensor<{n}xi32>) -> tensor<{n}xi32> {{
  %e = tensor.empty() : tensor<{n}xi32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                        iterator_types = ["parallel"]}} ins(%x : tensor<{n}xi32>) outs(%e : tensor<{n}xi32>) {{
  ^bb0(%a: i32, %o: i32):
    %w = arith.constant -1431655766 : i32
    %p = math.ctpop %a : i32
    %v = arith.xori %a, %w : i32
    %q = math.ctpop %v : i32
    %s = arith.addi %p, %q : i32
    linalg.yield %s : i32
  }} -> tensor<{n}xi32>
  func.return %r : tensor<{n}xi32>
}}
"""


def expected(x: np.ndarray) -> np.ndarray:
    bits = x.astype(np.int32).view(np.uint32)
    return (np.bitwise_count(bits) + np.bitwise_count(bits ^ np.uint32(0xAAAAAAAA))).astype(np.int32)


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im", "rv32im_zbb", "rv64im_zbb"])
def test_popcount_of_edge_words(target, tmp_path):
    rng = np.random.default_rng(0)
    x = np.concatenate([WORDS, rng.integers(-(2**31), 2**31, size=21)]).astype(np.int32)
    (got,) = run_kernel(popcount_ir(x.size), [x], target, tmp_path)
    np.testing.assert_array_equal(got, expected(x))


WORDS_64 = np.array(
    [0, -1, 1, -(2**63), 2**63 - 1, 0x5555555555555555, 0x0F0F0F0F0F0F0F0F, -0x7F7F7F7F7F7F7F80,
     0x123456789ABCDEF0, 0xFFFFFFFF, -(2**32)],
    dtype=np.int64,
)


def popcount64_ir(n: int) -> str:
    """out[i] = trunci(ctpop(x[i])) + trunci(ctpop(x[i] ^ w)) on i64 (RV64's binary words)."""
    return f"""
func.func @kernel(%x: tensor<{n}xi64>) -> tensor<{n}xi32> {{
  %e = tensor.empty() : tensor<{n}xi32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                        iterator_types = ["parallel"]}} ins(%x : tensor<{n}xi64>) outs(%e : tensor<{n}xi32>) {{
  ^bb0(%a: i64, %o: i32):
    %w = arith.constant -6148914691236517206 : i64
    %p = math.ctpop %a : i64
    %v = arith.xori %a, %w : i64
    %q = math.ctpop %v : i64
    %p32 = arith.trunci %p : i64 to i32
    %q32 = arith.trunci %q : i64 to i32
    %s = arith.addi %p32, %q32 : i32
    linalg.yield %s : i32
  }} -> tensor<{n}xi32>
  func.return %r : tensor<{n}xi32>
}}
"""


@needs_qemu
@pytest.mark.parametrize("target", ["rv64im", "rv64im_zbb"])
def test_popcount_of_64_bit_edge_words(target, tmp_path):
    rng = np.random.default_rng(1)
    x = np.concatenate([WORDS_64, rng.integers(-(2**63), 2**63 - 1, size=21, dtype=np.int64)])
    (got,) = run_kernel(popcount64_ir(x.size), [x], target, tmp_path)
    bits = x.view(np.uint64)
    want = np.bitwise_count(bits).astype(np.int32) + np.bitwise_count(bits ^ np.uint64(0xAAAAAAAAAAAAAAAA))
    np.testing.assert_array_equal(got, want.astype(np.int32))


def test_cpop_only_with_zbb():
    assembly = {t: compile_to_assembly(parse(popcount_ir(8)), t, "kernel") for t in ("rv32im", "rv32im_zbb", "rv64im_zbb")}
    assert "cpop " not in assembly["rv32im"] and "cpop " in assembly["rv32im_zbb"]
    assert "cpopw " in assembly["rv64im_zbb"]


@pytest.mark.parametrize(
    "text, isa",
    [("rv32im", Isa(32, False, ())), ("rv64imc", Isa(64, True, ())), ("rv32im_zbb", Isa(32, False, ("zbb",))),
     ("rv64imc_zbb", Isa(64, True, ("zbb",))), ("rv32imf", Isa(32, False, (), "f")), ("rv32imfc", Isa(32, True, (), "f")),
     ("rv64imfd", Isa(64, False, (), "fd"))],
)
def test_isa_strings(text, isa):
    assert Isa.parse(text) == isa and isa.name == text and text in ARCHITECTURES


@pytest.mark.parametrize("text", ["rv32i", "rv32imzbb", "rv32im_zbb_zbb", "rv32im_zba", "rv128im", "RV32IM", "rv32im_", "rv32imfd", "rv64imf", "rv32imcf"])
def test_other_isa_strings_are_refused(text):
    with pytest.raises(IsaError):
        Isa.parse(text)
    with pytest.raises(CodegenError, match=r"^riscv: .*" + text):
        compile_to_assembly(parse(popcount_ir(4)), text, "kernel")
