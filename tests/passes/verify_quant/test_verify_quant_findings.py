"""verify-quant collects its findings in `VerifyQuantPass.findings`, prints them to its
stream, and leaves the IR unchanged."""

import io

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.parser import Parser

import bitfold
from bitfold.passes.verify_quant import FindingKind, VerifyQuantPass


def _parse(text: str):
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Func)
    bitfold.register_into(ctx)
    return ctx, Parser(ctx, text).parse_module()


def _run(text: str) -> tuple[VerifyQuantPass, str, str, str]:
    ctx, module = _parse(text)
    before = str(module)
    stream = io.StringIO()
    verify = VerifyQuantPass(stream=stream)
    verify.apply(ctx, module)
    return verify, stream.getvalue(), before, str(module)


GEMM = """
func.func @f(%a: tensor<2x{k}xf32>) -> tensor<2x3xf32> {{
  %aq = quant.qcast %a : tensor<2x{k}xf32> to tensor<2x{k}x{a_type}>
  %ad = quant.dcast %aq : tensor<2x{k}x{a_type}> to tensor<2x{k}xf32>
  %bc = "onnx.Constant"() {{value = dense<1> : tensor<{k}x3xi8>}} : () -> tensor<{k}x3xi8>
  %bq = quant.scast %bc : tensor<{k}x3xi8> to tensor<{k}x3x!quant.uniform<i8:f32, 0.01>>
  %bd = quant.dcast %bq : tensor<{k}x3x!quant.uniform<i8:f32, 0.01>> to tensor<{k}x3xf32>
  %cc = "onnx.Constant"() {{value = dense<[{bias}, 0, -7]> : tensor<3xi32>}} : () -> tensor<3xi32>
  %cq = quant.scast %cc : tensor<3xi32> to tensor<3x!quant.uniform<i32:f32, 1.0e-04>>
  %cd = quant.dcast %cq : tensor<3x!quant.uniform<i32:f32, 1.0e-04>> to tensor<3xf32>
  %y = "onnx.Gemm"(%ad, %bd, %cd) <{{operandSegmentSizes = array<i32: 1, 1, 1>}}> {{alpha = 1.0 : f32, beta = 1.0 : f32, transA = 0 : i64, transB = 0 : i64}} : (tensor<2x{k}xf32>, tensor<{k}x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> loc("fc")
  func.return %y : tensor<2x3xf32>
}}
"""


def test_gemm_accumulator_bound_counts_the_bias_constant():
    """u16 (zp 0) x i8 with K = 256: 65535 * 128 * 256 = 2^31 - 2^15 fits in int32; the
    bias constant pushes it over only when its largest magnitude exceeds 2^15 - 1."""
    a_type = "!quant.uniform<u16:f32, 0.001>"
    fits, _, _, _ = _run(GEMM.format(k=256, a_type=a_type, bias=2**15 - 1))
    assert fits.findings == []
    over, text, before, after = _run(GEMM.format(k=256, a_type=a_type, bias=2**15))
    assert [f.kind for f in over.findings] == [FindingKind.ACCUMULATOR_OVERFLOW]
    assert text.splitlines() == [
        "verify-quant: node 'fc' (onnx.Gemm): int32 accumulator can overflow: 256 products of "
        "16-bit x 8-bit values reach 2^31.0",
        "verify-quant: 1 finding (1 accumulator overflow)",
    ]
    assert before == after


def test_add_with_equal_scales_is_not_reported():
    text = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1:-3>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 0.1:-3>> to tensor<4xf32>
  %s = "onnx.Add"(%d, %d) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}"""
    verify, output, _, _ = _run(text)
    assert verify.findings == [] and output == "verify-quant: no findings\n"


def test_add_with_different_scales_names_the_op_and_its_result():
    text = """
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.1>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 0.1>> to tensor<4xf32>
  %q2 = quant.qcast %d : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5>>
  %d2 = quant.dcast %q2 : tensor<4x!quant.uniform<i8:f32, 0.5>> to tensor<4xf32>
  %sum = "onnx.Add"(%d, %d2) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %sum : tensor<4xf32>
}"""
    verify, _, _, _ = _run(text)
    assert [str(f) for f in verify.findings] == [
        "verify-quant: op onnx.Add (result %sum): input scales disagree: 0.1, 0.5"
    ]
