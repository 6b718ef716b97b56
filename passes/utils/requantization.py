"""Integer-only requantization: the fixed-point form of a ratio r = s_in / s_out and the
integer evaluation that `lower-quant` emits for `quant.requant`.

Fixed-point form (TOSA `RESCALE`, gemmlowp). For r > 0, the exact ratio of the two doubles,

    r ~= M * 2^-n,   M = R_even(r * 2^n) in [2^30, 2^31)   (31 significant bits, an int32)

with n the one integer that puts r * 2^n in [2^30, 2^31) (M = 2^31 after rounding becomes
2^30, n - 1). A power of two r = 2^k gives M = 2^30, n = 30 - k exactly. The relative error
is |M 2^-n - r| / r <= 2^-31 (half an ulp of a 31-bit M), and 0 for powers of two.

Evaluation. With d = q_in - zp_in (an integer, |d| < 2^32) and t = d * M (|t| < 2^63; lower-quant
holds it in two i32 words, `passes/lower_quant/requant.py`, or an i64 where ranges need it):

    q_out = clamp(round_shift(t, n) + zp_out, min_out, max_out)
    q_out = clamp(round_shift(t + zp_out * 2^n, n), min_out, max_out)     (zero_point_first)

where round_shift(t, n) = R(t / 2^n) is the exact rounding of the dyadic t / 2^n in the op's
mode R: f = t >> n (arithmetic shift: floor), rem = t - f * 2^n in [0, 2^n), plus one where R
rounds up (`quant_semantics.round_quotient`'s rule: ceil when rem > 0, half modes compare
2 rem with 2^n and fix ties by f's parity or sign). This is TOSA's single rounding
(`double_round = false`) with the rounding constant generalized to every mode: TOSA adds
2^(n-1) and shifts (half toward +inf); `double_round = true` rounds a second time at bit 31
(gemmlowp's `SaturatingRoundingDoublingHighMul`), which moves ties and is not exact even for
powers of two, so it is not used.

Distance to the exact `quant_semantics.requantize`. round_shift is exact rounding of d M 2^-n,
which differs from d r by at most |d r| 2^-31. The results differ only where a rounding
boundary of R (a tie for the half modes, an integer for floor, ceil, toward and away from
zero) lies between d r and d M 2^-n, by one step: at most 1 LSB wherever |d r| < 2^31 (every
result that is not clamped to a 32-bit bound). One exception: `away_from_zero` jumps by two
steps at 0 (sign(x) ceil(|x|) is -1 just below 0 and +1 just above it), so with
`zero_point_first`, where d r + zp_out can straddle 0, the two may differ by 2 LSB (i8 -> i4,
r = 0.1 / 0.3 in doubles, d = -3, zp_out = 1: exact -1, fixed point +1). The exact d r = d n / m (lowest terms) lies
at least 1 / m from a boundary it is not on, so a difference needs m > 2^31 / |d r|: double
scales with long ratios and large |d r| (i32 accumulators). Powers of two: M 2^-n = r, so the result is bit-exact in every mode.

Emitted form. `normalized(M, n)` removes the factors of two that M and 2^n share (M odd or
n = 0), which does not change M 2^-n: a power-of-two ratio 2^-k becomes M = 1, n = k, a plain
rounding shift, and 2^k (k >= 0) a multiply by M = 2^k without a shift.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from bitfold.dialects.quant import RoundingMode, UniformQuantizedType
from bitfold.dialects.quant_semantics import exact_ratios, requantize_by_ratio

MULTIPLIER_BITS = 31
"""M in [2^30, 2^31): a positive int32 with its top bit set (TOSA's scale32)."""
MAX_SHIFT = 62
"""Largest shift the i64 evaluation allows: 2 * rem < 2^(n+1) must fit an i64."""
I64_LIMIT = 1 << 63


def fixed_point_scale(ratio: Fraction) -> tuple[int, int]:
    """(M, n) with M = R_even(ratio * 2^n) in [2^30, 2^31), ratio > 0 exact (integer arithmetic
    on ratio = p / q: p 2^n / q as the quotient of two integers)."""
    if ratio <= 0:
        raise ValueError(f"requantization ratio must be positive, got {ratio}")
    p, q = ratio.numerator, ratio.denominator

    def scaled(shift: int) -> tuple[int, int]:
        return (p << shift, q) if shift >= 0 else (p, q << -shift)

    shift = MULTIPLIER_BITS - 1 - (p.bit_length() - q.bit_length())
    numerator, denominator = scaled(shift)
    while numerator >= denominator << MULTIPLIER_BITS:
        shift -= 1
        numerator, denominator = scaled(shift)
    while numerator < denominator << (MULTIPLIER_BITS - 1):
        shift += 1
        numerator, denominator = scaled(shift)
    multiplier, remainder = divmod(numerator, denominator)
    if 2 * remainder > denominator or (2 * remainder == denominator and multiplier % 2):  # half to even
        multiplier += 1
    if multiplier == 1 << MULTIPLIER_BITS:
        multiplier, shift = multiplier >> 1, shift - 1
    return multiplier, shift


def normalized(multiplier: int, shift: int) -> tuple[int, int]:
    """The same M 2^-n with M odd or n = 0: common factors of two removed, and a negative
    shift folded into the multiplier."""
    while shift > 0 and multiplier % 2 == 0:
        multiplier, shift = multiplier >> 1, shift - 1
    if shift < 0:
        multiplier, shift = multiplier << -shift, 0
    return multiplier, shift


def multiplier_arrays(ratios: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Normalized (M, n) of each ratio, as int64 arrays of the ratios' shape."""
    pairs = [normalized(*fixed_point_scale(r)) for r in np.asarray(ratios, dtype=object).flat]
    shape = np.shape(ratios)
    multipliers = np.array([m for m, _ in pairs], dtype=np.int64).reshape(shape)
    shifts = np.array([n for _, n in pairs], dtype=np.int64).reshape(shape)
    return multipliers, shifts


def check_i64_range(in_type: UniformQuantizedType, multipliers: np.ndarray, shifts: np.ndarray) -> str | None:
    """Why the i64 evaluation cannot hold this requantization, or None: every |d * M| must
    be below 2^63 and every n at most `MAX_SHIFT` (ratios below about 2^-32)."""
    widest = in_type.largest_offset()
    if int(shifts.max()) > MAX_SHIFT:
        return f"requantization ratio needs a shift of {int(shifts.max())} > {MAX_SHIFT}"
    if widest * int(multipliers.max()) >= I64_LIMIT:
        return f"requantization product {widest} * {int(multipliers.max())} overflows i64"
    return None


def requantize_fixed_point(
    q: np.ndarray,
    in_type: UniformQuantizedType,
    out_type: UniformQuantizedType,
    rounding: RoundingMode = RoundingMode.HALF_TO_EVEN,
    zero_point_first: bool = False,
) -> np.ndarray:
    """`quant.requant` as the emitted integer code computes it (module docstring), in
    Python integers: `requantize_by_ratio` with s_in / s_out taken as M / 2^n, the reference
    the lowered IR must equal bit for bit."""

    def fixed_point_ratio(in_scale: np.ndarray, out_scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        multipliers, shifts = multiplier_arrays(exact_ratios(in_scale, out_scale))
        return multipliers.astype(object), np.left_shift(1, shifts.astype(object))

    return requantize_by_ratio(q, in_type, out_type, fixed_point_ratio, rounding, zero_point_first)
