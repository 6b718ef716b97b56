"""`quant.requant` lowered to i32 arithmetic: the lowered IR, run by `bitfold.run`, equals
`requantize_fixed_point` bit for bit, in every rounding mode and both zero-point orders, over
inputs that reach the storage bounds (i32 accumulators near +-2^31), ties and zero points;
the body uses i64 only where no i32 form is exact (u32 storage, an i32 input whose zero point
shifts d out of i32 without saturating the output, ratios that overflow an i32 output)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_lower_quant_execution import MODES, _lowered, _parse

import bitfold
from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.quant_semantics import to_storage
from bitfold.passes.utils.requantization import multiplier_arrays, requantize_fixed_point

RNG = np.random.default_rng(11)
ROWS, COLUMNS = 4, 96

# (input type, output type, body form): "one" one i32 word, "two" mulsi_extended's two words,
# "select" two words with shifts on both sides of 32 (where no lift to n >= 33 applies), "i64" the fallback; "+clamp" where the
# input is clamped first (saturation).
CASES = [
    ("i32:f32, 0.001", "i8:f32, 0.05:-3", "two"),  # ratio 0.02, n = 36
    ("i32:f32, 0.00123", "i4:f32, 0.0071:-2", "two"),
    ("i32:f32, 0.001:-5", "i8:f32, 0.05:-3", "two+clamp"),  # d = x + 5 leaves i32
    ("i32:f32, 0.25", "i8:f32, 4.0:1", "one"),  # 2^-4: a shift
    ("i32:f32, 1.0", "i8<-32:63>:f32, 0.25:5", "one+clamp"),  # 4 = 2^2
    ("i32:f32, 0.003", "u4:f32, 0.002:3", "one+clamp"),  # 1.5 = 3 * 2^-1
    ("i32:f32, 0.0031", "i8:f32, 0.0017:-7", "two+clamp"),  # > 1, not a power of two
    ("i32:f32, 1.0", "i16:f32, 0.625:100", "two+clamp"),  # 1.6
    ("i16:f32, 0.37:-11", "i16:f32, 0.29:7", "two"),  # 1.276, n = 30
    ("i16:f32, 0.5:3", "i8:f32, 0.125:-1", "one"),  # 4, no saturation needed
    ("i8:f32, 0.5:-1", "i4:f32, 0.125:1", "one"),
    ("i8:f32, 0.25:-1", "u4:f32, 1.0:8", "one"),  # QONNX Trunc-like: 2^-2
    ("u8:f32, 0.3:128", "i8<-32:63>:f32, 0.07:3", "two"),
    ("i8:f32, 1.0e-9", "i8:f32, 1.0:1", "two"),  # n = 60
    ("i32:f32:0, {0.001, 0.002, 0.004, 0.0003}", "i8:f32, 0.1:5", "two"),
    ("i32:f32:0, {0.5, 0.001, 0.25, 3.0}", "i8<-32:63>:f32, 0.2:4", "select+clamp"),
    ("i8:f32, 0.1:-3", "i4:f32:0, {0.3:1, 0.25, 0.2:-1, 0.7}", "select"),
    # shifts 20 and 44 straddle 32; the n = 20 entry is lifted to (1001 * 2^13, 33): high word only
    ("i16:f32:0, {0.00095462799072265625:-3, 2.2737373228665092E-7, 0.00095462799072265625, 2.2737373228665092E-7:5}",
     "i8:f32, 0.125:3", "two"),
    ("i16:f32, 0.01:5", "u8:f32:0, {0.02:128, 0.005:3, 0.0001:255, 0.04}", "one"),  # 0.5, 2, 100, 0.25
    ("i8:f32:1, {0.5:1, 0.25, 0.125:-1, 0.0625}", "i8:f32, 0.5", "one"),  # 96 channels below
    ("u32:f32, 0.0001:12345", "i32:f32, 0.3:-9", "i64"),  # u32 storage
    ("i32:f32, 0.001:-7", "i32:f32, 0.003:2", "i64"),  # d leaves i32, output not saturated
    ("i32:f32, 1.0", "i32:f32, 0.25", "i64"),  # 4 d near 2^31 overflows the i32 output
    ("u8:f32, 1.0:3", "u32:f32, 0.5:7", "i64"),  # u32 output
]


def _type_text(spec: str) -> str:
    if spec.startswith("i8:f32:1, {0.5:1"):  # per axis 1 over all 96 columns
        entries = ", ".join(f"{0.5 / 2 ** (i % 7)}:{i % 5 - 2}" for i in range(COLUMNS))
        spec = f"i8:f32:1, {{{entries}}}"
    return f"!quant.uniform<{spec}>"


def _module(in_type: str, out_type: str, mode: str, first: bool) -> str:
    attributes = f'{{rounding = "{mode}"{", zero_point_first" if first else ""}}}'
    source, target = f"tensor<{ROWS}x{COLUMNS}x{in_type}>", f"tensor<{ROWS}x{COLUMNS}x{out_type}>"
    return f"""
