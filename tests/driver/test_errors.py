"""Bad input gets one line naming what is wrong and exit status 1, never a traceback."""

import pytest

CASES = [
    ('"test.op"() {t = !quant.uniform<i8:f32, 0.0>} : () -> ()', "<stdin>:1:41: error: scale 0.000000e+00 out of expressed type range"),
    ('"test.op"() {t = !quant.uniform<i8:f32, -0.5>} : () -> ()', "<stdin>:1:41: error: scale -5.000000e-01 out of expressed type range"),
    ('"test.op"() {t = !quant.uniform<i8:f32, 0x7FF8000000000000>} : () -> ()', "<stdin>:1:41: error: illegal scale: nan"),
    ('"test.op"() {t = !quant.uniform<i8:f32, 1.0:300>} : () -> ()', "<stdin>:1:41: error: illegal zero point: 300 out of storage range [-128:127]"),
    ('"test.op"() {t = !quant.uniform<i33:f32, 1.0>} : () -> ()', "<stdin>:1:33: error: illegal storage type size: 33"),
    (
        "func.func @f(%a: tensor<4xf32>) {\n"
        "  %0 = quant.qcast %a : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32:1, {1.0, 2.0}>>\n"
        "  func.return\n}\n",
        "error: 'quant.qcast' op quantized dimension must be less than tensor rank",
    ),
    (
        "func.func @f(%a: tensor<2x4xf32>) {\n"
        "  %0 = quant.qcast %a : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8:f32:1, {1.0, 2.0}>>\n"
        "  func.return\n}\n",
        "error: 'quant.qcast' op quantized dimension size does not match number of scales",
    ),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_one_line_per_error(bitfold_opt, text, expected):
    done = bitfold_opt(text.replace("<stdin>", "stdin"), "--allow-unregistered-dialect")
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(expected.replace("<stdin>", "stdin"))


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["-p", "no-such-pass"], "error: Unrecognized passes: ['no-such-pass']"),
        (["/nonexistent/model.mlir"], "error: No such file or directory: /nonexistent/model.mlir"),
    ],
)
def test_driver_usage_errors(bitfold_opt, args, expected):
    done = bitfold_opt("", *args)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [expected]
