"""Whether and how a reduction `linalg.generic` on memrefs takes the outer-product form on RVV
(`vector_contraction.py`): which output dimension becomes the vector lanes (d_v), which input is the
broadcast scalar and which the vector, which dimension is merged into the strip, how many registers a
vector group takes (LMUL), which rows share a load.

d_v and LMUL are chosen per generic from a cost model of the executed instructions per MAC, among the
output's parallel dims that one input uses (a convolution's output pixels, or its output channels where
images are narrow: DS-CNN's 5-pixel rows) and the register groups of `GROUPS`. For N lanes along d_v
(times the merged rows), L lanes a strip (4 x LMUL i32 lanes at VLEN 128, 8 x LMUL at 256), R rows
sharing a vector load (`blocked_rows`), K reduction steps and U of them an iteration of the innermost
reduction loop (`unroll_factors`):

    step = SHARED + LOOP / U + R * ROW
    cost = ceil(N / L) * (K * step + STRIP + R * ACCUMULATOR) / (K * R * N)

averaged over VLEN 128 and 256 (`MODELLED_VLENS`: one binary runs at every VLEN).

A reduction step of a strip loads the shared vector (SHARED = LOAD: its address, the load, the
widening) and shares the loop's LOOP instructions (`vsetvli`, counter, pointer, branch) with the U
steps of an iteration; each row loads its scalar and multiply-adds (ROW = PER_ROW). Where both inputs
use d_v (depthwise: its own schedule, both loaded as vectors) the rows share the weights (SHARED =
VECTOR_LOAD) and each loads its own image vector (ROW = LOAD + 1, `vwmacc.vv`). A vector input loaded
at a stride (`gathered`: a non-constant input that does not hold d_v last, such as an average pool's
image vectorized over its channels) adds STRIDED_LOAD: one instruction, but most cores move a strided
load's lanes one by one, so a strided plan wins only where the contiguous ones waste lanes. A strip
adds its mask and loop (STRIP) and each row's accumulator load and store (ACCUMULATOR) once for its K
steps. Ties keep the output's last dim (contiguous stores), then the larger LMUL.

R is bounded by register pressure (`live_registers`): the R accumulators of LMUL registers each, the
mask in v0, and IN_FLIGHT loaded and widened operands must fit the 32 vector registers. LMUL 8 holds
2 rows; a smaller LMUL holds more (LMUL 4: 6, LMUL 2: 8 = MAX_ROWS), which pays where LMUL 8's rows
cannot share a load (odd bounds: DS-CNN's 25 x 5 pixels) or its strips waste lanes.
"""

from dataclasses import dataclass, replace
from math import prod

from xdsl.dialects import arith
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir.affine import AffineDimExpr, AffineExpr

from bitfold.backends.kernel.bufferize import constant_global

LANES = 16
"""lanes of one vector per vscale (vscale = VLEN / 64 on RVV): 16 x i32 is a group of 8 registers"""
STRIP_LANES = LANES * 128 // 64
"""the lanes of one strip at VLEN 128, the width the copies' cost model assumes (`vector_copy.py`)"""
MODELLED_VLENS = (128, 256)
"""the VLENs whose instructions per MAC the contraction's cost model averages: the code is VLEN-agnostic,
so a plan is chosen for V's minimum and the next size (25 lanes fill 25 of LMUL 8's 32 at VLEN 128, of
its 64 at 256)"""
GROUPS = (16, 8, 4, 2)
"""the lanes per vscale a contraction's strip may take: i32 accumulators in groups of 8, 4, 2, 1 registers"""
REGISTERS = 32
"""RVV's vector registers"""
IN_FLIGHT = 2
"""reduction steps whose loaded operands are live at once (LLVM schedules a step's loads ahead)"""
MAX_ROWS = 8
"""the most rows sharing a vector load (each holds a scalar register for its operand, on RV32 too)"""
LOAD = 3
LOOP = 4
PER_ROW = 2
VECTOR_LOAD = 3
"""the cost model's instructions of a reduction step: a vector load (its address, the load, the
widening), an iteration of the innermost reduction loop, a row (module docstring)"""
STRIP = 6
ACCUMULATOR = 3
"""the cost model's instructions of a strip beside its reduction steps: the mask and the loop, and a
row's accumulator (its address, load and store)"""
GATHER = 4
"""the extra instructions a strided vector load is charged by the copies' cost model (`vector_copy.py`)"""
STRIDED_LOAD = 2
"""the same in a reduction step, beside its LOAD (module docstring)"""
UNROLL = 9
"""the most reduction steps one iteration of the innermost reduction loop holds (`unroll_factors`)"""
UNROLL_VECTORS = 3
"""the same where both inputs are vectors (depthwise: a kernel row; each step holds two loaded and
widened vectors, and a whole 3x3 kernel spills scalar registers on RV32)"""
PAYOFF = 4
"""executed instructions one byte of unrolled code must save (`unroll_factors`)"""
ELEMENTWISE = (arith.ExtSIOp, arith.ExtUIOp, arith.MuliOp, arith.AddiOp, arith.SubiOp, arith.ConstantOp)
"""the body ops this schedule vectorizes (lane by lane)"""


