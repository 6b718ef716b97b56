"""`quant.requant` on tensors becomes the integer-only fixed-point form of
`bitfold.passes.requantization` in a `linalg.generic`, all in i64:

    d = ext(q) - zp_in                      (extsi / extui by the input's signedness)
    t = d * M                               (|t| < 2^63, checked when lowering)
    f = t >> n                              (shrsi: floor(t / 2^n))
    rem = t & (2^n - 1); twice = rem + rem  (0 <= twice < 2^(n+1) <= 2^63)
    g = f + zp_out                          (zero_point_first; else g = f)
    q' = g + up(g, rem, twice, 2^n)         (+ zp_out unless zero_point_first)
    q_out = trunci(clamp(q', min_out, max_out))

up is `quant_semantics.round_quotient`'s rule on the floor g of the whole quotient (adding
zp_out * 2^n before the shift, as the reference does, would overflow; g is the same floor):
floor never, ceil rem != 0, toward_zero rem != 0 and g < 0, away_from_zero rem != 0 and
g >= 0, half modes twice > 2^n or a tie twice == 2^n with g odd (half_to_even), g >= 0
(half_away_from_zero) or g < 0 (half_toward_zero). M, n are the normalized fixed-point pair
(M = 1 skips the multiply, n = 0 everywhere skips the rounding)."""

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import i64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.utils.exceptions import PassFailedException

from bitfold.dialects.quant import Granularity, RequantizeOp, RoundingMode, UniformQuantizedType
from bitfold.passes.lower_quant.casts import checked_tensor, storage_tensor
from bitfold.passes.lower_quant.elementwise import Body, Parameter, build_elementwise, parameter_table
from bitfold.passes.requantization import check_i64_range, exact_ratios, multiplier_arrays

_SLT, _SGE, _EQ, _NE, _SGT = "slt", "sge", "eq", "ne", "sgt"


def _layout(op: RequantizeOp, in_type: UniformQuantizedType, out_type: UniformQuantizedType) -> UniformQuantizedType:
    """The type whose table layout the per-element parameters follow: the one that is not
    per tensor (both must then agree on granularity, axes and blocks)."""
    if in_type.kind == Granularity.PER_TENSOR:
        return out_type
    if out_type.kind != Granularity.PER_TENSOR and (
        in_type.kind != out_type.kind or in_type.axes != out_type.axes or in_type.block_sizes != out_type.block_sizes
    ):
        raise PassFailedException(f"lower-quant: '{op.name}' between {in_type} and {out_type}: parameter layouts differ")
    return in_type


def _entries(values, count: int) -> np.ndarray:
    """A type's parameter values broadcast to `count` table entries."""
    return np.broadcast_to(np.asarray(values, dtype=object), (count,))


def _round_up(body: Body, g: SSAValue, mode: RoundingMode) -> SSAValue | None:
    """up(g, rem, twice, 2^n) as an i1, None for floor."""
    if mode == RoundingMode.FLOOR:
        return None
    v = body.values
    zero = body.constant(0, i64)
    if mode in (RoundingMode.CEIL, RoundingMode.TOWARD_ZERO, RoundingMode.AWAY_FROM_ZERO):
        inexact = body.emit(arith.CmpiOp(v["rem"], zero, _NE))
        if mode == RoundingMode.CEIL:
            return inexact
        sign = body.emit(arith.CmpiOp(g, zero, _SLT if mode == RoundingMode.TOWARD_ZERO else _SGE))
        return body.emit(arith.AndIOp(inexact, sign))
    above = body.emit(arith.CmpiOp(v["twice"], v["divisor"], _SGT))
    tie = body.emit(arith.CmpiOp(v["twice"], v["divisor"], _EQ))
    if mode == RoundingMode.HALF_TO_EVEN:
        odd = body.emit(arith.AndIOp(g, body.constant(1, i64)))
        wins = body.emit(arith.CmpiOp(odd, zero, _NE))
    else:
        wins = body.emit(arith.CmpiOp(g, zero, _SGE if mode == RoundingMode.HALF_AWAY_FROM_ZERO else _SLT))
    return body.emit(arith.OrIOp(above, body.emit(arith.AndIOp(tie, wins))))


class LowerRequantize(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: RequantizeOp, rewriter: PatternRewriter):
        source = checked_tensor(op, op.input.type)
        in_type, out_type = source.element_type, op.result.type.element_type
        layout = _layout(op, in_type, out_type)
        count = len(layout.scale_values())
        ratios = exact_ratios(_entries(in_type.scale_values(), count), _entries(out_type.scale_values(), count))
        multipliers, shifts = multiplier_arrays(ratios)
        if (problem := check_i64_range(in_type, multipliers, shifts)) is not None:
            raise PassFailedException(f"lower-quant: '{op.name}' from {in_type} to {out_type}: {problem}")
        in_zero_points = _entries(in_type.zero_point_values(), count).astype(np.int64)
        out_zero_points = _entries(out_type.zero_point_values(), count).astype(np.int64)
        low, high = out_type.value_range()
        parameters = {"low": np.full(count, low), "high": np.full(count, high)}
        optional = {
            "zero_point_in": (in_zero_points, np.any(in_zero_points != 0)),
            "multiplier": (multipliers, np.any(multipliers != 1)),
            "shift": (shifts, np.any(shifts != 0)),
            "mask": ((1 << shifts) - 1, np.any(shifts != 0)),
            "divisor": (1 << shifts, np.any(shifts != 0)),
            "zero_point_out": (out_zero_points, np.any(out_zero_points != 0)),
        }
        parameters |= {name: values for name, (values, needed) in optional.items() if needed}
        tables = {name: Parameter(parameter_table(layout, values), i64) for name, values in parameters.items()}
        rounding, first = op.rounding_mode, op.adds_zero_point_first
        storage_in = in_type.storage_integer_type()
        storage_out = out_type.storage_integer_type()

        def build(body: Body) -> SSAValue:
            v = body.values
            x = v["input"]
            if storage_in.width.data < 64:
                x = body.emit((arith.ExtSIOp if in_type.is_signed else arith.ExtUIOp)(x, i64))
            if "zero_point_in" in v:
                x = body.emit(arith.SubiOp(x, v["zero_point_in"]))
            if "multiplier" in v:
                x = body.emit(arith.MuliOp(x, v["multiplier"]))
            if "shift" in v:
                v["rem"] = body.emit(arith.AndIOp(x, v["mask"]))
                v["twice"] = body.emit(arith.AddiOp(v["rem"], v["rem"]))
                x = body.emit(arith.ShRSIOp(x, v["shift"]))
            if first and "zero_point_out" in v:
                x = body.emit(arith.AddiOp(x, v["zero_point_out"]))
            if "shift" in v and (up := _round_up(body, x, rounding)) is not None:
                x = body.emit(arith.AddiOp(x, body.emit(arith.ExtUIOp(up, i64))))
            if not first and "zero_point_out" in v:
                x = body.emit(arith.AddiOp(x, v["zero_point_out"]))
            x = body.emit(arith.MinSIOp(body.emit(arith.MaxSIOp(x, v["low"])), v["high"]))
            return body.emit(arith.TruncIOp(x, storage_out)) if storage_out.width.data < 64 else x

        result = storage_tensor(op.result.type)
        lowered = build_elementwise(rewriter, op.input, storage_in, layout, tables, result, build)
        rewriter.replace(op, [], [lowered])
