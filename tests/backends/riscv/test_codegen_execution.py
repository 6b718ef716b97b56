"""Generated RISC-V kernels run under qemu (RV64IM, Linux user mode) against numpy and bitfold's
interpreter on the tensor IR; the same kernels assembled for RV32IM by GNU as and llvm-mc."""

import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import require_tools
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import IntegerType, MemRefType, TensorType
from xdsl.parser import Parser

from bitfold.backends.kernel.harness import run_assembly
from bitfold.backends.riscv import CodegenError, compile_to_assembly

RV32_GCC = "riscv64-unknown-elf-gcc"
LLVM_MC = "llvm-mc-19"


@pytest.fixture
def riscv_toolchain():
    """The RISC-V cross compilers and qemu user mode (conftest's require_tools)."""
    require_tools("riscv64-linux-gnu-gcc", RV32_GCC, "qemu-riscv64", "qemu-riscv32")


needs_qemu = pytest.mark.usefixtures("riscv_toolchain")


def parse(text: str):
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return Parser(ctx, text).parse_module()


def storage_dtype(element: IntegerType) -> np.dtype:
    """Bytes of one element in the kernel's buffers: sub-byte types take one byte."""
    width = element.width.data
    return np.dtype({8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}[max(8, 1 << (width - 1).bit_length())])


def function_outputs(module) -> list[tuple[tuple[int, ...], np.dtype]]:
    from xdsl.dialects import func

    (function,) = [f for f in module.ops if isinstance(f, func.FuncOp)]
    result = []
    for t in function.function_type.outputs:
        assert isinstance(t, TensorType | MemRefType)
        result.append((tuple(t.get_shape()), storage_dtype(t.get_element_type())))
    return result


def run_kernel(ir: str, inputs: list[np.ndarray], target: str, tmp_path: Path) -> list[np.ndarray]:
    """Compile `ir` for `target`, run it once under qemu restricted to that ISA (the harness of
    `bitfold.backends.kernel.harness`) and return the outputs."""
    module = parse(ir)
    assembly = compile_to_assembly(module, target, "kernel")
    workdir = tmp_path / target
    workdir.mkdir()
    return run_assembly(assembly, target, "kernel", inputs, function_outputs(module), workdir)


def assemble_rv32(ir: str, tmp_path: Path) -> str:
    """Compile `ir` for RV32IM and assemble it with GNU as and llvm-mc (both must accept it)."""
    assembly = compile_to_assembly(parse(ir), "rv32im", "kernel")
    source = tmp_path / "kernel32.S"
    source.write_text(assembly)
    require_tools(RV32_GCC, LLVM_MC)
    subprocess.run(
        [RV32_GCC, "-march=rv32im", "-mabi=ilp32", "-c", "-o", tmp_path / "k32.o", source],
        check=True, capture_output=True, text=True,
    )
    subprocess.run(
        [LLVM_MC, "-triple=riscv32", "-mattr=+m", "-filetype=obj", "-o", tmp_path / "k32mc.o", source],
        check=True, capture_output=True, text=True,
    )
    return assembly


MATMUL = """
func.func @mm(%a: tensor<5x7xi8>) -> tensor<5x3xi32> {
  %w = arith.constant dense<[[1, -2, 3], [4, 5, -6], [7, 8, 9], [-10, 11, 12], [13, -14, 15], [16, 17, -18], [19, 20, -128]]> : tensor<7x3xi8>
  %e = tensor.empty() : tensor<5x3xi32>
  %c0 = arith.constant 0 : i32
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<5x3xi32>) {
  ^bb0(%o: i32):
    linalg.yield %c0 : i32
  } -> tensor<5x3xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<5x7xi8>, tensor<7x3xi8>) outs(%z : tensor<5x3xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %zp = arith.constant 128 : i32
    %xs = arith.subi %xe, %zp : i32
    %p = arith.muli %xs, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<5x3xi32>
  func.return %r : tensor<5x3xi32>
}
"""
MATMUL_W = np.array(
    [[1, -2, 3], [4, 5, -6], [7, 8, 9], [-10, 11, 12], [13, -14, 15], [16, 17, -18], [19, 20, -128]], dtype=np.int64
)


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_matmul_u8_times_s8_with_zero_point(target, tmp_path):
    a = np.random.default_rng(0).integers(-128, 128, size=(5, 7), dtype=np.int8)
    (out,) = run_kernel(MATMUL, [a], target, tmp_path)
    expected = (a.view(np.uint8).astype(np.int64) - 128) @ MATMUL_W
    np.testing.assert_array_equal(out, expected)


