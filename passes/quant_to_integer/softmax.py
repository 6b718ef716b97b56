"""Softmax along any axis of a dequantized value, in integers (o the other axes, i the axis):

    m[o]    = max_i q[o, i]                                   (q the stored input)
    T[j]    = R(2^F exp((j - D) s))          j = 0..D, D = max - min of q's storage range
    e[o, i] = T[q[o, i] - m[o] + D]                           (a table of the input grid)
    S[o]    = sum_i e[o, i]                                   (i32, S >= T[D] = 2^F)
    u[o, i] = floor((e[o, i] 2^P + floor(S[o] / 2)) / S[o])   (integer division, rounded)

and the result is dcast of u at scale 2^-P (the following qcast becomes a `quant.requant`).
q's type must be uniform per tensor; D + 1 table entries, at most `MAX_TABLE_ENTRIES`.

Error bound: with y the exact softmax, T_j = 2^F E_j + d_j (|d_j| <= 1/2),
|T_i / S - y_i| = |d_i - y_i sum_j d_j| / S <= (1 + N) / 2^(F+1), and the division adds at
most 2^-(P+1) (the tie rounds up), so

    |u 2^-P - y| <= eps = (N + 1) 2^-(F+1) + 2^-(P+1)        (N the axis length)

Under the i32 limits N 2^F <= 2^31 - 1 and 2^(F+P) + N 2^(F-1) <= 2^31 - 1:

- where every user is a qcast to a per-tensor uniform type of step 2^-p (quantize_static's
  1/256) and delta = (N + 1) 2^-(F+1) < 2^-(p+1) for the largest F with P = p: those F
  and P. The division is the one rounding onto the output grid (the requant after it only
  adds the zero point and clamps), and the result is within one step of the exactly
  rounded softmax;
- otherwise F and P minimize eps; where the result is quantized (step s_out), eps < s_out / 2
  is required, with the same consequence.

Otherwise the pass fails with one line."""

import numpy as np
from xdsl.dialects import arith
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.onnx.nn import SoftmaxOp
from bitfold.dialects.quant import Granularity, QuantizeCastOp, UniformQuantizedType, element_type
from bitfold.dialects.table_lookup import read_table
from bitfold.passes.quant_to_integer.dequantized import dequantized
from bitfold.passes.quant_to_integer.operands import (
    INT32_MAX,
    accumulator_type,
    fail,
    quantized_operand,
    storage_value,
    widened,
)
from bitfold.passes.quant_to_integer.tables import table_input_values
from bitfold.passes.utils.linalg_building import I32, Body, affine_map, build_generic, empty, filled, integer_constant


def exponential_error(length: int, exp_bits: int) -> float:
    """delta of the module docstring: T / S against the exact softmax, F = exp_bits."""
    return (length + 1) * 2.0 ** -(exp_bits + 1)


def softmax_error_bound(length: int, exp_bits: int, fraction_bits: int) -> float:
    """eps of the module docstring for an axis of `length`, F = exp_bits, P = fraction_bits."""
    return exponential_error(length, exp_bits) + 2.0 ** -(fraction_bits + 1)


def fixed_point_bits(length: int, fraction_bits: int | None = None) -> tuple[int, int] | None:
    """(F, P) within the i32 limits: the largest F for a given P (None if there is none),
    else the pair of least eps (module docstring)."""
    candidates = [
        (softmax_error_bound(length, f, p), f, p)
        for f in range(1, 31)
        for p in ([fraction_bits] if fraction_bits else range(1, 31))
        if length << f <= INT32_MAX and (1 << (f + p)) + (length << (f - 1)) <= INT32_MAX
    ]
    if not candidates:
        return None
    _, exp_bits, fraction_bits = min(candidates)
    return exp_bits, fraction_bits


def _output_steps(op: SoftmaxOp) -> tuple[list[float], bool]:
    """(the steps of the per-tensor uniform qcasts among the users, whether every user is one)."""
    users = [use.operation for use in op.output.uses]
    targets = [element_type(user.result.type) for user in users if isinstance(user, QuantizeCastOp)]
    steps = [t.scale for t in targets if isinstance(t, UniformQuantizedType) and t.kind == Granularity.PER_TENSOR]
    return steps, len(steps) == len(users)


