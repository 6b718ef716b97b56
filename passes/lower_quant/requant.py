"""`quant.requant` on tensors becomes the integer-only fixed-point form of
`bitfold.passes.utils.requantization` in a `linalg.generic`, in i32 arithmetic (RV32IM has no i64)
wherever the ranges allow it (the fallback, last, is i64):

    x = ext(q)                              (extsi / extui by the input's signedness)
    x = clamp(x, x_low, x_high)             (only where a range needs it: saturation, below)
    d = x - zp_in
    t = d * M                               (M < 2^31: one i32 word, or the two words
                                             (lo, hi) = mulsi_extended(d, M), t = hi 2^32 + lo)
    f = floor(t / 2^n); rem = t - f 2^n     (0 <= rem < 2^n, compared with half = 2^(n-1))
    g = f + zp_out                          (zero_point_first; else g = f)
    q' = g + up(g, rem)                     (+ zp_out unless zero_point_first)
    q_out = trunci(clamp(q', min_out, max_out))

up is `quant_semantics.round_quotient`'s rule on the floor g of the whole quotient (adding
zp_out * 2^n before the shift, as the reference does, would overflow; g is the same floor):
floor never, ceil rem != 0, toward_zero rem != 0 and g < 0, away_from_zero rem != 0 and
g >= 0, half modes rem > half, or a tie rem == half with g odd (half_to_even), g >= 0
(half_away_from_zero) or g < 0 (half_toward_zero).

f and rem come from the product by the form of t and the range of n over the op's table of
(M, n) (the normalized pairs; M = 1 everywhere skips the multiply, n = 0 everywhere the rounding):

    one word   every |t| < 2^31, n <= 31:  t = muli(d, M)
               f = t >>s n;  rem = t & (2^n - 1)          (an n = 0 entry: half = 1 > rem = 0)
    two words  (lo, hi) = mulsi_extended(d, M), t = hi 2^32 + lo (lo unsigned)
      n in 1..31:   f = (lo >>u n) | (hi << (32 - n));  rem = lo & (2^n - 1)
      n in 32..63:  f = hi >>s k, k = n - 32;  rem = (u, lo), u = hi & (2^k - 1), against the
                    words (hh, hl) of half: rem > half iff u > hh or (u = hh and lo >u hl),
                    rem = half iff u = hh and lo = hl, rem != 0 iff (u | lo) != 0
      n on both sides of 32 in one table: both, the n >= 32 result chosen per element by
                    arith.select on an i1 table (each side's table holds a valid filler where
                    the other side applies)
    An n = 0 entry of a two-word table is written (2M, 1), the same M 2^-n.
    The half modes round in the high word alone where no tie can occur (`_ties_impossible`):
    they all round half up, q = (hi + 2^(n-33)) >>s (n - 32) (`_half_up_of_high_word`: mulh,
    add, shift), which needs every n >= 33. An entry with n < 33 is first lifted to
    (M 2^(33-n), 33) where M 2^(33-n) < 2^31 (`_lifted_to_high_word`): the same ratio M 2^-n,
    so the same t / 2^n for every d and the same rounded quotient, bit for bit. Other modes
    lift a straddling table to n >= 32 the same way where it fits (`_without_straddle`), which
    leaves the n >= 32 form alone, no select.

f is the whole floor: the checks below keep it in i32, so the low word of the shifted t is it.

Saturation. Every value must fit an i32: x, d, t (one word), f, g and g + 1. Where the input
range allows more, x is first clamped to [zp_in + D_low, zp_in + D_high] with

    D_low = floor((min_out - zp_out - 1) 2^n / M),  D_high = ceil((max_out - zp_out) 2^n / M)

(clipped to d's range). The result is monotone in d, and every d <= D_low gives min_out
(f + 1 + zp_out <= min_out) and every d >= D_high gives max_out (f + zp_out >= max_out), so
the clamp does not change a single result.

Fallback. Where even the clamped ranges leave i32 (u32 storage on either side, an i32 input
whose zero point moves d out of i32 while its results are not saturated, a ratio above 1 into
an i32 output, M or a doubled n = 0 multiplier from 2^31, n > 63), the body is the one-word
form in i64 (every |t| < 2^63 and n <= 62, checked by `requantization.check_i64_range`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, i1, i32, i64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.utils.exceptions import PassFailedException

from bitfold.dialects.quant import Granularity, QuantizedType, RequantizeOp, RoundingMode, UniformQuantizedType
from bitfold.dialects.quant_semantics import exact_ratios
from bitfold.passes.lower_quant.casts import checked_tensor
from bitfold.passes.utils.parameter_tables import Body, Parameter, build_elementwise, parameter_table
from bitfold.passes.utils.requantization import check_i64_range, multiplier_arrays

_SLT, _SGE, _EQ, _NE, _SGT, _UGT = "slt", "sge", "eq", "ne", "sgt", "ugt"

WORD_BITS = 32
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1

_TESTS_READ: dict[RoundingMode, tuple[str, ...]] = {
    RoundingMode.FLOOR: (),
    RoundingMode.CEIL: ("inexact",),
    RoundingMode.TOWARD_ZERO: ("inexact",),
    RoundingMode.AWAY_FROM_ZERO: ("inexact",),
    RoundingMode.HALF_TO_EVEN: ("above", "tie"),
    RoundingMode.HALF_AWAY_FROM_ZERO: ("above", "tie"),
    RoundingMode.HALF_TOWARD_ZERO: ("above", "tie"),
}
"""The remainder tests each rounding mode reads: inexact (rem != 0), above (rem > half),
tie (rem == half)."""

Tests = dict[str, SSAValue]


def _layout(op: RequantizeOp, in_type: UniformQuantizedType, out_type: UniformQuantizedType) -> UniformQuantizedType:
    """The type whose table layout the per-element parameters follow: the one that is not
    per tensor (both must then agree on granularity, axes and blocks)."""
    if in_type.kind == Granularity.PER_TENSOR:
        return out_type
    if out_type.kind != Granularity.PER_TENSOR and (
        in_type.kind != out_type.kind or in_type.axes != out_type.axes or in_type.block_sizes != out_type.block_sizes
    ):
        raise PassFailedException(
            f"lower-quant: '{op.name}' between {in_type} and {out_type}: parameter layouts differ"
        )
    return in_type


def _entries(values, count: int) -> list:
    """A type's parameter values broadcast to `count` table entries."""
    return list(np.broadcast_to(np.asarray(values, dtype=object), (count,)))


