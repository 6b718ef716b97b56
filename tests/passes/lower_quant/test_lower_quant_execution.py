"""Run quant IR before and after `lower-quant` on the same inputs: qcast, dcast and scast
bit-exact; requant equal to `requantize_fixed_point` and within 1 LSB of the exact one (2 LSB
for `away_from_zero` with the zero point first, where the value straddles 0). Each test draws
its inputs from its own seeded generator, so a case sees the same data alone or in a run."""

import subprocess

import numpy as np
import pytest
from conftest import require_tools
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

import bitfold
from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.quant_semantics import to_storage
from bitfold.passes.lower_quant import LowerQuantPass
from bitfold.passes.utils.requantization import requantize_fixed_point

SEED = 5
SHAPE = (4, 64)
TYPES = [
    "!quant.uniform<i8:f32, 0.1:-3>",
    "!quant.uniform<u8:f32, 0.5:3>",
    "!quant.uniform<i4:f32, 0.25:1>",
    "!quant.uniform<i8<-7:7>:f32, 0.125>",
    "!quant.uniform<i16:f32, 0.01:5>",
    "!quant.uniform<u16:f16, 0.5:7>",
    "!quant.uniform<i32:f32, 0.001:-7>",
    "!quant.uniform<u8:f32:0, {0.1:128, 0.2:127, 0.5:1, 0.25:3}>",
    "!quant.uniform<i4:f32:{0:1, 1:32}, {{0.5:1, 0.25}, {0.125:-1, 0.0625:3}, {1.0, 2.0:-2}, {0.75:7, 0.5}}>",
    "!quant.bipolar<f32, 0.5>",
]
MODES = ["half_to_even", "half_away_from_zero", "half_toward_zero", "away_from_zero", "toward_zero", "ceil", "floor"]


def _parse(text: str) -> ModuleOp:
    ctx = Context(allow_unregistered=False)
    for name, factory in bitfold.registry.get_all_dialects().items():
        ctx.register_dialect(name, factory)
    from xdsl.dialects import get_all_dialects

    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return Parser(ctx, text).parse_module()


def _lowered(text: str) -> ModuleOp:
    module = _parse(text)
    LowerQuantPass().apply(Context(), module)
    module.verify()
    assert "quant." not in str(module)
    return module


def _float_inputs(qtype_text: str) -> np.ndarray:
    """Values around the grid, ties (odd zero points included) and beyond the range."""
    rng = np.random.default_rng(SEED)
    ties = np.arange(-300, 300).astype(np.float32) * np.float32(0.5)
    if "f16" in qtype_text:
        return rng.choice(ties, SHAPE).astype(np.float16) * np.float16(0.5)
    scale = 0.1 if "0.1" in qtype_text else 1.0
    noise = rng.normal(0, 1e-3, SHAPE) * rng.integers(0, 2, SHAPE)
    return (rng.choice(ties, SHAPE) * np.float32(scale) + noise).astype(np.float32)


def _cast_module(qtype: str, float_type: str, attributes: str) -> str:
    tensor = f"tensor<4x64x{qtype}>"
    return f"""
func.func @main(%x: tensor<4x64x{float_type}>) -> (tensor<4x64x{float_type}>, {tensor}) {{
  %q = quant.qcast %x {attributes} : tensor<4x64x{float_type}> to {tensor}
  %d = quant.dcast %q : {tensor} to tensor<4x64x{float_type}>
  func.return %d, %q : tensor<4x64x{float_type}>, {tensor}
}}"""


