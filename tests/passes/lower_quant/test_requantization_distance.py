"""How far lower-quant's integer-only requantization (a 31-bit fixed-point multiplier and a
rounding shift, `requantize_fixed_point`) lands from `quant.requant`'s exact rational result:
counted over exhaustive i8 / i16 inputs and random i32 accumulators, random scale pairs and
every rounding mode, printed, and bounded to one LSB. Power-of-two ratios must not differ."""

import numpy as np
import pytest
from xdsl.dialects.builtin import Float32Type

from bitfold.dialects.quant import RoundingMode, UniformQuantizedType
from bitfold.dialects.quant_semantics import requantize
from bitfold.passes.utils.requantization import requantize_fixed_point

F32 = Float32Type()
RNG = np.random.default_rng(7)


def _inputs(bits: int) -> np.ndarray:
    if bits < 32:
        return np.arange(-(2 ** (bits - 1)), 2 ** (bits - 1)).astype(f"int{bits}")
    return RNG.integers(-(2**31), 2**31, 20_000).astype(np.int32)


def _distance(in_type, out_type, q) -> tuple[int, int]:
    """(elements that differ, largest difference) over every rounding mode and both orders."""
    differing = worst = 0
    for mode in RoundingMode:
        for zero_point_first in (False, True):
            exact = requantize(q, in_type, out_type, mode, zero_point_first).astype(np.int64)
            fixed = requantize_fixed_point(q, in_type, out_type, mode, zero_point_first).astype(np.int64)
            differing += int(np.count_nonzero(exact != fixed))
            worst = max(worst, int(np.abs(exact - fixed).max()))
    return differing, worst


@pytest.mark.parametrize("bits", [8, 16, 32])
def test_fixed_point_requantization_is_within_one_lsb(bits):
    # Outputs as wide as the inputs and ratios below 1 keep results off the clamp bounds, so
    # the comparison sees the rounding itself.
    compared = differing = worst = 0
    for _ in range(6):
        in_type = UniformQuantizedType.get(bits, True, F32, float(RNG.uniform(1e-4, 1.0)), int(RNG.integers(-3, 4)))
        out_type = UniformQuantizedType.get(bits, True, F32, float(RNG.uniform(1.0, 50.0)), int(RNG.integers(-3, 4)))
        q = _inputs(bits)
        count, largest = _distance(in_type, out_type, q)
        compared += q.size * len(RoundingMode) * 2
        differing, worst = differing + count, max(worst, largest)
    print(f"\ni{bits}: {differing} of {compared} requantized elements differ from the exact result "
          f"(largest difference {worst})")
    assert worst <= 1


@pytest.mark.parametrize("shift", [-3, 1, 5])
def test_power_of_two_ratios_are_exact(shift):
    in_type = UniformQuantizedType.get(16, True, F32, 0.25, 3)
    out_type = UniformQuantizedType.get(16, True, F32, 0.25 * 2.0**shift, -1)
    assert _distance(in_type, out_type, _inputs(16)) == (0, 0)