func.func @main(%q: {source}) -> {target} {{
  %r = quant.requant %q {attributes} : {source} to {target}
  func.return %r : {target}
}}"""


def _inputs(source, target, rng) -> np.ndarray:
    """Storage bounds and their neighbours, values around the zero point, d whose product lands
    on a tie (d = 2^(n-1) with M odd), and random values."""
    low, high = source.value_range()
    shape = (ROWS, COLUMNS)
    in_scale, in_zero_point = source.parameter_arrays(shape)
    out_scale, _ = target.parameter_arrays(shape)
    ratios = np.frompyfunc(lambda a, b: Fraction(a) / Fraction(b), 2, 1)(*np.broadcast_arrays(in_scale, out_scale))
    _, shifts = multiplier_arrays(ratios)
    zero_point = np.broadcast_to(in_zero_point, shape).astype(object)
    ties = np.left_shift(1, np.maximum(np.broadcast_to(shifts, shape) - 1, 0).astype(object))
    special = [
        np.full(shape, low, dtype=object), np.full(shape, high, dtype=object),
        np.full(shape, low + 1, dtype=object), np.full(shape, high - 1, dtype=object),
        zero_point, zero_point + ties, zero_point - ties, zero_point + 3 * ties, zero_point - 3 * ties,
        zero_point + rng.integers(-600, 600, shape), zero_point + 1, zero_point - 1,
    ]  # fmt: skip
    spread = (high - low) // 2**12 + 1
    special += [low + rng.integers(0, spread, shape), high - rng.integers(0, spread, shape)]
    choice = rng.integers(0, len(special) + 3, shape)
    values = rng.integers(low, high, shape, endpoint=True).astype(object)
    for index, candidate in enumerate(special):
        values = np.where(choice == index, candidate, values)
    return np.clip(values, low, high).astype(np.int64).astype(numpy_dtype(source))


def _check(in_type: str, out_type: str, mode: str, first: bool, rng) -> str:
    """Run the lowered requant against `requantize_fixed_point`; return the lowered body."""
    text = _module(in_type, out_type, mode, first)
    function = _parse(text).body.block.first_op
    source = function.function_type.inputs.data[0].element_type
    target = function.function_type.outputs.data[0].element_type
    q = _inputs(source, target, rng)
    lowered = _lowered(text)
    (actual,) = bitfold.run(lowered, [to_storage(q, source)]).values()
    expected = requantize_fixed_point(q, source, target, mode, first)
    np.testing.assert_array_equal(actual, to_storage(expected, target))
    text = str(lowered)
    body = text.find("^bb0")
    return text[body:] if body >= 0 else ""  # an identity requant (same storage and parameters) folds away


def _form(body: str) -> str:
    if ": i64" in body:
        return "i64"
    form = "select" if "arith.select" in body else "two" if "arith.mulsi_extended" in body else "one"
    return form + ("+clamp" if body.count("arith.maxsi") == 2 else "")


@pytest.mark.parametrize(("in_spec", "out_spec", "form"), CASES)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("first", [False, True])
def test_requant_body_form_and_result(in_spec: str, out_spec: str, form: str, mode: str, first: bool):
    body = _check(_type_text(in_spec), _type_text(out_spec), mode, first, RNG)
    assert _form(body) == form


STORAGE = ["i8", "u8", "i16", "u16", "i32"]
OUTPUTS = ["i4", "u4", "i8<-32:63>", "i8", "u8", "i16", "u16", "i32"]


def _per_tensor_or_axis(storage: str, scales: list[float], zero_points: list[int]) -> str:
    if len(scales) == 1:
        return f"!quant.uniform<{storage}:f32, {scales[0]:.17e}:{zero_points[0]}>"
    entries = ", ".join(f"{s:.17e}:{z}" for s, z in zip(scales, zero_points))
    return f"!quant.uniform<{storage}:f32:0, {{{entries}}}>"


def _zero_point(draw, storage: str) -> int:
    if storage.startswith("u"):
        return draw(st.integers(0, 15))
    return draw(st.integers(-8, 7))


@st.composite
def _requants(draw):
    storage_in, storage_out = draw(st.sampled_from(STORAGE)), draw(st.sampled_from(OUTPUTS))
    channels = draw(st.sampled_from([1, ROWS]))
    in_scales = [2.0 ** draw(st.integers(-20, 0)) * draw(st.floats(1.0, 2.0)) for _ in range(channels)]
    # s_in / s_out from 2^-31 to 2^12 (n <= 62, which the i64 fallback needs); many powers of two
    exponents = [draw(st.integers(-31, 11)) for _ in range(channels)]
    mantissas = [draw(st.sampled_from([1.0, 1.0, 1.5, 1.25, draw(st.floats(1.0, 2.0))])) for _ in range(channels)]
    out_scales = [s / (m * 2.0**e) for s, m, e in zip(in_scales, mantissas, exponents)]
    in_zero_points = [_zero_point(draw, storage_in) for _ in range(channels)]
    out_zero_points = [_zero_point(draw, storage_out) for _ in range(channels)]
    in_type = _per_tensor_or_axis(storage_in, in_scales, in_zero_points)
    out_type = _per_tensor_or_axis(storage_out, out_scales, out_zero_points)
    mode, first = draw(st.sampled_from(MODES)), draw(st.booleans())
    # i32 where the module docstring promises it: d in i32, and g + 1 in i32 (for an i32
    # output: |d| r + 16 < 2^31)
    i32_expected = (storage_in != "i32" or not any(in_zero_points)) and (
        storage_out != "i32" or max(m * 2.0**e for m, e in zip(mantissas, exponents)) <= 0.5
    )
    return in_type, out_type, mode, first, i32_expected


@given(_requants(), st.integers(0, 2**32 - 1))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_requants_equal_the_fixed_point_reference(case, seed):
    in_type, out_type, mode, first, i32_expected = case
    body = _check(in_type, out_type, mode, first, np.random.default_rng(seed))
    if i32_expected:
        assert ": i64" not in body


def test_extended_products_are_mlir_semantics():
    """mulsi_extended / mului_extended in the interpreter: the low and high halves of the
    exact product of the signed / unsigned readings, as signless values."""
    text = """