def conv_ir() -> str:
    """Depthwise 3x3 convolution, stride 2, u8 activations (zero point 3) times s8 weights plus
    an i32 bias, as one 7-loop generic (n, group, multiplier, oh, ow, kh, kw) into a 5-d
    accumulator; a reshape to NCHW; then a generic clamping to [0, 255] and narrowing to i8."""
    weights = CONV_W.reshape(4, 1, 3, 3).tolist()
    return f"""
func.func @dw(%x: tensor<1x4x9x9xi8>) -> tensor<1x4x4x4xi8> {{
  %w = arith.constant dense<{weights}> : tensor<4x1x3x3xi8>
  %bias = arith.constant dense<[100, -200, 0, 7]> : tensor<4xi32>
  %e = tensor.empty() : tensor<1x4x1x4x4xi32>
  %b = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}} ins(%bias : tensor<4xi32>) outs(%e : tensor<1x4x1x4x4xi32>) {{
  ^bb0(%v: i32, %o: i32):
    linalg.yield %v : i32
  }} -> tensor<1x4x1x4x4xi32>
  %acc = linalg.generic {{indexing_maps = [
      affine_map<(n, g, m, oh, ow, kh, kw) -> (n, g, oh * 2 + kh, ow * 2 + kw)>,
      affine_map<(n, g, m, oh, ow, kh, kw) -> (g, m, kh, kw)>,
      affine_map<(n, g, m, oh, ow, kh, kw) -> (n, g, m, oh, ow)>],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}}
      ins(%x, %w : tensor<1x4x9x9xi8>, tensor<4x1x3x3xi8>) outs(%b : tensor<1x4x1x4x4xi32>) {{
  ^bb0(%xv: i8, %wv: i8, %a: i32):
    %xe = arith.extui %xv : i8 to i32
    %zp = arith.constant 3 : i32
    %xs = arith.subi %xe, %zp : i32
    %we = arith.extsi %wv : i8 to i32
    %p = arith.muli %xs, %we : i32
    %s = arith.addi %a, %p : i32
    linalg.yield %s : i32
  }} -> tensor<1x4x1x4x4xi32>
  %flat = tensor.collapse_shape %acc [[0], [1, 2], [3], [4]] : tensor<1x4x1x4x4xi32> into tensor<1x4x4x4xi32>
  %e8 = tensor.empty() : tensor<1x4x4x4xi8>
  %y = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%flat : tensor<1x4x4x4xi32>) outs(%e8 : tensor<1x4x4x4xi8>) {{
  ^bb0(%v: i32, %o: i8):
    %lo = arith.constant 0 : i32
    %hi = arith.constant 255 : i32
    %c = arith.maxsi %v, %lo : i32
    %d = arith.minsi %c, %hi : i32
    %t = arith.trunci %d : i32 to i8
    linalg.yield %t : i8
  }} -> tensor<1x4x4x4xi8>
  func.return %y : tensor<1x4x4x4xi8>
}}
"""


CONV_W = np.random.default_rng(1).integers(-128, 128, size=(4, 3, 3))
CONV_BIAS = np.array([100, -200, 0, 7])


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_depthwise_conv_stride_2_with_reshape(target, tmp_path):
    x = np.random.default_rng(2).integers(-128, 128, size=(1, 4, 9, 9), dtype=np.int8)
    (out,) = run_kernel(conv_ir(), [x], target, tmp_path)
    xs = x.view(np.uint8).astype(np.int64) - 3
    acc = np.zeros((1, 4, 4, 4), dtype=np.int64) + CONV_BIAS[None, :, None, None]
    for kh in range(3):
        for kw in range(3):
            acc += xs[:, :, kh : kh + 8 : 2, kw : kw + 8 : 2] * CONV_W[None, :, kh, kw, None, None]
    np.testing.assert_array_equal(out, np.clip(acc, 0, 255).astype(np.uint8).view(np.int8))


