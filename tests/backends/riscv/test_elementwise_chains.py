"""Elementwise chains on the backend's tensor IR: tabulated (`bitfold-riscv-tabulate-elementwise`)
and fused (`bitfold-riscv-fuse-elementwise`). The FileCheck inputs of both passes, run by bitfold's
interpreter before and after the passes on every byte value, and compiled for RV32IM and RV64IM
under qemu against numpy's formula of the HardSwish-like chain; a MobileNetV3-style block
(`models.float_models.mobilenet_v3_block`: HardSwish, squeeze-excite, residual Add) quantized by
onnxruntime, where both passes rewrite, compiled for RV32IM and bit-exact under qemu to bitfold-run
(the end-to-end case torchvision's MobileNetV3-Small covered on rv32im at ten times the compile
time: the same ops, so the same chains)."""

from pathlib import Path

import numpy as np
import pytest
from models.float_models import mobilenet_v3_block
from models.quantized import QuantConfig, quantize
from test_codegen_execution import needs_qemu, parse, riscv_toolchain, run_kernel  # noqa: F401 (a fixture)
from xdsl.context import Context

from bitfold.backends.riscv.pipeline import riscv_context
from bitfold.backends.riscv.schedule.fused_elementwise import BitfoldRiscvFuseElementwisePass
from bitfold.backends.riscv.schedule.tabulated_elementwise import BitfoldRiscvTabulateElementwisePass
from bitfold.compile import compile_model
from bitfold.interpreter import run
from bitfold.load import load_module

FILECHECK = Path(__file__).parents[2] / "filecheck" / "backends" / "riscv"


def first_function(name: str) -> str:
    """The first case of a FileCheck file (its input function, without the CHECK lines)."""
    return (FILECHECK / name).read_text().split("// -----")[0]


HARD_SWISH = first_function("tabulate_elementwise.mlir")
RESIDUAL = first_function("fuse_elementwise.mlir")


def hard_swish_reference(x: np.ndarray) -> np.ndarray:
    """The chain's formula: h = clamp(x + 3, 0, 6), q = clamp(((x h) >> 2) - 5, -128, 127)."""
    v = x.astype(np.int64)
    return np.clip(((v * np.clip(v + 3, 0, 6)) >> 2) - 5, -128, 127).astype(np.int8)


def every_byte(shape: tuple[int, ...]) -> np.ndarray:
    return np.resize(np.arange(256, dtype=np.uint8).view(np.int8), shape)


def transformed(text: str):
    module = parse(text)
    for module_pass in (BitfoldRiscvTabulateElementwisePass(), BitfoldRiscvFuseElementwisePass()):
        module_pass.apply(Context(), module)
    return module


@pytest.mark.parametrize(("text", "inputs"), [
    (HARD_SWISH, lambda: [every_byte((1, 4, 8, 8))]),
    (RESIDUAL, lambda: [np.random.default_rng(0).integers(-2**20, 2**20, (1, 4, 3, 3), dtype=np.int32),
                        every_byte((1, 4, 3, 3))]),
])
def test_passes_keep_the_interpreters_results(text, inputs):
    arguments = inputs()
    (before,) = run(parse(text), arguments).values()
    (after,) = run(transformed(text), arguments).values()
    np.testing.assert_array_equal(after, before)


def test_hard_swish_chain_is_one_lookup_equal_to_its_formula():
    module = transformed(HARD_SWISH)
    assert [op.name for op in module.walk() if op.name == "linalg.generic"] == ["linalg.generic"]
    x = every_byte((1, 4, 8, 8))
    (result,) = run(module, [x]).values()
    np.testing.assert_array_equal(result, hard_swish_reference(x))


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_compiled_chains_under_qemu(target, tmp_path):
    x = every_byte((1, 4, 8, 8))
    (tmp_path / "hard_swish").mkdir()
    (got,) = run_kernel(HARD_SWISH, [x], target, tmp_path / "hard_swish")
    np.testing.assert_array_equal(got, hard_swish_reference(x))
    a = np.random.default_rng(1).integers(-2**20, 2**20, (1, 4, 3, 3), dtype=np.int32)
    b = every_byte((1, 4, 3, 3))
    (tmp_path / "residual").mkdir()
    (got,) = run_kernel(RESIDUAL, [a, b], target, tmp_path / "residual")
    expected = ((a.astype(np.int64) + ((b.astype(np.int64) - 1) << 16)) >> 18).astype(np.int8)
    np.testing.assert_array_equal(got, expected)