def _power_of_two_exponent(step: float) -> int | None:
    """p where step = 2^-p exactly (1 <= p <= 24), else None."""
    mantissa, exponent = np.frexp(step)
    return 1 - int(exponent) if mantissa == 0.5 and 1 <= 1 - exponent <= 24 else None


class SoftmaxToInteger(RewritePattern):
    """Softmax(dcast(q)) along `axis` -> dcast(u) at 2^-P (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SoftmaxOp, rewriter: PatternRewriter) -> None:
        source = quantized_operand(op, op.input)
        shape = source.shape
        rank = len(shape)
        axis = op.int_attr("axis") % rank
        stored = table_input_values(op, source.qtype)
        low, high = int(stored[0]), int(stored[-1])
        span, length = high - low, shape[axis]
        steps, all_quantized = _output_steps(op)
        exponents = {_power_of_two_exponent(step) for step in steps}
        on_output_grid = None
        if steps and all_quantized and len(exponents) == 1 and None not in exponents:
            on_output_grid = fixed_point_bits(length, exponents.pop())
        if on_output_grid is not None and exponential_error(length, on_output_grid[0]) < min(steps) / 2:
            exp_bits, fraction_bits = on_output_grid
            bound = exponential_error(length, exp_bits)
        else:
            exp_bits, fraction_bits = fixed_point_bits(length)
            bound = softmax_error_bound(length, exp_bits, fraction_bits)
        if steps and bound >= min(steps) / 2:
            raise fail(
                op,
                f"over {length} values the error bound {bound:.3g} is not below half an output step ({min(steps):.3g})",
            )
        exponents = np.arange(-span, 1, dtype=np.float64) * source.qtype.scale
        table = integer_constant(rewriter, np.round(np.exp(exponents) * 2.0**exp_bits).astype(np.int64), I32)
        x = storage_value(rewriter, source)
        dims = [AffineDimExpr(d) for d in range(rank)]
        whole, per_row = AffineMap.identity(rank), affine_map(rank, dims[:axis] + dims[axis + 1 :])
        rows = shape[:axis] + shape[axis + 1 :]
        last = [axis]

        def exponential(body: Body) -> SSAValue:
            shifted = body.emit(arith.SubiOp(widened(body, body.values["in0"], source.qtype), body.values["in1"]))
            return read_table(body.emit, table, body.emit(arith.AddiOp(shifted, body.constant(span, I32))))

        maximum = build_generic(
            rewriter, [(x, whole)], (filled(rewriter, np.array(low), [], rows, I32), per_row), last,
            lambda body: body.emit(arith.MaxSIOp(widened(body, body.values["in0"], source.qtype), body.values["output"])),
        )  # fmt: skip
        total = build_generic(
            rewriter, [(x, whole), (maximum, per_row)], (filled(rewriter, np.array(0), [], rows, I32), per_row), last,
            lambda body: body.emit(arith.AddiOp(body.values["output"], exponential(body))),
        )  # fmt: skip

        def normalize(body: Body) -> SSAValue:
            scaled = body.emit(arith.ShLIOp(exponential(body), body.constant(fraction_bits, I32)))
            half = body.emit(arith.ShRUIOp(body.values["in2"], body.constant(1, I32)))
            return body.emit(arith.DivUIOp(body.emit(arith.AddiOp(scaled, half)), body.values["in2"]))

        fractions = build_generic(
            rewriter,
            [(x, whole), (maximum, per_row), (total, per_row)],
            (empty(rewriter, shape, I32), whole),
            [],
            normalize,
        )
        qtype = accumulator_type(np.array([2.0**-fraction_bits]), None, source.qtype.expressed_type, 1 << fraction_bits)
        rewriter.replace(op, [], [dequantized(rewriter, fractions, qtype, op.output.type)])