MAX_POOL = """
func.func @pool(%x: tensor<2x7x7xi8>) -> tensor<2x3x3xi8> {
  %window = tensor.empty() : tensor<3x3xi8>
  %e = tensor.empty() : tensor<2x3x3xi8>
  %init = linalg.generic {indexing_maps = [affine_map<(c, i, j) -> (c, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<2x3x3xi8>) {
  ^bb0(%o: i8):
    %lowest = arith.constant -128 : i8
    linalg.yield %lowest : i8
  } -> tensor<2x3x3xi8>
  %m = linalg.generic {indexing_maps = [affine_map<(c, i, j, ki, kj) -> (c, i * 2 + ki, j * 2 + kj)>, affine_map<(c, i, j, ki, kj) -> (ki, kj)>, affine_map<(c, i, j, ki, kj) -> (c, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %window : tensor<2x7x7xi8>, tensor<3x3xi8>) outs(%init : tensor<2x3x3xi8>) {
  ^bb0(%v: i8, %unused: i8, %acc: i8):
    %r = arith.maxsi %v, %acc : i8
    linalg.yield %r : i8
  } -> tensor<2x3x3xi8>
  func.return %m : tensor<2x3x3xi8>
}
"""


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_max_pool_3x3_stride_2(target, tmp_path):
    x = np.random.default_rng(3).integers(-128, 128, size=(2, 7, 7), dtype=np.int8)
    (out,) = run_kernel(MAX_POOL, [x], target, tmp_path)
    expected = np.full((2, 3, 3), -128, dtype=np.int8)
    for i in range(3):
        for j in range(3):
            expected[:, i, j] = x[:, 2 * i : 2 * i + 3, 2 * j : 2 * j + 3].max(axis=(1, 2))
    np.testing.assert_array_equal(out, expected)


REQUANT = """
func.func @requant(%acc: tensor<3x5xi32>) -> tensor<3x5xi8> {
  %e = tensor.empty() : tensor<3x5xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : tensor<3x5xi32>) outs(%e : tensor<3x5xi8>) {
  ^bb0(%x: i32, %o: i8):
    %m = arith.constant 1374389535 : i32
    %lo, %hi = arith.mulsi_extended %x, %m : i32
    %c27 = arith.constant 27 : i32
    %round_bit = arith.shrui %lo, %c27 : i32
    %c16 = arith.constant 16 : i32
    %odd = arith.andi %round_bit, %c16 : i32
    %c4 = arith.constant 4 : i32
    %q = arith.shrsi %hi, %c4 : i32
    %c1 = arith.constant 1 : i32
    %up = arith.addi %q, %c1 : i32
    %zero = arith.constant 0 : i32
    %round = arith.cmpi ugt, %odd, %zero : i32
    %rounded = arith.select %round, %up, %q : i32
    %zp = arith.constant -2 : i32
    %shifted = arith.addi %rounded, %zp : i32
    %big = arith.cmpi sgt, %shifted, %c4 : i32
    %flag = arith.extui %big : i1 to i32
    %c32 = arith.constant 32 : i32
    %f = arith.ori %shifted, %zero : i32
    %lo8 = arith.constant -128 : i32
    %hi8 = arith.constant 127 : i32
    %a = arith.maxsi %f, %lo8 : i32
    %b = arith.minsi %a, %hi8 : i32
    %sum = arith.addi %b, %flag : i32
    %clamped = arith.minsi %sum, %hi8 : i32
    %t = arith.trunci %clamped : i32 to i8
    linalg.yield %t : i8
  } -> tensor<3x5xi8>
  func.return %r : tensor<3x5xi8>
}
"""


def requant_reference(x: np.ndarray) -> np.ndarray:
    product = x.astype(np.int64) * 1374389535
    lo = product & 0xFFFFFFFF
    hi = product >> 32
    odd = (lo >> 27) & 16
    q = hi >> 4
    rounded = np.where(odd > 0, q + 1, q)
    shifted = rounded - 2
    flag = (shifted > 4).astype(np.int64)
    b = np.clip(shifted, -128, 127)
    return np.minimum(b + flag, 127).astype(np.int8)


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_requant_mulsi_extended_shift_select_clamp(target, tmp_path):
    rng = np.random.default_rng(4)
    x = rng.integers(-(2**31), 2**31, size=(3, 5), dtype=np.int64).astype(np.int32)
    x[0, :5] = [0, -1, 2**31 - 1, -(2**31), 200]
    (out,) = run_kernel(REQUANT, [x], target, tmp_path)
    np.testing.assert_array_equal(out, requant_reference(x))


