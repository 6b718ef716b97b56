"""`qonnx.FloatQuant`'s `evaluate` against qonnx's own `float_quant`, bit for bit (float32 patterns,
NaNs by position): float8 formats and arbitrary exponent / mantissa widths and biases, `max_val` below
the format's largest value, saturating or with has_inf / has_nan, every rounding mode; inputs spread over
every binade the formats reach, on the grid's ties, next to powers of two (where float32 log2 decides the
binade) and the specials."""

import numpy as np
import pytest
from qonnx.custom_op.general.floatquant import compute_max_val, float_quant
from xdsl.dialects import test
from xdsl.dialects.builtin import Float32Type, IntegerAttr, StringAttr, TensorType
from xdsl.utils.exceptions import VerifyException

from bitfold.dialects.qonnx import FloatQuantOp

RNG = np.random.default_rng(20261126)

FORMATS = [(4, 3, 7), (5, 2, 15), (4, 3, 8), (3, 2, 3), (2, 1, 1), (6, 5, 31), (3, 4, 2), (5, 0, 15), (1, 3, 0)]
"""(exponent bits, mantissa bits, bias): OCP e4m3 and e5m2, fnuz biases, and widths no MLIR type has."""

MODES = ["ROUND", "CEIL", "FLOOR", "UP", "DOWN", "HALF_UP", "HALF_DOWN", "round"]


def inputs(exponent_bits: int, mantissa_bits: int, bias: int) -> np.ndarray:
    top = int(2 ** exponent_bits - bias) + 2
    low = 1 - bias - mantissa_bits - 3
    powers = np.arange(low, top, dtype=np.float32)
    spread = (RNG.uniform(1, 2, (powers.size, 40)) * np.exp2(powers)[:, None]).ravel()
    ties = ((np.arange(-64, 64) + 0.5) * np.exp2(RNG.integers(low, top, 128) - mantissa_bits)).astype(np.float32)
    near_powers = np.concatenate([np.nextafter(np.exp2(powers), 0), np.exp2(powers), np.nextafter(np.exp2(powers), np.inf)])
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 1e-30], np.float32)
    values = np.concatenate([spread, -spread, ties, near_powers, -near_powers, specials]).astype(np.float32)
    return values.reshape(1, -1)


def evaluate(x, scale, formats, attributes) -> np.ndarray:
    operands = [x, scale, *[np.array(v, np.float32) for v in formats]]
    types = [TensorType(Float32Type(), a.shape) for a in operands]
    values = test.TestOp(result_types=types).results
    attrs = {k: StringAttr(v) if isinstance(v, str) else IntegerAttr(v, 64) for k, v in attributes.items()}
    op = FloatQuantOp.create(operands=list(values), result_types=[types[0]], attributes=attrs)
    op.verify()
    with np.errstate(all="ignore"):
        (result,) = op.evaluate(operands)
    return result


def assert_same(got: np.ndarray, want: np.ndarray) -> None:
    """Bit for bit after qonnx's executor's final conversion to float32 (`float_quant` may return float64)."""
    want = np.asarray(want).astype(np.float32)
    assert got.dtype == np.float32
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert got[~nan].tobytes() == want[~nan].tobytes()


@pytest.mark.parametrize("fmt", FORMATS, ids=str)
@pytest.mark.parametrize("mode", MODES)
def test_saturating_matches_qonnx(fmt, mode):
    x = inputs(*fmt)
    scale = np.array(0.75, np.float32)
    below_max = np.float32(compute_max_val(*fmt) / 2)
    for max_val in (np.float32(compute_max_val(*fmt)), below_max):
        attributes = {"has_inf": 0, "has_nan": 1, "has_subnormal": 1, "saturation": 1, "rounding_mode": mode}
        got = evaluate(x, scale, [*fmt, max_val], attributes)
        with np.errstate(all="ignore"):
            want = float_quant(x, scale, *[np.array(v, np.float32) for v in fmt], max_val=max_val, rounding_mode=mode,
                               saturation=True)
        assert_same(got, want)


@pytest.mark.parametrize("fmt", FORMATS[:4], ids=str)
@pytest.mark.parametrize(("has_inf", "has_nan"), [(1, 0), (0, 1), (1, 1)])
def test_non_saturating_matches_qonnx(fmt, has_inf, has_nan):
    x, scale = inputs(*fmt), np.array([[2.0]], np.float32)
    max_val = np.float32(compute_max_val(*fmt))
    attributes = {"has_inf": has_inf, "has_nan": has_nan, "has_subnormal": 0, "saturation": 0, "rounding_mode": "ROUND"}
    got = evaluate(x, scale, [*fmt, max_val], attributes)
    with np.errstate(all="ignore"):
        want = float_quant(x.copy(), scale, *[np.array(v, np.float32) for v in fmt], max_val=max_val,
                           has_inf=has_inf, has_nan=has_nan, saturation=False)
    assert_same(got, want)


def test_non_saturating_needs_inf_or_nan():
    with pytest.raises(VerifyException, match="'has_inf' or 'has_nan' must be 1"):
        evaluate(np.zeros((1, 2), np.float32), np.array(1.0, np.float32), [4, 3, 7, 448],
                 {"has_inf": 0, "has_nan": 0, "has_subnormal": 0, "saturation": 0, "rounding_mode": "ROUND"})
