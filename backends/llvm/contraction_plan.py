"""Whether and how a reduction `linalg.generic` on memrefs takes the outer-product form on RVV
(`vector_contraction.py`): which output dimension becomes the vector lanes (d_v), which input is the
broadcast scalar and which the vector, which dimension is merged into the strip, which rows share a load.

d_v is chosen per generic from a cost model of the executed instructions per MAC, among the output's
parallel dims that one input uses (a convolution's output pixels, or its output channels where images
are narrow: DS-CNN's 5-pixel rows). For N lanes along d_v (times the merged rows), L = STRIP_LANES
lanes a strip (VLEN 128, the V minimum) and R rows sharing a vector load (`blocked_dim`):

    cost = ceil(N / L) * (FIXED + R * PER_ROW) / (R * N)

one reduction step of one strip costs FIXED instructions (the vector load, its widening, two
`vsetvli`, the loop's counter, pointer and branch) and PER_ROW a row (the scalar load, `vwmacc`), and
serves R * N / ceil(N / L) MACs; where both inputs use d_v (depthwise: its own schedule, both loaded
as vectors, R = 1) the second vector load and its widening add VECTOR_LOAD, and each vector input
loaded at a stride (`gathered`: a non-constant input that does not hold d_v last, such as an average
pool's image vectorized over its channels) adds GATHER: one instruction, but most cores move a strided
load's lanes one by one, so a strided plan wins only where the contiguous ones waste most of their
lanes. Ties keep the output's last dim (contiguous stores).
"""

from dataclasses import dataclass
from math import prod

from xdsl.dialects import arith
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir.affine import AffineDimExpr, AffineExpr

from bitfold.backends.kernel.bufferize import constant_global

LANES = 16
"""lanes of one vector per vscale (vscale = VLEN / 64 on RVV): 16 x i32 is a group of 8 registers"""
STRIP_LANES = LANES * 128 // 64
"""the lanes of one strip at VLEN 128, the width the cost model assumes"""
FIXED = 7
PER_ROW = 2
VECTOR_LOAD = 2
"""the cost model's instructions of one reduction step: per strip, and per row (module docstring)"""
GATHER = 4
"""the cost model's extra instructions for a strided vector load (module docstring)"""
ROWS = 2
"""neighbouring output rows computed together: one vector load serves ROWS accumulators"""
UNROLL = 9
"""the most reduction steps one iteration of the innermost reduction loop holds (`unroll_factors`)"""
UNROLL_VECTORS = 3
"""the same where both inputs are vectors (depthwise: a kernel row; each step holds two loaded and
widened vectors, and a whole 3x3 kernel spills scalar registers on RV32)"""
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
    convolution over its channels: `vwmacc.vv`, no rows sharing a load)"""

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


def plan(op: GenericOp) -> Plan | None:
    """The outer-product plan for `op` of the lowest cost (module docstring), or None when none fits."""
    if len(op.inputs) != 2 or len(op.outputs) != 1 or op.res:
        return None
    iterators = [i.data for i in op.iterator_types.data]
    if IteratorType.REDUCTION not in iterators:
        return None
    if not all(isinstance(o, ELEMENTWISE) for o in list(op.body.block.ops)[:-1]):
        return None
    out_map = op.indexing_maps.data[-1].data
    candidates = [candidate(op, position) for position in reversed(range(len(out_map.results)))]
    fitting = [c for c in candidates if c is not None]
    return min(fitting, key=lambda c: cost(op, c)) if fitting else None


def cost(op: GenericOp, plan_: Plan) -> float:
    """Instructions per MAC of the reduction loops under `plan_` (module docstring)."""
    bounds = op.get_static_loop_ranges()
    lanes = bounds[plan_.vector_dim] * (bounds[plan_.row_dim] if plan_.row_dim is not None else 1)
    rows = ROWS if blocked_dim(op, plan_) is not None else 1
    second = VECTOR_LOAD if plan_.both_vectors else 0
    strided = GATHER * sum(gathered(op, i, plan_.vector_dim) for i in plan_.vector_inputs)
    return -(-lanes // STRIP_LANES) * (FIXED + second + strided + rows * PER_ROW) / (rows * lanes)


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


def blocked_dim(op: GenericOp, plan_: Plan) -> int | None:
    """The outer dimension whose ROWS neighbouring points share one vector load: the last one the
    scalar input uses and the vector input does not, of a bound divisible by ROWS (none when both are
    vectors)."""
    if plan_.both_vectors:
        return None
    maps = [m.data for m in op.indexing_maps.data]
    bounds = op.get_static_loop_ranges()
    for d in reversed(plan_.outer):
        if (bounds[d] % ROWS == 0 and any(uses(e, d) for e in maps[plan_.scalar_input].results)
                and not any(uses(e, d) for e in maps[plan_.vector_input].results)):
            return d
    return None


def unroll_factors(bounds: list[int], plan_: Plan) -> dict[int, int]:
    """Each reduction dim's unroll factor: the innermost ones whole (factor = bound, no loop) while
    their steps together stay within the budget (UNROLL, UNROLL_VECTORS where both inputs are
    vectors), the next one by its largest divisor that keeps them within it (a loop stepping by
    it), the others 1."""
    budget = UNROLL_VECTORS if plan_.both_vectors else UNROLL
    factors = dict.fromkeys(plan_.reductions, 1)
    steps = 1
    for d in reversed(plan_.reductions):
        if steps * bounds[d] > budget:
            factors[d] = max(f for f in range(1, budget // steps + 1) if bounds[d] % f == 0)
            break
        factors[d] = bounds[d]
        steps *= bounds[d]
    return factors