HIGH_WORD_REQUANT = """
func.func @requant(%acc: tensor<3x5xi32>) -> tensor<3x5xi8> {
  %e = tensor.empty() : tensor<3x5xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : tensor<3x5xi32>) outs(%e : tensor<3x5xi8>) {
  ^bb0(%x: i32, %o: i8):
    %m = arith.constant 1374389535 : i32
    %lo, %hi = arith.mulsi_extended %x, %m : i32
    %half = arith.constant 8 : i32
    %biased = arith.addi %hi, %half : i32
    %c4 = arith.constant 4 : i32
    %q = arith.shrsi %biased, %c4 : i32
    %lo8 = arith.constant -128 : i32
    %hi8 = arith.constant 127 : i32
    %a = arith.maxsi %q, %lo8 : i32
    %b = arith.minsi %a, %hi8 : i32
    %t = arith.trunci %b : i32 to i8
    linalg.yield %t : i8
  } -> tensor<3x5xi8>
  func.return %r : tensor<3x5xi8>
}
"""


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_requant_high_word_only(target, tmp_path):
    """lower-quant's half-up requantization reads the high word of the product alone (`mulh`
    without `mul` on RV32): round(x * M / 2^36) half up, clamped to i8."""
    rng = np.random.default_rng(6)
    x = rng.integers(-(2**31), 2**31, size=(3, 5), dtype=np.int64).astype(np.int32)
    x[0, :5] = [0, -1, 2**31 - 1, -(2**31), 200]
    x[1, :5] = rng.integers(-(2**12), 2**12, size=5)
    (out,) = run_kernel(HIGH_WORD_REQUANT, [x], target, tmp_path)
    expected = np.clip((x.astype(np.int64) * 1374389535 + 2**35) >> 36, -128, 127).astype(np.int8)
    np.testing.assert_array_equal(out, expected)


def packed_matmul_ir(extension: str) -> str:
    return f"""
func.func @mm4(%a: tensor<2x7xi8>) -> tensor<2x3xi32> {{
  %w = arith.constant dense<{I4_WEIGHTS.tolist()}> : tensor<7x3xi4>
  %e = tensor.empty() : tensor<2x3xi32>
  %z = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} outs(%e : tensor<2x3xi32>) {{
  ^bb0(%o: i32):
    %c0 = arith.constant 0 : i32
    linalg.yield %c0 : i32
  }} -> tensor<2x3xi32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%a, %w : tensor<2x7xi8>, tensor<7x3xi4>) outs(%z : tensor<2x3xi32>) {{
  ^bb0(%x: i8, %y: i4, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.{extension} %y : i4 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }} -> tensor<2x3xi32>
  func.return %r : tensor<2x3xi32>
}}
"""


I4_WEIGHTS = np.random.default_rng(5).integers(-8, 8, size=(7, 3))


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
@pytest.mark.parametrize("extension", ["extsi", "extui"])
def test_packed_i4_weights(extension, target, tmp_path):
    a = np.random.default_rng(6).integers(-128, 128, size=(2, 7), dtype=np.int8)
    (out,) = run_kernel(packed_matmul_ir(extension), [a], target, tmp_path)
    weights = I4_WEIGHTS if extension == "extsi" else I4_WEIGHTS & 15
    np.testing.assert_array_equal(out, a.astype(np.int64) @ weights)