def _fits_i32(*values: int) -> bool:
    return all(INT32_MIN <= v <= INT32_MAX for v in values)


def _as_i32(value: int) -> int:
    """The i32 whose bit pattern is value mod 2^32 (2^31 becomes -2^31)."""
    return (value - INT32_MIN) % (1 << WORD_BITS) + INT32_MIN


# ----------------------------------------------------------------------------------------
# The static choice of the body
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Channel:
    """One table entry of the requantization: d = x - zp_in in [d_low, d_high], the normalized
    fixed-point pair (multiplier, shift) and the output's zero point and range."""

    d_low: int
    d_high: int
    multiplier: int
    shift: int
    zero_point_out: int
    out_low: int
    out_high: int

    def floor(self, d: int) -> int:
        return (d * self.multiplier) >> self.shift

    def saturated(self) -> tuple[int, int]:
        """[D_low, D_high] of the module docstring, clipped to [d_low, d_high]."""
        divisor, m = 1 << self.shift, self.multiplier
        low = ((self.out_low - self.zero_point_out - 1) * divisor) // m
        high = -((-(self.out_high - self.zero_point_out) * divisor) // m)
        return min(max(low, self.d_low), self.d_high), min(max(high, self.d_low), self.d_high)

    def fits_i32(self, d_low: int, d_high: int) -> bool:
        """Whether d, f, g and g + 1 (both orders) fit an i32 for every d in [d_low, d_high]."""
        f_low, f_high = self.floor(d_low), self.floor(d_high)
        zp = self.zero_point_out
        return _fits_i32(d_low, d_high, f_low, f_high + 1, f_low + zp, f_high + zp + 1, zp, self.out_low, self.out_high)


@dataclass(frozen=True)
class _Plan:
    """How the body computes: in `integer` (i32, or i64 as the fallback), t in one word or
    two, x clamped to `input_bounds` (per entry) first or not, with these (M, n) pairs."""

    integer: IntegerType
    words: int
    multipliers: list[int]
    shifts: list[int]
    input_bounds: tuple[list[int], list[int]] | None


def _plan(in_type: UniformQuantizedType, zero_points_in: Sequence[int], channels: Sequence[_Channel]) -> _Plan:
    """The i32 body of the module docstring where the ranges allow it, else the i64 one."""
    multipliers = [c.multiplier for c in channels]
    shifts = [c.shift for c in channels]
    fallback = _Plan(i64, 1, multipliers, shifts, None)
    in_low, in_high = in_type.value_range()
    if (
        not _fits_i32(in_low, in_high, *zero_points_in)
        or max(multipliers) > INT32_MAX
        or max(shifts) > 2 * WORD_BITS - 1
    ):
        return fallback
    ranges = [(c.d_low, c.d_high) for c in channels]
    bounds = None
    if not all(c.fits_i32(*r) for c, r in zip(channels, ranges)):
        ranges = [c.saturated() for c in channels]
        if not all(c.fits_i32(*r) for c, r in zip(channels, ranges)):
            return fallback
        bounds = tuple([r[i] + z for r, z in zip(ranges, zero_points_in)] for i in (0, 1))
    if max(shifts) < WORD_BITS and all(
        _fits_i32(low * c.multiplier, high * c.multiplier) for c, (low, high) in zip(channels, ranges)
    ):
        return _Plan(i32, 1, multipliers, shifts, bounds)
    pairs = [(m, n) if n > 0 else (2 * m, 1) for m, n in zip(multipliers, shifts)]
    if any(m > INT32_MAX for m, _ in pairs):
        return fallback
    return _Plan(i32, 2, [m for m, _ in pairs], [n for _, n in pairs], bounds)


def _d_ranges(plan: _Plan, channels: Sequence[_Channel], zero_points_in: Sequence[int]) -> list[tuple[int, int]]:
    """Each entry's range of d = x - zp_in as the body computes it (after the input clamp, if any)."""
    if plan.input_bounds is None:
        return [(c.d_low, c.d_high) for c in channels]
    lows, highs = plan.input_bounds
    return [(lo - z, hi - z) for lo, hi, z in zip(lows, highs, zero_points_in)]


def _needed_clamps(channels: Sequence[_Channel], ranges: Sequence[tuple[int, int]], rounds: bool) -> set[str]:
    """Which sides of the output clamp can change a result: "low" where some entry's smallest
    g = floor(d_low M / 2^n) + zp_out is below min_out, "high" where its largest
    floor(d_high M / 2^n) + zp_out (+ 1 if the rounding may go up) is above max_out (M > 0: the
    result is monotone in d). A clamp to the whole range of the result vanishes."""
    needed = set()
    for c, (d_low, d_high) in zip(channels, ranges, strict=True):
        if c.floor(d_low) + c.zero_point_out < c.out_low:
            needed.add("low")
        if c.floor(d_high) + c.zero_point_out + int(rounds) > c.out_high:
            needed.add("high")
    return needed


# ----------------------------------------------------------------------------------------
# Parameters and body
# ----------------------------------------------------------------------------------------


def _shift_parameters(plan: _Plan, read: Sequence[str]) -> dict[str, list[int]]:
    """The tables the floor shift and the remainder tests `read` use (module docstring)."""
    unused = {*(() if read else ("mask", "high_mask")), *(() if "above" in read else ("half", "half_high", "half_low"))}
    return {name: values for name, values in _all_shift_parameters(plan).items() if name not in unused}


def _all_shift_parameters(plan: _Plan) -> dict[str, list[int]]:
    shifts = plan.shifts
    if plan.words == 1:
        if max(shifts) == 0:
            return {}
        return {"mask": [(1 << n) - 1 for n in shifts], "half": [1 << max(n - 1, 0) for n in shifts], "shift": shifts}
    narrow = [n if n < WORD_BITS else WORD_BITS - 1 for n in shifts]  # a valid filler where n >= 32
    wide = [n - WORD_BITS if n >= WORD_BITS else 0 for n in shifts]  # a valid filler where n < 32
    low_word = {
        "mask": [(1 << n) - 1 for n in narrow],
        "half": [1 << (n - 1) for n in narrow],
        "shift": narrow,
        "shift_left": [WORD_BITS - n for n in narrow],
    }
    high_word = {
        "high_mask": [(1 << k) - 1 for k in wide],
        "half_high": [(1 << (n - 1)) >> WORD_BITS for n in shifts],
        "half_low": [_as_i32((1 << (n - 1)) & 0xFFFF_FFFF) if n >= WORD_BITS else 0 for n in shifts],
        "high_shift": wide,
    }
    if max(shifts) < WORD_BITS:
        return low_word
    if min(shifts) >= WORD_BITS:
        return high_word
    return low_word | high_word | {"wide": [int(n >= WORD_BITS) for n in shifts]}


def _word_tests(body: Body, word: SSAValue, read: Sequence[str]) -> Tests:
    """The remainder tests of rem = word & (2^n - 1) (0 <= rem < 2^31, or 2^62 in i64)."""
    if not read:
        return {}
    rem = body.emit(arith.AndIOp(word, body.values["mask"]))
    if "inexact" in read:
        return {"inexact": body.emit(arith.CmpiOp(rem, body.constant(0, rem.type), _NE))}
    half = body.values["half"]
    return {"above": body.emit(arith.CmpiOp(rem, half, _SGT)), "tie": body.emit(arith.CmpiOp(rem, half, _EQ))}


def _pair_tests(body: Body, high: SSAValue, low: SSAValue, read: Sequence[str]) -> Tests:
    """The remainder tests of rem = (u, lo) = (hi & (2^k - 1), lo) against half's words."""
    v = body.values
    if not read:
        return {}
    u = body.emit(arith.AndIOp(high, v["high_mask"]))
    if "inexact" in read:
        either = body.emit(arith.OrIOp(u, low))
        return {"inexact": body.emit(arith.CmpiOp(either, body.constant(0, i32), _NE))}
    high_equal = body.emit(arith.CmpiOp(u, v["half_high"], _EQ))
    high_above = body.emit(arith.CmpiOp(u, v["half_high"], _SGT))
    low_above = body.emit(arith.CmpiOp(low, v["half_low"], _UGT))
    low_equal = body.emit(arith.CmpiOp(low, v["half_low"], _EQ))
    above = body.emit(arith.OrIOp(high_above, body.emit(arith.AndIOp(high_equal, low_above))))
    return {"above": above, "tie": body.emit(arith.AndIOp(high_equal, low_equal))}


def _floor_of_words(body: Body, low: SSAValue, high: SSAValue, read: Sequence[str]) -> tuple[SSAValue, Tests]:
    """f = floor(t / 2^n) and the remainder tests from t's two words, by the shift tables."""
    v = body.values
    narrow = wide = None
    if "shift_left" in v:
        tests = _word_tests(body, low, read)
        low_part = body.emit(arith.ShRUIOp(low, v["shift"]))
        floor = body.emit(arith.OrIOp(low_part, body.emit(arith.ShLIOp(high, v["shift_left"]))))
        narrow = floor, tests
    if "high_shift" in v:
        tests = _pair_tests(body, high, low, read)
        wide = body.emit(arith.ShRSIOp(high, v["high_shift"])), tests
    if narrow is None or wide is None:
        return narrow or wide
    choose = v["wide"]
    floor = body.emit(arith.SelectOp(choose, wide[0], narrow[0]))
    return floor, {name: body.emit(arith.SelectOp(choose, wide[1][name], narrow[1][name])) for name in read}


HALF_MODES = (RoundingMode.HALF_TO_EVEN, RoundingMode.HALF_AWAY_FROM_ZERO, RoundingMode.HALF_TOWARD_ZERO)


def _ties_impossible(plan: _Plan, ranges: Sequence[tuple[int, int]]) -> bool:
    """Whether rem == half cannot occur for any d. Write M = m 2^j with m odd and e = n - j, so
    t / 2^n = d m / 2^e. If e <= 0 the quotient is an integer (rem = 0 < half). Otherwise a tie
    is d m = (odd) 2^(e-1), which with m odd needs d an odd multiple of 2^(e-1): impossible where
    every |d| < 2^(e-1) (d = 0 gives rem = 0)."""

    def exponent(m: int, n: int) -> int:
        return n - ((m & -m).bit_length() - 1)

    return all(
        (e := exponent(m, n)) <= 0 or max(-low, high) < 1 << (e - 1)
        for m, n, (low, high) in zip(plan.multipliers, plan.shifts, ranges)
    )


def _lifted(plan: _Plan, least_shift: int) -> _Plan | None:
    """The plan with every pair (M, n), n < least_shift, written (M 2^k, n + k), k = least_shift - n,
    or None where some M 2^k reaches 2^31. M 2^k / 2^(n+k) = M / 2^n: t / 2^n is the same number
    for every d, so f is the same and rem scales with half (rem 2^k against half 2^k): every
    remainder test, hence every rounding, is unchanged, bit for bit."""
    pairs = [(m << (least_shift - n), least_shift) if n < least_shift else (m, n)
             for m, n in zip(plan.multipliers, plan.shifts)]
    if plan.words != 2 or any(m > INT32_MAX for m, _ in pairs):
        return None
    return _Plan(plan.integer, 2, [m for m, _ in pairs], [n for _, n in pairs], plan.input_bounds)


def _lifted_to_high_word(plan: _Plan, mode: RoundingMode, ranges: Sequence[tuple[int, int]]) -> _Plan | None:
    """The plan `_half_up_of_high_word` computes exactly, or None: two words, a half mode, every
    n lifted to 33 or more (`_lifted`) and no tie possible (where no tie occurs, every half mode
    rounds half up, whatever the zero point's order). `_ties_impossible` reads the reduced
    fraction, so the lift does not change its answer."""
    if mode not in HALF_MODES or (lifted := _lifted(plan, WORD_BITS + 1)) is None:
        return None
    return lifted if _ties_impossible(lifted, ranges) else None


def _without_straddle(plan: _Plan) -> _Plan:
    """A two-word table whose shifts straddle 32 lifted to n >= 32 (`_lifted`), so that the
    high-word form alone applies (no arith.select), where every lifted M fits; else the plan."""
    if plan.words != 2 or not min(plan.shifts) < WORD_BITS <= max(plan.shifts):
        return plan
    return _lifted(plan, WORD_BITS) or plan


def _half_up_parameters(plan: _Plan) -> dict[str, list[int]]:
    """The tables of `_half_up_of_high_word`: k = n - 32 and half's high word 2^(k-1)."""
    wide = [n - WORD_BITS for n in plan.shifts]
    return {"high_shift": wide, "half_high": [1 << (k - 1) for k in wide]}


def _half_up_of_high_word(body: Body, high: SSAValue) -> SSAValue:
    """floor((t + 2^(n-1)) / 2^n) = (hi + 2^(k-1)) >>s k for t = hi 2^32 + lo, n = 32 + k, k >= 1:
    2^(n-1) is a multiple of 2^32, so it adds to the high word alone and the low word cannot
    change the quotient (it is not read). That is the rounding half up, which is every half mode
    where no tie occurs (`_ties_impossible`). No i32 overflow: |t| < 2^62 gives hi in
    [-2^30, 2^30), and 2^(k-1) <= 2^30 (k <= 31)."""
    v = body.values
    return body.emit(arith.ShRSIOp(body.emit(arith.AddiOp(high, v["half_high"])), v["high_shift"]))


def _round_up(body: Body, g: SSAValue, mode: RoundingMode, tests: Tests) -> SSAValue | None:
    """up(g, rem) as an i1, None for floor."""
    if mode == RoundingMode.FLOOR:
        return None
    if mode == RoundingMode.CEIL:
        return tests["inexact"]
    zero = body.constant(0, g.type)
    if mode in (RoundingMode.TOWARD_ZERO, RoundingMode.AWAY_FROM_ZERO):
        sign = body.emit(arith.CmpiOp(g, zero, _SLT if mode == RoundingMode.TOWARD_ZERO else _SGE))
        return body.emit(arith.AndIOp(tests["inexact"], sign))
    if mode == RoundingMode.HALF_TO_EVEN:
        odd = body.emit(arith.AndIOp(g, body.constant(1, g.type)))
        wins = body.emit(arith.CmpiOp(odd, zero, _NE))
    else:
        wins = body.emit(arith.CmpiOp(g, zero, _SGE if mode == RoundingMode.HALF_AWAY_FROM_ZERO else _SLT))
    return body.emit(arith.OrIOp(tests["above"], body.emit(arith.AndIOp(tests["tie"], wins))))


class LowerRequantize(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: RequantizeOp, rewriter: PatternRewriter):
        source = checked_tensor(op, op.input.type)
        in_type, out_type = source.element_type, op.result.type.element_type
        layout = _layout(op, in_type, out_type)
        count = len(layout.scale_values())
        ratios = exact_ratios(*(np.array(_entries(t.scale_values(), count), dtype=object) for t in (in_type, out_type)))
        multipliers, shifts = multiplier_arrays(ratios)
        in_zero_points = [int(z) for z in _entries(in_type.zero_point_values(), count)]
        out_zero_points = [int(z) for z in _entries(out_type.zero_point_values(), count)]
        in_low, in_high = in_type.value_range()
        low, high = out_type.value_range()
        channels = [
            _Channel(in_low - zp_in, in_high - zp_in, int(m), int(n), zp_out, low, high)
            for zp_in, m, n, zp_out in zip(in_zero_points, multipliers, shifts, out_zero_points)
        ]
        chosen = _plan(in_type, in_zero_points, channels)
        if chosen.integer == i64 and (problem := check_i64_range(in_type, multipliers, shifts)) is not None:
            raise PassFailedException(f"lower-quant: '{op.name}' from {in_type} to {out_type}: {problem}")
        rounding, first = op.rounding_mode, op.adds_zero_point_first
        lifted = _lifted_to_high_word(chosen, rounding, _d_ranges(chosen, channels, in_zero_points))
        half_up = lifted is not None
        chosen = lifted or _without_straddle(chosen)
        read = _TESTS_READ[rounding]
        rounds = max(chosen.shifts) > 0
        clamps = _needed_clamps(channels, _d_ranges(chosen, channels, in_zero_points), rounds)
        parameters: dict[str, list[int]] = {name: [bound] * count for name, bound in zip(("low", "high"), (low, high))
                                            if name in clamps}
        if chosen.input_bounds is not None:
            parameters |= {"input_low": chosen.input_bounds[0], "input_high": chosen.input_bounds[1]}
        optional = {
            "zero_point_in": (in_zero_points, any(in_zero_points)),
            "multiplier": (chosen.multipliers, any(m != 1 for m in chosen.multipliers) or chosen.words == 2),
        }
        parameters |= {name: values for name, (values, needed) in optional.items() if needed}
        parameters |= _half_up_parameters(chosen) if half_up else _shift_parameters(chosen, read)
        if any(out_zero_points):
            parameters["zero_point_out"] = out_zero_points
        tables = {
            name: Parameter(
                parameter_table(layout, np.array(values, dtype=np.int64)), i1 if name == "wide" else chosen.integer
            )
            for name, values in parameters.items()
        }
        storage_in = in_type.storage_integer_type()
        storage_out = out_type.storage_integer_type()
        if not parameters and storage_in == storage_out:
            rewriter.replace(op, [], [op.input])  # q_out = q: the same stored integers
            return
        width = chosen.integer.width.data

        def build(body: Body) -> SSAValue:
            v = body.values
            x = v["input"]
            if storage_in.width.data < width:
                x = body.emit((arith.ExtSIOp if in_type.is_signed else arith.ExtUIOp)(x, chosen.integer))
            if "input_low" in v:
                x = body.emit(arith.MinSIOp(body.emit(arith.MaxSIOp(x, v["input_low"])), v["input_high"]))
            if "zero_point_in" in v:
                x = body.emit(arith.SubiOp(x, v["zero_point_in"]))
            tests: Tests = {}
            if half_up:
                product = arith.MulSIExtendedOp(x, v["multiplier"])
                body.emit(product)
                x = _half_up_of_high_word(body, product.high)
            elif chosen.words == 2:
                product = arith.MulSIExtendedOp(x, v["multiplier"])
                body.emit(product)
                x, tests = _floor_of_words(body, product.low, product.high, read)
            else:
                if "multiplier" in v:
                    x = body.emit(arith.MuliOp(x, v["multiplier"]))
                if "shift" in v:
                    tests = _word_tests(body, x, read)
                    x = body.emit(arith.ShRSIOp(x, v["shift"]))
            if first and "zero_point_out" in v:
                x = body.emit(arith.AddiOp(x, v["zero_point_out"]))
            if rounds and not half_up and (up := _round_up(body, x, rounding, tests)) is not None:
                x = body.emit(arith.AddiOp(x, body.emit(arith.ExtUIOp(up, chosen.integer))))
            if not first and "zero_point_out" in v:
                x = body.emit(arith.AddiOp(x, v["zero_point_out"]))
            if "low" in v:
                x = body.emit(arith.MaxSIOp(x, v["low"]))
            if "high" in v:
                x = body.emit(arith.MinSIOp(x, v["high"]))
            return body.emit(arith.TruncIOp(x, storage_out)) if storage_out.width.data < width else x

        result = QuantizedType.cast_to_storage_type(op.result.type)
        lowered = build_elementwise(rewriter, op.input, storage_in, layout, tables, result, build)
        rewriter.replace(op, [], [lowered])