@pytest.mark.parametrize("qtype", TYPES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("first", [False, True])
def test_qcast_dcast_bit_exact(qtype: str, mode: str, first: bool):
    float_type = "f16" if "f16" in qtype else "f32"
    attributes = f'{{rounding = "{mode}"{", zero_point_first" if first else ""}}}'
    if "bipolar" in qtype:
        attributes = ""
    text = _cast_module(qtype, float_type, attributes)
    x = _float_inputs(qtype)
    expected_x, expected_q = bitfold.run(_parse(text), [x]).values()
    actual_x, actual_q = bitfold.run(_lowered(text), [x]).values()
    element = _parse(text).body.block.first_op.function_type.outputs.data[1].element_type
    np.testing.assert_array_equal(actual_q, to_storage(expected_q, element))
    np.testing.assert_array_equal(actual_x, expected_x)
    assert actual_x.dtype == expected_x.dtype


REQUANTS = [
    ("!quant.uniform<i32:f32, 0.001>", "!quant.uniform<i8:f32, 0.05:-3>"),
    ("!quant.uniform<i16:f32, 0.25:3>", "!quant.uniform<i8:f32, 1.0:1>"),  # power of two
    ("!quant.uniform<i8:f32, 0.5:-1>", "!quant.uniform<i4:f32, 0.125:1>"),  # power of two, upward
    ("!quant.uniform<u8:f32, 0.3:128>", "!quant.uniform<u16:f32, 0.07:3>"),
    ("!quant.uniform<i32:f32:0, {0.001, 0.002, 0.004, 0.0003}>", "!quant.uniform<i8:f32, 0.1:5>"),
    ("!quant.uniform<i8:f32, 0.1:-3>", "!quant.uniform<i4:f32:0, {0.3:1, 0.25, 0.2:-1, 0.7}>"),
    ("!quant.uniform<i16:f32:{1:16}, {{0.5, 0.25:1, 0.125, 0.0625}}>", "!quant.uniform<i8:f32, 2.0:1>"),
    ("!quant.uniform<u32:f32, 0.0001:12345>", "!quant.uniform<i32:f32, 0.3:-9>"),
]


def _integer_inputs(qtype) -> np.ndarray:
    low, high = qtype.value_range()
    values = np.random.default_rng(SEED).integers(low, high, SHAPE, endpoint=True)
    return values.astype(numpy_dtype(qtype))


@pytest.mark.parametrize(("in_type", "out_type"), REQUANTS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("first", [False, True])
def test_requant_is_fixed_point_reference(in_type: str, out_type: str, mode: str, first: bool):
    attributes = f'{{rounding = "{mode}"{", zero_point_first" if first else ""}}}'
    text = f"""
func.func @main(%q: tensor<4x64x{in_type}>) -> tensor<4x64x{out_type}> {{
  %r = quant.requant %q {attributes} : tensor<4x64x{in_type}> to tensor<4x64x{out_type}>
  func.return %r : tensor<4x64x{out_type}>
}}"""
    function = _parse(text).body.block.first_op
    source = function.function_type.inputs.data[0].element_type
    target = function.function_type.outputs.data[0].element_type
    q = _integer_inputs(source)
    (exact,) = bitfold.run(_parse(text), [q]).values()
    (actual,) = bitfold.run(_lowered(text), [to_storage(q, source)]).values()
    fixed = requantize_fixed_point(q, source, target, mode, first)
    np.testing.assert_array_equal(actual, to_storage(fixed, target))
    bound = 2 if (mode, first) == ("away_from_zero", True) else 1
    assert np.abs(fixed.astype(np.int64) - exact.astype(np.int64)).max() <= bound


def test_away_from_zero_straddling_zero_is_the_two_step_case():
    """d r + zp_out = -1e-16 exactly (r = 0.1 / 0.3 in doubles, d = -3, zp_out = 1) rounds away
    from zero to -1; the 31-bit multiplier puts it just above 0, which rounds to +1."""
    in_type, out_type = "!quant.uniform<i8:f32, 0.1:-3>", "!quant.uniform<i4:f32, 0.3:1>"
    text = f"""
func.func @main(%q: tensor<1x{in_type}>) -> tensor<1x{out_type}> {{
  %r = quant.requant %q {{rounding = "away_from_zero", zero_point_first}} : tensor<1x{in_type}> to tensor<1x{out_type}>
  func.return %r : tensor<1x{out_type}>
}}"""
    q = np.array([-6], np.int8)
    (exact,) = bitfold.run(_parse(text), [q]).values()
    (actual,) = bitfold.run(_lowered(text), [q]).values()
    assert (int(exact[0]), int(actual[0])) == (-1, 1)


def test_lowered_ir_parses_in_mlir_opt():
    require_tools("mlir-opt-22")
    text = _cast_module(TYPES[8], "f32", "") + _cast_module(TYPES[7], "f32", "").replace("@main", "@per_axis")
    text += f"""
func.func @requant(%q: tensor<4x64x{REQUANTS[4][0]}>) -> tensor<4x64x{REQUANTS[4][1]}> {{
  %r = quant.requant %q : tensor<4x64x{REQUANTS[4][0]}> to tensor<4x64x{REQUANTS[4][1]}>
  func.return %r : tensor<4x64x{REQUANTS[4][1]}>
}}"""
    lowered = str(_lowered(text))
    subprocess.run(["mlir-opt-22"], input=lowered, text=True, check=True, capture_output=True)