WEIGHTS = np.random.default_rng(5).integers(-128, 128, (8, 8, 1, 1))
TABLE = (np.arange(256) * 7 % 256).astype(np.uint8).view(np.int8)
CONVOLUTION_LOOKUP = f"""
func.func @k(%a: tensor<1x8x6x6xi8>) -> tensor<1x8x6x6xi8> {{
  %w = arith.constant dense<{WEIGHTS.tolist()}> : tensor<8x8x1x1xi8>
  %bias = arith.constant dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi32>
  %e = tensor.empty() : tensor<1x8x6x6xi32>
  %f = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%bias : tensor<8xi32>) outs(%e : tensor<1x8x6x6xi32>) {{
  ^bb0(%b: i32, %o: i32):
    linalg.yield %b : i32
  }} -> tensor<1x8x6x6xi32>
  %c = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, 0, 0)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}} ins(%a, %w : tensor<1x8x6x6xi8>, tensor<8x8x1x1xi8>) outs(%f : tensor<1x8x6x6xi32>) {{
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }} -> tensor<1x8x6x6xi32>
  %e2 = tensor.empty() : tensor<1x8x6x6xi8>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%c : tensor<1x8x6x6xi32>) outs(%e2 : tensor<1x8x6x6xi8>) {{
  ^bb0(%x: i32, %o: i8):
    %k = arith.constant 3 : i32
    %v = arith.shrsi %x, %k : i32
    %t = arith.trunci %v : i32 to i8
    linalg.yield %t : i8
  }} -> tensor<1x8x6x6xi8>
  %tab = arith.constant dense<{TABLE.tolist()}> : tensor<256xi8>
  %e3 = tensor.empty() : tensor<1x8x6x6xi8>
  %l = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%r : tensor<1x8x6x6xi8>) outs(%e3 : tensor<1x8x6x6xi8>) {{
  ^bb0(%x: i8, %o: i8):
    %i = arith.extui %x : i8 to i32
    %j = arith.index_cast %i : i32 to index
    %v = tensor.extract %tab[%j] : tensor<256xi8>
    linalg.yield %v : i8
  }} -> tensor<1x8x6x6xi8>
  func.return %l : tensor<1x8x6x6xi8>
}}
"""


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_convolution_with_a_lookup_epilogue_under_qemu(target, tmp_path):
    """A 1x1 convolution (8 input channels: its requantization is fused into its nest) and a table
    lookup after it (a tabulated HardSwish: a nest of its own) against numpy."""
    x = np.random.default_rng(0).integers(-128, 128, (1, 8, 6, 6)).astype(np.int8)
    accumulators = np.einsum("nchw,mc->nmhw", x.astype(np.int64), WEIGHTS[:, :, 0, 0]) + np.arange(1, 9)[None, :, None, None]
    expected = TABLE[((accumulators >> 3).astype(np.int8)).view(np.uint8)]
    (got,) = run_kernel(CONVOLUTION_LOOKUP, [x], target, tmp_path)
    np.testing.assert_array_equal(got, expected)


def generics(module) -> int:
    return sum(op.name == "linalg.generic" for op in module.walk())


@needs_qemu
def test_mobilenet_v3_block_under_qemu_equals_bitfold_run(tmp_path):
    """The block quantized by onnxruntime (QDQ, u8 activations, s8 weights per channel): on its
    integer IR both passes rewrite (HardSwish chains become lookups, the squeeze-excite gate and
    residual terms are fused into their readers), and its rv32im code run under qemu equals
    bitfold-run on that IR bit for bit."""
    path = tmp_path / "mobilenet_v3_block.onnx"
    quantize(mobilenet_v3_block(), QuantConfig("qdq", "u8", "s8", per_channel=True, opset=17), path)
    compiled = compile_model(load_module(str(path)), "rv32im")
    module = compiled.module.clone()
    counts = [generics(module)]
    for module_pass in (BitfoldRiscvTabulateElementwisePass(), BitfoldRiscvFuseElementwisePass()):
        module_pass.apply(riscv_context(), module)
        counts.append(generics(module))
    assert counts[0] > counts[1] > counts[2], f"linalg.generic before and after each pass: {counts}"
    image = np.random.default_rng(0).standard_normal((1, 3, 16, 16)).astype(np.float32)
    stored = compiled.quantize({"input": image})
    (tmp_path / "run").mkdir()
    for port, got, want in zip(compiled.outputs, compiled.run_qemu(stored, tmp_path / "run"),
                               compiled.run_reference(stored), strict=True):  # fmt: skip
        assert got.dtype == want.dtype and got.shape == want.shape, port.name
        np.testing.assert_array_equal(got, want, err_msg=port.name)