@dataclass
class Plan:
    """How one generic is vectorized: d_v, the role of each input, the loops."""

    vector_dim: int
    vector_input: int
    scalar_input: int
    outer: list[int]
    reductions: list[int]
    row_dim: int | None = None
    """the output's second-last dim, merged with d_v into one strip dim (rows * columns elements) when
    the output and the vector input hold both contiguously (a pointwise convolution's H x W)"""
    out_stride: int = 1
    """the output's element stride along d_v: 1 when d_v is its last dim, else the lanes are gathered
    and scattered (a convolution vectorized over its output channels)"""
    both_vectors: bool = False
    """`scalar_input` uses d_v too and is loaded as a vector like `vector_input` (a depthwise
    convolution over its channels: `vwmacc.vv`; rows share the weights' load, `blocked_rows`)"""
    lanes: int = LANES
    """lanes of a strip per vscale (`GROUPS`): the accumulators' LMUL is lanes / 2"""
    blocked: int | None = None
    """the outer dim whose `rows` neighbouring points share one vector load (`blocked_rows`)"""
    rows: int = 1
    """R: the points of `blocked` one strip computes together, an accumulator each"""

    @property
    def vector_inputs(self) -> tuple[int, ...]:
        return (self.vector_input, self.scalar_input) if self.both_vectors else (self.vector_input,)


def coefficient(expr: AffineExpr, dim: int, dims: int) -> int | None:
    """s when `expr` is `s * d_dim + f(other dims)` for a constant s >= 1, else None."""
    found = set()
    for others in ([0] * dims, list(range(3, 3 + dims))):
        values = [expr.eval(others[:dim] + [x] + others[dim + 1 :], []) for x in (0, 1, 2)]
        found |= {values[1] - values[0], values[2] - values[1]}
    (stride,) = found if len(found) == 1 else (None,)
    return stride if stride is not None and stride >= 1 else None


def linear_unit(expr: AffineExpr, dim: int, dims: int) -> bool:
    """`expr` is `d_dim + f(other dims)` (coefficient 1)."""
    return coefficient(expr, dim, dims) == 1


def uses(expr: AffineExpr, dim: int) -> bool:
    return any(isinstance(e, AffineDimExpr) and e.position == dim for e in expr.dfs())


def plan(op: GenericOp, payoff: float = PAYOFF) -> Plan | None:
    """The outer-product plan for `op` of the lowest cost (module docstring; unrolled by `unroll_factors`
    at `payoff`), or None when none fits."""
    if len(op.inputs) != 2 or len(op.outputs) != 1 or op.res:
        return None
    iterators = [i.data for i in op.iterator_types.data]
    if IteratorType.REDUCTION not in iterators:
        return None
    if not all(isinstance(o, ELEMENTWISE) for o in list(op.body.block.ops)[:-1]):
        return None
    out_map = op.indexing_maps.data[-1].data
    candidates = [candidate(op, position) for position in reversed(range(len(out_map.results)))]
    grouped = [replace(c, lanes=lanes, **blocked_rows(op, c, lanes)) for c in candidates if c is not None
               for lanes in GROUPS]
    return min(grouped, key=lambda c: cost(op, c, payoff)) if grouped else None


