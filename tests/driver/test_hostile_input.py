"""Hostile `.mlir` and command-line input of issue 13: each case ends in one `error:` line and
exit status 1 from every tool that reads it (no traceback, no hang, no allocation past the
tensor cap)."""

import re
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bitfold.compile_main import main as compile_main
from bitfold.dialects.xdsl_compat.string_lexer import LINEAR_STRING_LITERAL, XDSL_STRING_LITERAL
from bitfold.opt_main import main as opt_main
from bitfold.run_main import main as run_main

TOOLS = {"bitfold-opt": lambda path: opt_main([str(path), "--allow-unregistered-dialect"]),
         "bitfold-run": lambda path: run_main([str(path)]),
         "bitfold-compile": lambda path: compile_main([str(path), "--target", "rv32im", "-o", str(path.parent / "out")])}


def one_error_line(tool: str, path, capsys) -> str:
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_status:
        TOOLS[tool](path)
    assert exit_status.value.code == 1
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and re.match(r"^(\S+: )?error: ", lines[0]), lines
    return lines[0]


@given(st.text(alphabet='ab"\\ntF0\n', max_size=12))
def test_linear_string_pattern_matches_what_xdsls_matches(text):
    original, linear = re.compile(XDSL_STRING_LITERAL).match(f'"{text}'), LINEAR_STRING_LITERAL.match(f'"{text}')
    assert (original and original.group()) == (linear and linear.group())


def unterminated_string(length: int) -> str:
    return 'func.func @f() {\n  "test.op"() {v = "' + "a" * length + '} : () -> ()\n  func.return\n}\n'


@pytest.mark.parametrize("tool", TOOLS)
def test_a_long_unterminated_string_fails_fast(tmp_path, capsys, tool):
    """xDSL 0.74's pattern takes ~1.8 s for 26 characters and 1.7 times longer per character
    more (2^n ways to split a run of n characters); 10,000 must fail at once (the bound is
    generous: a linear scan takes milliseconds)."""
    path = tmp_path / "s.mlir"
    path.write_text(unterminated_string(10_000))
    start = time.process_time()
    line = one_error_line(tool, path, capsys)
    assert time.process_time() - start < 5
    assert line == f"{path}:2:20: error: End of file reached before closing string literal."


BAD_TEXT = {
    "non-UTF-8": (b"func.func @f() {\n  func.return\n}\n\xff\xfe", "not UTF-8 text (byte 0xff at offset 33)"),
    "huge splat": (b'"test.op"() {v = dense<0> : tensor<100000000000xi8>} : () -> ()\n',
                   "dense literal has 100,000,000,000 elements"),
    "deep nesting": (b'"test.op"() {a = ' + b"[" * 5000 + b"]" * 5000 + b"} : () -> ()\n",
                     "error: the input is nested too deeply (Python's recursion limit was reached)"),
    "unknown iterator type": (b"""#map = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["banana"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
""", "'banana' is not a valid IteratorType"),
    "iterator count mutated": (b"""#map = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
""", "error: 'linalg.generic' op expected indexing_map #0 to have 2 dim(s) to match the number of loops"),
    "use before definition": (b"""func.func @f(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>> {
  %r = quant.qcast %y : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  %y = quant.dcast %r : tensor<4x!quant.uniform<i8:f32, 0.5:-3>> to tensor<4xf32>
  func.return %r : tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
}
""", "error: 'quant.qcast' op operand #0 does not dominate this use"),
}


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("case", BAD_TEXT)
def test_bad_mlir_is_one_line_from_every_tool(tmp_path, capsys, tool, case):
    data, message = BAD_TEXT[case]
    path = tmp_path / "bad.mlir"
    path.write_bytes(data)
    assert message in one_error_line(tool, path, capsys)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("tool", ["bitfold-run", "bitfold-compile"])
def test_a_line_break_quoted_from_the_input_stays_on_the_line(tmp_path, capsys, tool):
    path = tmp_path / "bad.mlir"
    path.write_bytes(b'func.func @f() {\n  "o\\0Anx.Constant"() : () -> ()\n  func.return\n}\n')
    assert one_error_line(tool, path, capsys).endswith("error: Operation o\\nnx.Constant is not registered")


