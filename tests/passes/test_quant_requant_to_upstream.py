"""`quant-requant-to-upstream`: every quant.requant spelled in ops mlir-opt-22 parses; upstream's own
dcast + qcast where that pair is exact (every stored value tried), lower-quant's integer form elsewhere;
a whole model after quant-to-integer then goes to mlir-opt-22 and runs as lower-quant's output does."""

import re
import subprocess
from pathlib import Path

import numpy as np
from conftest import require_tools
from xdsl.parser import Parser

import bitfold
from bitfold.dialects.quant import RequantizeOp
from bitfold.dialects.quant_semantics import requantize
from bitfold.load import full_context, load_module
from bitfold.passes.lower_quant import LowerQuantPass
from bitfold.passes.quant_requant_to_upstream import QuantRequantToUpstreamPass, upstream_casts_are_exact
from bitfold.passes.utils.requantization import requantize_fixed_point

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "cnn_depthwise_qdq.onnx")


def _parses_in_mlir_opt(text: str) -> None:
    """Plain mlir-opt-22 (no unregistered dialects) accepts `text`."""
    require_tools("mlir-opt-22")
    done = subprocess.run(["mlir-opt-22"], input=text, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _module(in_type: str, out_type: str, shape: str = "256"):
    text = f"""func.func @main(%q: tensor<{shape}x{in_type}>) -> tensor<{shape}x{out_type}> {{
  %r = quant.requant %q : tensor<{shape}x{in_type}> to tensor<{shape}x{out_type}>
  func.return %r : tensor<{shape}x{out_type}>
}}"""
    return Parser(full_context(), text).parse_module()


def _requant(module) -> RequantizeOp:
    return next(op for op in module.walk() if isinstance(op, RequantizeOp))


def _spelled(module) -> str:
    QuantRequantToUpstreamPass().apply(full_context(), module)
    return str(module)


def test_integer_ratio_becomes_upstream_casts():
    """i8 at 0.5 to i16 at 0.125 / 0.0625 (ratios 4 and 8): dcast + qcast, the same numbers for all 256
    stored values, and mlir-opt-22 parses it."""
    module = _module("!quant.uniform<i8:f32, 0.5:1>", "!quant.uniform<i16:f32:1, {0.125:3, 0.0625}>", "128x2")
    requant = _requant(module)
    in_type, out_type = requant.input.type.element_type, requant.result.type.element_type
    assert upstream_casts_are_exact(requant)
    values = np.arange(-128, 128).reshape(128, 2)
    text = _spelled(module)
    assert "quant.requant" not in text and "quant.dcast" in text and "quant.qcast" in text
    _parses_in_mlir_opt(text)
    (got,) = bitfold.run(module, [values.astype(np.int8)]).values()
    np.testing.assert_array_equal(got, requantize(values, in_type, out_type))


def test_upstream_lowers_the_pair_as_the_exactness_check_assumes(mlir_opt):
    """The check emulates mlir-opt-22's --lower-quant-ops: sitofp, subf, mulf (dcast), divf, addf, fptosi
    (qcast; truncation, no clamp for a full-range type). The oracle's lowering has that op sequence."""
    module = _module("!quant.uniform<i8:f32, 0.5:1>", "!quant.uniform<i16:f32, 0.125:3>")
    lowered = mlir_opt(_spelled(module), "--lower-quant-ops")
    float_ops = re.findall(r"arith\.(sitofp|subf|mulf|divf|addf|fptosi|maxsi|minsi|round\w*)", lowered)
    assert [op for op in float_ops if op != "sitofp"] == ["subf", "mulf", "divf", "addf", "fptosi"]


def test_rounding_ratio_becomes_the_integer_form():
    """i8 at 0.1 to i8 at 0.3: rounding, so lower-quant's integer form between storage casts; bitfold-run
    gives requantize_fixed_point (within 1 LSB of the exact requant), for every stored value."""
    module = _module("!quant.uniform<i8:f32, 0.1:-3>", "!quant.uniform<i8:f32, 0.3:2>")
    requant = _requant(module)
    in_type, out_type = requant.input.type.element_type, requant.result.type.element_type
    assert not upstream_casts_are_exact(requant)
    values = np.arange(-128, 128)
    text = _spelled(module)
    assert "quant.requant" not in text and "linalg.generic" in text and text.count("quant.scast") == 2
    _parses_in_mlir_opt(text)
    (got,) = bitfold.run(module, [values.astype(np.int8)]).values()
    np.testing.assert_array_equal(got, requantize_fixed_point(values, in_type, out_type))
    assert np.abs(got.astype(int) - requantize(values, in_type, out_type).astype(int)).max() <= 1


def test_clamping_ratio_is_not_spelled_as_casts():
    """i16 to i8 with ratio 2: exact integers, but most leave i8: upstream's fptosi would need a clamp."""
    module = _module("!quant.uniform<i16:f32, 0.5>", "!quant.uniform<i8:f32, 0.25>")
    assert not upstream_casts_are_exact(_requant(module))


def test_model_after_quant_to_integer_goes_to_mlir_opt_and_runs_as_lower_quant(bitfold_opt):
    """The example QDQ model after quant-to-integer: no requant left, mlir-opt-22 parses it (ONNX data
    movement needs --allow-unregistered-dialect), outputs bit-identical to lower-quant's."""
    require_tools("mlir-opt-22")
    stage = "onnx-to-quant,canonicalize-quant,quant-to-integer"
    spelled = bitfold_opt("", EXAMPLE, "-p", f"{stage},quant-requant-to-upstream")
    assert spelled.returncode == 0, spelled.stderr
    assert "quant.requant" not in spelled.stdout
    upstream = subprocess.run(["mlir-opt-22", "--allow-unregistered-dialect"], input=spelled.stdout,
                              capture_output=True, text=True)
    assert upstream.returncode == 0, upstream.stderr
    ctx = full_context()
    x = np.load(ROOT / "examples" / "cnn_depthwise_input.npy")
    outputs = []
    for last in (QuantRequantToUpstreamPass(), LowerQuantPass()):
        module = load_module(EXAMPLE)
        for name in stage.split(","):
            bitfold.get_all_passes()[name]()().apply(ctx, module)
        last.apply(ctx, module)
        outputs.append(next(iter(bitfold.run(module, [x]).values())))
    np.testing.assert_array_equal(outputs[0], outputs[1])