def cost(op: GenericOp, plan_: Plan, payoff: float = PAYOFF) -> float:
    """Instructions per MAC of the reduction loops under `plan_` (module docstring)."""
    bounds = op.get_static_loop_ranges()
    lanes = bounds[plan_.vector_dim] * (bounds[plan_.row_dim] if plan_.row_dim is not None else 1)
    strided = {i: STRIDED_LOAD * gathered(op, i, plan_.vector_dim) for i in plan_.vector_inputs}
    if plan_.both_vectors:
        shared = VECTOR_LOAD + strided[plan_.scalar_input]
        per_row = LOAD + strided[plan_.vector_input] + 1
    else:
        shared, per_row = LOAD + strided[plan_.vector_input], PER_ROW
    steps = prod(bounds[d] for d in plan_.reductions)
    unrolled = prod(unroll_factors(op, plan_, payoff).values())
    step = shared + LOOP / unrolled + plan_.rows * per_row
    strip = steps * step + STRIP + plan_.rows * ACCUMULATOR
    return sum(strips(lanes, plan_.lanes, vlen) for vlen in MODELLED_VLENS) * strip / (
        len(MODELLED_VLENS) * steps * plan_.rows * lanes)


def strips(total: int, lanes: int, vlen: int) -> int:
    """Strips of `lanes` lanes per vscale covering `total` lanes at `vlen` bits (vscale = VLEN / 64)."""
    return -(-total // (lanes * vlen // 64))


def registers(lanes: int, bits: int) -> int:
    """Vector registers holding `lanes` x vscale elements of `bits` (at least one: LMUL 1/2 .. 1/8 take one)."""
    return max(1, lanes * bits // 64)


def per_row_inputs(plan_: Plan) -> tuple[int, ...]:
    """The inputs loaded once a row of the block (`blocked_rows`): the scalar input, or where both
    inputs are vectors and rows share the other's load, the one using the blocked dim (a depthwise
    layer's image, the rows sharing its weights)."""
    if not plan_.both_vectors:
        return (plan_.scalar_input,)
    return () if plan_.blocked is None else (plan_.vector_input,)


def operand_registers(op: GenericOp, index: int, lanes: int) -> int:
    """Registers of input `index` loaded as `lanes` lanes per vscale and widened to 16 bits
    (`vsext.vf2`, then `vwmacc` makes the 32-bit products) where narrower."""
    bits = op.inputs[index].type.element_type.bitwidth
    return registers(lanes, bits) + (registers(lanes, 16) if bits < 16 else 0)


def live_registers(op: GenericOp, plan_: Plan, lanes: int, rows: int) -> int:
    """The vector registers the reduction loop of `plan_` holds with `lanes` lanes per vscale and `rows`
    rows: v0 (the mask), the accumulators, and IN_FLIGHT vector operands loaded and widened
    (`operand_registers`): LLVM orders a step's loads and multiply-adds so that no more are live,
    whether the rows share them or not (a depthwise layer's two rows and their shared weights)."""
    accumulator = op.outputs[0].type.element_type.bitwidth
    operands = max(operand_registers(op, i, lanes) for i in plan_.vector_inputs)
    return 1 + rows * registers(lanes, accumulator) + IN_FLIGHT * operands


def blocked_rows(op: GenericOp, plan_: Plan, lanes: int) -> dict:
    """`blocked` and `rows` of `plan_` at `lanes` lanes per vscale: the outer dim that the input loaded
    once a row uses and the shared one does not (the scalar input and the vector input; where both
    are vectors, the image and the weights), with the most rows sharing one load, R the largest
    divisor of its bound that fits the registers (`live_registers`, at most MAX_ROWS); ties keep the
    last dim. None and 1 when no dim has R > 1."""
    fitting = [r for r in range(1, MAX_ROWS + 1) if live_registers(op, plan_, lanes, r) <= REGISTERS]
    limit = max(fitting, default=1)
    maps = [m.data for m in op.indexing_maps.data]
    bounds = op.get_static_loop_ranges()
    own, shared = ((plan_.vector_input, plan_.scalar_input) if plan_.both_vectors
                   else (plan_.scalar_input, plan_.vector_input))
    best = {"blocked": None, "rows": 1}
    for d in reversed(plan_.outer):
        if any(uses(e, d) for e in maps[own].results) and not any(uses(e, d) for e in maps[shared].results):
            rows = max(r for r in range(1, limit + 1) if bounds[d] % r == 0)
            if rows > best["rows"]:
                best = {"blocked": d, "rows": rows}
    return best


def candidate(op: GenericOp, position: int) -> Plan | None:
    """The plan with d_v the output's dim at `position`, or None when it does not fit: a parallel dim
    only that output index uses, with a constant stride in each input using it, held last there or
    in a constant (re-laid out); where both inputs use it (depthwise), anywhere (gathered at its
    stride)."""
    iterators = [i.data for i in op.iterator_types.data]
    maps = [m.data for m in op.indexing_maps.data]
    out_map = maps[-1]
    expr = out_map.results[position]
    if not isinstance(expr, AffineDimExpr) or iterators[expr.position] != IteratorType.PARALLEL:
        return None
    dim = expr.position
    if any(uses(e, dim) for k, e in enumerate(out_map.results) if k != position):
        return None
    using = [i for i in range(2) if any(uses(e, dim) for e in maps[i].results)]
    if not using or not all(loadable(op, i, dim) for i in using):
        return None
    vector_input = using[0]
    last = position == len(out_map.results) - 1
    row = mergeable_row(op, dim, vector_input) if last and len(using) == 1 else None
    outer = [d for d, kind in enumerate(iterators) if kind == IteratorType.PARALLEL and d not in (dim, row)]
    reductions = [d for d, kind in enumerate(iterators) if kind == IteratorType.REDUCTION]
    stride = prod(op.outputs[0].type.get_shape()[position + 1 :])
    return Plan(dim, vector_input, 1 - vector_input, outer, reductions, row, stride, len(using) == 2)


def loadable(op: GenericOp, index: int, dim: int) -> bool:
    """Input `index` can be loaded as lanes along `dim`: one index uses it, with a constant stride, the
    last one, a plain dim of a constant (re-laid out) or any one of a non-constant input (gathered at
    the flat index's stride, `gathered`)."""
    results = op.indexing_maps.data[index].data.results
    holders = [k for k, e in enumerate(results) if uses(e, dim)]
    if len(holders) != 1 or coefficient(results[holders[0]], dim, len(op.get_static_loop_ranges())) is None:
        return False
    constant = constant_global(op.inputs[index]) is not None
    return holders[0] == len(results) - 1 or not constant or isinstance(results[holders[0]], AffineDimExpr)


def gathered(op: GenericOp, index: int, dim: int) -> bool:
    """Vector input `index` is loaded at a stride other than 1 along `dim` (a strided load): a
    non-constant input that does not hold `dim` last with coefficient 1."""
    if constant_global(op.inputs[index]) is not None:
        return False
    results = op.indexing_maps.data[index].data.results
    return not (uses(results[-1], dim) and linear_unit(results[-1], dim, len(op.get_static_loop_ranges())))


def mergeable_row(op: GenericOp, dim: int, vector_input: int) -> int | None:
    """The output's second-last dim r when (r, d_v) can be one contiguous strip dim: the output's and the
    vector input's last two indices are r and d_v (plus reduction dims of bound 1), their last extent is
    d_v's bound, and nothing else uses r."""
    maps = [m.data for m in op.indexing_maps.data]
    iterators = [i.data for i in op.iterator_types.data]
    bounds = op.get_static_loop_ranges()
    out, vector_results = maps[-1].results, maps[vector_input].results
    if len(out) < 2 or len(vector_results) < 2 or not isinstance(out[-2], AffineDimExpr):
        return None
    row = out[-2].position
    if iterators[row] != IteratorType.PARALLEL:
        return None
    unit = {d for d, (bound, kind) in enumerate(zip(bounds, iterators)) if bound == 1 and kind == IteratorType.REDUCTION}

    def plain(expr: AffineExpr, d: int) -> bool:
        """`expr` is d + (dims of bound 1), which is d inside the loops."""
        return (set(expr.used_dims()) <= {d} | unit and linear_unit(expr, d, len(bounds))
                and expr.eval([0] * len(bounds), []) == 0)

    others = [*out[:-2], *vector_results[:-2], *maps[1 - vector_input].results]
    extents = [op.outputs[0].type.get_shape()[-1], op.inputs[vector_input].type.get_shape()[-1]]
    if (plain(vector_results[-2], row) and plain(vector_results[-1], dim) and extents == [bounds[dim]] * 2
            and not any(uses(e, row) for e in others)):
        return row
    return None


def factors_within(bounds: list[int], reductions: list[int], budget: int) -> dict[int, int]:
    """Each reduction dim's unroll factor for at most `budget` steps an iteration: the innermost ones
    whole (factor = bound, no loop) while their steps together stay within it, the next one by its
    largest divisor that keeps them within it (a loop stepping by it), the others 1."""
    factors = dict.fromkeys(reductions, 1)
    steps = 1
    for d in reversed(reductions):
        if steps * bounds[d] > budget:
            factors[d] = max(f for f in range(1, budget // steps + 1) if bounds[d] % f == 0)
            break
        factors[d] = bounds[d]
        steps *= bounds[d]
    return factors


def loop_iterations(bounds: list[int], reductions: list[int], factors: dict[int, int]) -> int:
    """Iterations one strip runs of the reduction loops under `factors`: a loop for each dim not
    unrolled whole, iterating bound / factor times an iteration of the loops around it."""
    total, enclosing = 0, 1
    for d in reductions:
        if factors[d] < bounds[d]:
            enclosing *= bounds[d] // factors[d]
            total += enclosing
    return total


def unroll_factors(op: GenericOp, plan_: Plan, payoff: float = PAYOFF) -> dict[int, int]:
    """The reduction dims' unroll factors (`factors_within`) of the budget B in 1 .. UNROLL
    (UNROLL_VECTORS where both inputs are vectors) that minimizes

        strips * LOOP * loop_iterations(B) + payoff * 4 * (B * step + LOOP * loops(B))

    the reduction loops' executed instructions over the nest's strips (outer points / R times
    ceil(N / L)) plus `payoff` instructions for each byte of the unrolled code (a step's code: its
    vector loads, R rows' scalar loads and multiply-adds): a layer unrolls only as far as the loop
    instructions it saves pay for the bytes it adds (the MLPerf Tiny autoencoder's 640 -> 128 layer by
    8, its 128 -> 128 layers by 4, its 128 -> 8 layer by 2, its 8 -> 128 layer not at all; a 3 x 3
    kernel's 9 taps whole). Ties keep the smaller code."""
    bounds = op.get_static_loop_ranges()
    lanes = bounds[plan_.vector_dim] * (bounds[plan_.row_dim] if plan_.row_dim is not None else 1)
    points = prod(bounds[d] for d in plan_.outer) // plan_.rows
    executed = points * strips(lanes, plan_.lanes, MODELLED_VLENS[0])
    per_row = LOAD + 1 if plan_.both_vectors else PER_ROW
    step = (VECTOR_LOAD if plan_.both_vectors else LOAD) + plan_.rows * per_row
    limit = UNROLL_VECTORS if plan_.both_vectors else UNROLL

    def instructions(factors: dict[int, int]) -> float:
        loops = sum(factors[d] < bounds[d] for d in plan_.reductions)
        code = prod(factors.values()) * step + LOOP * loops
        return executed * LOOP * loop_iterations(bounds, plan_.reductions, factors) + payoff * 4 * code

    return min((factors_within(bounds, plan_.reductions, budget) for budget in range(1, limit + 1)), key=instructions)