func.func @main(%a: tensor<6xi32>, %b: tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>) {
  %sl, %sh = arith.mulsi_extended %a, %b : tensor<6xi32>
  %ul, %uh = arith.mului_extended %a, %b : tensor<6xi32>
  func.return %sl, %sh, %ul, %uh : tensor<6xi32>, tensor<6xi32>, tensor<6xi32>, tensor<6xi32>
}"""
    a = np.array([-(2**31), 2**31 - 1, -1, 7, -123456789, 0], dtype=np.int32)
    b = np.array([-(2**31), 2**31 - 1, -1, -3, 1374389535, 5], dtype=np.int32)
    signed_low, signed_high, unsigned_low, unsigned_high = bitfold.run(_parse(text), [a, b]).values()
    signed = [int(x) * int(y) for x, y in zip(a, b)]
    unsigned = [int(x) * int(y) for x, y in zip(a.view(np.uint32), b.view(np.uint32))]
    for products, low, high in ((signed, signed_low, signed_high), (unsigned, unsigned_low, unsigned_high)):
        assert low.dtype == high.dtype == np.int32
        assert [int(v) for v in low] == [(p + 2**31) % 2**32 - 2**31 for p in products]
        assert [int(v) for v in high] == [((p >> 32) + 2**31) % 2**32 - 2**31 for p in products]