def test_lower_quant_on_ir_breaking_dominance_is_one_line(tmp_path, capsys):
    path = tmp_path / "bad.mlir"
    path.write_bytes(BAD_TEXT["use before definition"][0])
    with pytest.raises(SystemExit):
        opt_main([str(path), "-p", "lower-quant"])
    assert capsys.readouterr().err.splitlines() == ["error: 'quant.qcast' op operand #0 does not dominate this use"]


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("extension", [".txt", ".npy", ""])
def test_unknown_extensions_are_one_line(tmp_path, capsys, tool, extension):
    path = tmp_path / f"model{extension}"
    path.write_text("func.func @f() {\n  func.return\n}\n")
    assert "extension" in one_error_line(tool, path, capsys)


def test_the_cap_is_an_option(tmp_path, capsys):
    path = tmp_path / "f.mlir"
    path.write_text("func.func @f(%a: tensor<64xf32>) -> tensor<64xf32> {\n  func.return %a : tensor<64xf32>\n}\n")
    np.save(tmp_path / "a.npy", np.ones(64, np.float32))
    run_main([str(path), "--input", f"a={tmp_path / 'a.npy'}", "--max-tensor-bytes", "256"])
    with pytest.raises(SystemExit):
        run_main([str(path), "--input", f"a={tmp_path / 'a.npy'}", "--max-tensor-bytes", "255"])
    assert capsys.readouterr().err.splitlines() == [
        (f"error: {tmp_path / 'a.npy'} has 64 elements (256 bytes), over the cap of "
         "268,435,456 elements / 255 bytes (raise it with --max-tensor-bytes or BITFOLD_MAX_TENSOR_BYTES)")]


HUGE = "tensor<1000000000000x1000000000000xf32>"
HUGE_IDENTITY = f"func.func @f(%a: {HUGE}) -> {HUGE} {{\n  func.return %a : {HUGE}\n}}\n"


def test_a_huge_type_allocates_nothing_so_it_is_no_error(tmp_path, capsys, mlir_opt, bitfold_opt):
    """The cap is on data, not types: bitfold-opt prints a function taking a 10^24-element tensor
    as mlir-opt-22 does (same module once mlir-opt-22 reads both); bitfold-run, which would make
    the array, refuses it in one line naming the value."""
    printed = bitfold_opt(HUGE_IDENTITY)
    assert (printed.returncode, printed.stderr) == (0, "")
    assert mlir_opt(printed.stdout) == mlir_opt(HUGE_IDENTITY)
    path = tmp_path / "huge.mlir"
    path.write_text(HUGE_IDENTITY)
    line = one_error_line("bitfold-run", path, capsys)
    assert line.startswith(f"error: a value of 'func.func' ({HUGE}) has 1,000,000,000,000,000,000,000,000 elements")


HUGE_PAD = """func.func @g(%x: tensor<1000000000000xf32>) -> tensor<1000000000000xf32> {
  %pads = "onnx.Constant"() {value = dense<[0, 999999999996]> : tensor<2xi64>} : () -> tensor<2xi64>
  %w = "onnx.Constant"() {value = dense<[1, 2, 3, 4]> : tensor<4xi8>} : () -> tensor<4xi8>
  %q = quant.scast %w : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 5.000000e-01>> to tensor<4xf32>
  %e = "onnx.Pad"(%d, %pads) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>}> {mode = "constant"} : (tensor<4xf32>, tensor<2xi64>) -> tensor<1000000000000xf32>
  %y = "onnx.Add"(%x, %e) : (tensor<1000000000000xf32>, tensor<1000000000000xf32>) -> tensor<1000000000000xf32>
  func.return %y : tensor<1000000000000xf32>
}
"""


def test_a_pass_that_would_fold_a_huge_constant_is_one_line(tmp_path, capsys):
    """The cap where a pass makes data: canonicalize-quant folds Pad of a quantized constant into a
    constant of the result's type, here 10^12 elements; it stops before allocating."""
    path = tmp_path / "pad.mlir"
    path.write_text(HUGE_PAD)
    with pytest.raises(SystemExit) as exit_status:
        opt_main([str(path), "-p", "canonicalize-quant"])
    assert exit_status.value.code == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("error: the constant folded from 'onnx.Pad' (tensor<1000000000000x!quant.uniform<i8:f32, "
                           "5.000000e-01>>) has 1,000,000,000,000 elements")