PAD = """
func.func @pad(%x: tensor<5x6xi8>) -> tensor<7x8xi8> {
  %e = tensor.empty() : tensor<7x8xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<7x8xi8>) {
  ^bb0(%o: i8):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %si = arith.subi %i, %c1 : index
    %sj = arith.subi %j, %c1 : index
    %ci = arith.maxsi %si, %c0 : index
    %cj = arith.maxsi %sj, %c0 : index
    %ii = arith.minsi %ci, %c4 : index
    %jj = arith.minsi %cj, %c5 : index
    %v = tensor.extract %x[%ii, %jj] : tensor<5x6xi8>
    %in_i = arith.cmpi eq, %si, %ii : index
    %in_j = arith.cmpi eq, %sj, %jj : index
    %inside = arith.andi %in_i, %in_j : i1
    %zp = arith.constant -7 : i8
    %r = arith.select %inside, %v, %zp : i8
    linalg.yield %r : i8
  } -> tensor<7x8xi8>
  func.return %r : tensor<7x8xi8>
}
"""


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_pad_with_tensor_extract_at_computed_indices(target, tmp_path):
    x = np.random.default_rng(7).integers(-128, 128, size=(5, 6), dtype=np.int8)
    (out,) = run_kernel(PAD, [x], target, tmp_path)
    np.testing.assert_array_equal(out, np.pad(x, 1, constant_values=-7))


REQUANT_I64 = """
func.func @rq(%acc: tensor<6xi32>) -> tensor<6xi8> {
  %e = tensor.empty() : tensor<6xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%acc : tensor<6xi32>) outs(%e : tensor<6xi8>) {
  ^bb0(%x: i32, %o: i8):
    %m = arith.constant 1374389535 : i64
    %s = arith.constant 36 : i64
    %xe = arith.extsi %x : i32 to i64
    %p = arith.muli %xe, %m : i64
    %q = arith.shrsi %p, %s : i64
    %lo = arith.constant -128 : i64
    %hi = arith.constant 127 : i64
    %a = arith.maxsi %q, %lo : i64
    %b = arith.minsi %a, %hi : i64
    %t = arith.trunci %b : i64 to i8
    linalg.yield %t : i8
  } -> tensor<6xi8>
  func.return %r : tensor<6xi8>
}
"""


@needs_qemu
def test_i64_requant_on_rv64(tmp_path):
    x = np.array([0, 5000, -5000, 2**31 - 1, -(2**31), 12345], dtype=np.int32)
    (out,) = run_kernel(REQUANT_I64, [x], "rv64im", tmp_path)
    expected = np.clip((x.astype(np.int64) * 1374389535) >> 36, -128, 127).astype(np.int8)
    np.testing.assert_array_equal(out, expected)


def test_i64_on_rv32_is_one_line_error():
    with pytest.raises(CodegenError, match=r"^riscv: i64 values are not supported on rv32 \(arith.constant in @rq\)$"):
        compile_to_assembly(parse(REQUANT_I64), "rv32im", "rq")


@pytest.mark.parametrize(
    "ir", [MATMUL, conv_ir(), MAX_POOL, REQUANT, packed_matmul_ir("extsi"), PAD], ids=["mm", "conv", "pool", "rq", "i4", "pad"]
)
def test_rv32_assembly_is_accepted_by_gnu_as_and_llvm_mc(ir, tmp_path):
    assembly = assemble_rv32(ir, tmp_path)
    assert ".globl kernel" in assembly


def test_intermediate_buffers_are_in_the_workspace():
    assembly = compile_to_assembly(parse(conv_ir()), "rv64im", "dw")
    assert "# workspace: 256 bytes" in assembly
    assert ".bss" not in assembly and ".data" not in assembly


def test_sections_and_packed_nibbles():
    """The 21 4-bit weights stay packed two a byte in `.rodata` (in the order the register-tiled
    nest reads them, each panel row padded to a byte): every nibble of the weights is there."""
    assembly = compile_to_assembly(parse(packed_matmul_ir("extsi")), "rv64im", "mm4")
    assert assembly.index(".text") < assembly.index(".section .rodata")
    assert ".bss" not in assembly  # the zero fill and the accumulation both write the output
    packed = [int(v) & 0xFF for line in assembly.split(".section .rodata")[1].splitlines()
              if line.strip().startswith(".byte") for v in line.split(".byte")[1].split(",")]
    assert len(packed) <= 21 // 2 + 3  # at most one padding nibble per panel row
    nibbles = sorted(n for byte in packed for n in (byte & 15, byte >> 4))
    weights = sorted((I4_WEIGHTS.reshape(-1) & 15).tolist())
    for nibble in weights:
        nibbles.remove(nibble)  # each weight's nibble once; what remains is padding
    assert nibbles == [0] * len(nibbles)
