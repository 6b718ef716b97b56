"""The plan of a register-tiled loop nest for one `linalg.generic` on memrefs: which loops
remain, which dimensions are unrolled into the body, and where each operand's elements are.

Every operand access of a generic whose indexing maps are affine sums (`d2 * 2 + d5`, no
`floordiv`/`mod`) is a linear function of the iteration point: the byte address of operand X
at point (i_0, ..., i_{n-1}) is

    base_X + sum_d stride_X[d] * i_d + offset_X       (stride in bytes per unit of dimension d)

The plan works on these strides only:

1. Dimensions of bound 1 disappear; adjacent parallel dimensions d, d+1 merge into one of
   bound B_d * B_{d+1} where every operand has stride_X[d] == B_{d+1} * stride_X[d+1] (a
   contiguous walk: the requantization of an NCHW tensor is one loop over H*W per channel).
2. Register tile: up to two of the last three parallel dimensions are split into
   a loop stepping by T and T copies of the body (T_a * T_b accumulators held in registers).
   Loads shared by tile points are loaded once: in a convolution the T_a output channels share
   an input pixel and the T_b output pixels share a weight.
3. Reduction dimensions of small bound are unrolled completely (3x3 windows); the innermost
   remaining reduction loop is unrolled by U (a divisor of its bound).
   Sliding windows: where the last unrolled reduction dimension r (a kernel's column) moves an
   input along the same elements as a tile dimension does (x[ow + kw]), a load may be shared by
   the points of r too (`NestPlan.window`): a 1 x T row tile of a 3-wide window loads T + 2
   elements per kernel row, not 3T, and holds those T + 2 while the row is consumed.
4. The tile is the one of least estimated instructions per body copy,
       (loads shared within each reduction step + innermost loop overhead
        + copies * body operations) / copies,
   whose register estimate (`CostModel.estimate`: accumulators, one tile row of loaded values and
   a window's shared loads, values held through the innermost loop, body temporaries, extra base
   registers for offsets beyond 2 KiB, constants for pointer advances beyond 2 KiB, the innermost
   loop's bound and pointers, outer loops' pointers spilling does not relieve) fits the budget
   (less `REGISTER_MARGIN`), so that `pipeline.lower_to_riscv` lowers the module once; where it does not,
   inputs the innermost loop does not move are reloaded in it instead of held.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import pairwise, product
from math import prod

from xdsl.dialects.builtin import DenseArrayBase, MemRefType, ShapedType
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr

from bitfold.backends.kernel.bufferize import element_bytes
from bitfold.backends.riscv.lowering.registers import ALLOCATABLE_INTEGER_REGISTERS, fits_immediate

REGISTER_MARGIN = 1
"""Registers the estimate leaves free (`pipeline.TILE_REGISTER_BUDGETS` retries with fewer
where the allocator finds the estimate too low)."""

BODY_TEMPORARIES_MAX = 8

IMMEDIATE_REACH = 2048
"""Bytes a load or store immediate reaches from its base register (12 bits, signed)."""

BASE_STEP = 2 * IMMEDIATE_REACH
"""Where an offset is beyond an immediate, its extra base register is the pointer plus the nearest
multiple of 4 KiB (one `lui` and an `add`): the window [base - 2 KiB, base + 2 KiB) it reaches is
a whole immediate span, and 4 KiB multiples need no `addi`."""


def base_window(offset: int) -> int:
    """The multiple of `BASE_STEP` whose window holds `offset` (0: a plain immediate)."""
    return (offset + IMMEDIATE_REACH) // BASE_STEP

TILE_SIZES = (8, 6, 5, 4, 3, 2, 1)
LONE_DIMENSION_TILE_SIZES = (16, *TILE_SIZES)
"""Tiles of a reduction's only parallel dimension (a matrix-vector product, a fully connected layer
at batch 1): no second tile dimension shares the loads, so more outputs share each activation."""
MAX_BODY_COPIES = 144
"""Tile points x unrolled reduction points: bounds the size of the innermost loop's body
(a 4 x 4 tile of a 3 x 3 convolution)."""

FULL_UNROLL_MAX_BOUND = 7
"""Reduction dimensions up to this bound (kernel windows) are unrolled when the copies allow."""

REDUCTION_UNROLL = (4, 2, 1)
ELEMENTWISE_UNROLL = (4, 2, 1)
ELEMENTWISE_UNROLL_ODD = (5, 3)
"""Unrolling factors for an elementwise loop whose bound 4 does not divide (a padded copy's rows
of 5 or 6 bytes: without them a 5-wide row is copied one byte an iteration, 5 instructions a
byte; unrolled by 5, 2.6)."""
ELEMENTWISE_UNROLL_MAX_BODY = 12
"""Operations of an elementwise body beyond which unrolling by 4 saves about 10% or less (2.25 of
the 3 loop instructions per copy, against the body, its load and its store) and only multiplies
the code. A requantization with its zero point and two-sided clamp is 5 (`branch_bounds.py`)."""


def linear_form(expr: AffineExpr, n_dims: int) -> tuple[list[int], int] | None:
    """`expr` as (coefficient per dimension, constant), or None if it is not a linear sum."""
    if isinstance(expr, AffineDimExpr):
        coefficients = [0] * n_dims
        coefficients[expr.position] = 1
        return coefficients, 0
    if isinstance(expr, AffineConstantExpr):
        return [0] * n_dims, expr.value
    if not isinstance(expr, AffineBinaryOpExpr):
        return None
    lhs, rhs = linear_form(expr.lhs, n_dims), linear_form(expr.rhs, n_dims)
    if lhs is None or rhs is None:
        return None
    if expr.kind == AffineBinaryOpKind.Add:
        return [a + b for a, b in zip(lhs[0], rhs[0])], lhs[1] + rhs[1]
    if expr.kind == AffineBinaryOpKind.Mul:
        for (coefficients, constant), (other, factor) in ((lhs, rhs), (rhs, lhs)):
            if not any(other):
                return [c * factor for c in coefficients], constant * factor
        return None
    if expr.kind == AffineBinaryOpKind.FloorDiv and not any(rhs[0]) and rhs[1] == 1:
        return lhs
    return None


@dataclass(frozen=True)
class Access:
    """Operand X's byte address is `base + sum_d stride[d] * i_d + offset`."""

    stride: tuple[int, ...]
    offset: int
    element_bytes: int

    def varies_with(self, dim: int) -> bool:
        return self.stride[dim] != 0


def access_of(memref_type: MemRefType, affine_map, n_dims: int) -> Access | None:
    """The linear byte access of an operand read or written through `affine_map`."""
    size = element_bytes(memref_type.get_element_type())
    strides = ShapedType.strides_for_shape(memref_type.get_shape())
    stride = [0] * n_dims
    offset = 0
    for result, element_stride in zip(affine_map.results, strides, strict=True):
        form = linear_form(result, n_dims)
        if form is None:
            return None
        coefficients, constant = form
        stride = [s + c * element_stride * size for s, c in zip(stride, coefficients)]
        offset += constant * element_stride * size
    return Access(tuple(stride), offset, size)


@dataclass(frozen=True)
class Dim:
    bound: int
    parallel: bool


@dataclass
class NestPlan:
    """Loops, outer to inner, and unrolled dimensions of one generic (module docstring).

    `loops[k]` is (dimension, step); a loop over dimension d runs bound/step iterations and
    each iteration covers `step` consecutive indices, unrolled in the body. `unrolled` are
    the dimensions with no loop at all (step = bound)."""

    dims: list[Dim]
    accesses: list[Access]
    steps: list[int]
    """per dimension: how many of its indices one body covers (1: a plain loop)."""
    loops: list[int] = field(default_factory=list)
    """dimensions that remain loops, outer to inner"""
    reloaded: frozenset[int] = frozenset()
    """inputs loaded in the innermost loop although it does not move them (not hoisted out of
    it: there are not registers enough to hold them through it)"""
    window: int | None = None
    """a fully unrolled reduction dimension whose points share the innermost loop's loads (a
    sliding window's column: module docstring, step 3); None: loads shared by the tile points of
    one reduction point only"""
    per_copy: float = 0.0
    """the estimated instructions per body copy (`CostModel.estimate`), set by `plan_nest`"""

    def sharing_point(self, point: Sequence[int]) -> tuple[int, ...]:
        """What a load at body copy `point` in the innermost loop is shared by: the copies of the
        same reduction point, or, along `window`, of every point of that dimension."""
        return tuple(0 if d == self.window else p for d, p in enumerate(point) if not self.dims[d].parallel)

    def share_box(self) -> list[int]:
        """The box of body copies one load in the innermost loop may serve (module docstring)."""
        return [self.steps[d] if dim.parallel or d == self.window else 1 for d, dim in enumerate(self.dims)]

    def body_points(self) -> list[tuple[int, ...]]:
        """Offsets (per dimension) of every body copy, reduction points outer, tile points inner."""
        reduction = [range(self.steps[d]) if not self.dims[d].parallel else range(1) for d in range(len(self.dims))]
        parallel = [range(self.steps[d]) if self.dims[d].parallel else range(1) for d in range(len(self.dims))]
        points = []
        for r in product(*reduction):
            for p in product(*parallel):
                points.append(tuple(a + b for a, b in zip(r, p)))
        return points

    def tile_points(self) -> list[tuple[int, ...]]:
        parallel = [range(self.steps[d]) if self.dims[d].parallel else range(1) for d in range(len(self.dims))]
        return list(product(*parallel))


def merge_contiguous(dims: list[Dim], accesses: list[Access]) -> tuple[list[Dim], list[Access]]:
    """Drop dimensions of bound 1 and merge adjacent parallel dimensions walked contiguously
    by every operand (step 1 of the module docstring)."""
    keep = [d for d, dim in enumerate(dims) if dim.bound > 1]
    dims = [dims[d] for d in keep]
    accesses = [Access(tuple(a.stride[d] for d in keep), a.offset, a.element_bytes) for a in accesses]
    d = 0
    while d + 1 < len(dims):
        outer, inner = dims[d], dims[d + 1]
        if outer.parallel and inner.parallel and all(a.stride[d] == inner.bound * a.stride[d + 1] for a in accesses):
            dims[d : d + 2] = [Dim(outer.bound * inner.bound, True)]
            accesses = [
                Access((*a.stride[:d], a.stride[d + 1], *a.stride[d + 2 :]), a.offset, a.element_bytes)
                for a in accesses
            ]
        else:
            d += 1
    return dims, accesses


def _divisors(bound: int, candidates: Sequence[int]) -> list[int]:
    return [t for t in candidates if t <= bound and bound % t == 0]


def offsets_in_box(access: Access, extents: Sequence[int]) -> frozenset[int]:
    """Byte offsets of the operand over the box of points `[0, extents[d])` per dimension."""
    return _offsets_in_box(access, tuple(extents))


@lru_cache(maxsize=1 << 14)
def _offsets_in_box(access: Access, extents: tuple[int, ...]) -> frozenset[int]:
    """`offsets_in_box`, made once per operand and box: the planner asks for the same boxes over
    and over (every candidate tile, unrolling and window of a nest; nests of equal shape)."""
    addresses = {access.offset}
    for stride, extent in zip(access.stride, extents):
        if extent > 1 and stride:
            addresses = {a + stride * i for a in addresses for i in range(extent)}
    return frozenset(addresses)


def distinct_in_box(access: Access, extents: Sequence[int]) -> int:
    return len(offsets_in_box(access, extents))


def extra_bases(access: Access, extents: Sequence[int]) -> int:
    """Registers beyond the operand's pointer that its offsets in the box need: load and store
    immediates reach 2 KiB either way of a base (`base_window`, `register_tiled_loops.NestEmitter.address`)."""
    return len({base_window(o) for o in offsets_in_box(access, extents)}) - 1


@dataclass(frozen=True)
class CostModel:
    """What one body copy costs and how many values it keeps live (module docstring, step 4)."""

    body_operations: int
    n_outputs: int
    n_inputs: int
    shared_pointers: int = 0
    """operands the loops move that share another's pointer (constants in one interleaved panel)"""
    max_tile_points: int | None = None
    """the largest register tile allowed (a fused epilogue is copied once per tile point)"""

    def estimate(self, plan: NestPlan) -> tuple[float, int]:
        """(instructions per body copy, registers live in the innermost loop) of `plan`."""
        tile_box = [plan.steps[d] if dim.parallel else 1 for d, dim in enumerate(plan.dims)]
        share_box = plan.share_box()
        body_box = list(plan.steps)
        copies = prod(body_box)
        sharing_groups = copies // prod(share_box)
        loops = [d for d, dim in enumerate(plan.dims) if plan.steps[d] < dim.bound]
        innermost = loops[-1] if loops else None
        inputs = list(enumerate(plan.accesses[: self.n_inputs]))
        hoisted = [(k, a) for k, a in inputs if innermost is not None and not a.stride[innermost]]
        streamed = [(k, a) for k, a in inputs if (k, a) not in hoisted or k in plan.reloaded]
        # the nest shares a load between the tile points of one reduction point (and along the
        # window): the count is the same in every group, the box translated
        loads = sharing_groups * sum(distinct_in_box(a, share_box) for _, a in streamed)
        # per iteration of the innermost loop: the bound test, the loop variable's step and
        # one bump per other pointer the loop moves
        overhead = 0 if not loops else 1 + sum(1 for a in plan.accesses if a.stride[loops[-1]])
        per_copy = (loads + overhead + copies * self.body_operations) / copies
        # live in the innermost loop: accumulators, the tile row of one input kept while the
        # other streams, values held through the loop, the body's own temporaries, the innermost loop's
        row = held_row(plan, [a for _, a in streamed], share_box)
        held = sum(distinct_in_box(a, body_box) for k, a in hoisted if k not in plan.reloaded)
        temporaries = min(BODY_TEMPORARIES_MAX, 2 + self.body_operations // 8)
        bases = sum(extra_bases(a, body_box) for a in plan.accesses) + len(wide_advances(plan, innermost))
        registers = prod(tile_box) * self.n_outputs + row + held + temporaries + bases + loop_registers(plan, loops)
        registers += outer_pointers_held(plan, loops, self.n_inputs)
        registers -= self.shared_pointers
        return per_copy, registers

    def hoistable(self, plan: NestPlan) -> list[int]:
        """Inputs the innermost loop does not move, most held registers first."""
        loops = [d for d, dim in enumerate(plan.dims) if plan.steps[d] < dim.bound]
        if not loops:
            return []
        inputs = [(k, a) for k, a in enumerate(plan.accesses[: self.n_inputs]) if not a.stride[loops[-1]]]
        return [k for k, a in sorted(inputs, key=lambda ka: -distinct_in_box(ka[1], plan.steps))]


def held_row(plan: NestPlan, streamed: list[Access], share_box: list[int]) -> int:
    """Loaded values held across the tile points of one reduction point, and with a window, the
    loads its points share (`NestPlan.share_box`): held from the column's first point that reads
    them to its last, every one of them (a 2 x 8 tile of a 3-wide window holds 2 x 10 input
    values). The nest visits the tile points in dimension order (`NestPlan.body_points`): with
    two tile dimensions, the loads of the inputs that do not vary with the outer one (one per index
    of the inner one) are held while the outer one steps; with one, the smallest row of the
    streamed inputs whose loads serve several points (an input read once per point, a
    matrix-vector product's weights, is consumed as it is loaded)."""
    tile_box = [plan.steps[d] if dim.parallel else 1 for d, dim in enumerate(plan.dims)]
    windowed = [a for a in streamed if plan.window is not None and shares_window(plan, a)]
    others = [a for a in streamed if a not in windowed]
    held = sum(distinct_in_box(a, share_box) for a in windowed)
    tiled = [d for d, dim in enumerate(plan.dims) if dim.parallel and plan.steps[d] > 1]
    if len(tiled) == 2:
        outer = tiled[0]
        return held + max((distinct_in_box(a, tile_box if windowed else share_box) for a in others
                           if not a.stride[outer]), default=0 if windowed else 1)
    box = tile_box if windowed else share_box
    points = prod(box)
    return held + min((r for r in (distinct_in_box(a, box) for a in others) if 1 < r < points),
                      default=0 if windowed else 1)


def shares_window(plan: NestPlan, access: Access) -> bool:
    """Whether the window's points share loads of the input (`_windows`: fewer distinct elements
    over the window's box than over the tile box times its points)."""
    tile_box = [plan.steps[d] if dim.parallel else 1 for d, dim in enumerate(plan.dims)]
    window = plan.window
    return distinct_in_box(access, plan.share_box()) < distinct_in_box(access, tile_box) * plan.steps[window]


def wide_advances(plan: NestPlan, innermost: int | None) -> set[int]:
    """The innermost loop's pointer advances beyond an immediate (2 KiB or more): each is a
    constant held in a register through the loop (`register_tiled_loops.NestEmitter.advance`)."""
    if innermost is None:
        return set()
    advances = {a.stride[innermost] * plan.steps[innermost] for a in plan.accesses}
    return {amount for amount in advances if not fits_immediate(amount)}


def outer_pointers_held(plan: NestPlan, loops: list[int], n_inputs: int) -> int:
    """Pointers of outer loops held through the innermost loop that spilling the loops' state does
    not relieve: `regalloc/loop_state_spilling.py` spills a loop's pointer around its inner loop
    where only that loop's own body reads it, not where an op two or more levels inside does (the
    pointer an innermost loop starts from, of an input only a loop two levels out moves; a fused
    bias read at the tile's level two levels inside the loop that moves it)."""
    if len(loops) < 2:
        return 0
    innermost = len(loops) - 1
    tile_level = max((k for k, d in enumerate(loops) if plan.dims[d].parallel), default=None)
    held = 0
    for k, access in enumerate(plan.accesses):
        moving = [level for level, d in enumerate(loops[:-1]) if access.stride[d]]
        if not moving:
            continue
        if k < n_inputs:
            # read by the innermost loop's body (reloaded there), by the innermost loop itself as its
            # starting pointer (an op of its parent's body), or by the loads of the loop moving it
            if k in plan.reloaded:
                use = innermost
            else:
                use = innermost - 1 if access.stride[loops[-1]] else moving[-1]
        elif tile_level is not None:
            use = tile_level
        else:
            continue
        chain = [*moving, use]
        held += sum(1 for outer, inner in pairwise(chain) if inner > outer + 1)
    return held


def loop_registers(plan: NestPlan, loops: list[int]) -> int:
    """Registers the loops themselves hold through the innermost body: its bound, one per pointer
    it reads (those it moves and those of the inputs reloaded in it), and its variable unless it
    is one of those pointers (`register_tiled_loops.NestEmitter.emit_loop`). The outer loops'
    variables, bounds and pointers are stored around the innermost loop where registers run out
    (`regalloc/loop_state_spilling.py`: a store and a reload per outer iteration)."""
    if not loops:
        return 0
    innermost = loops[-1]
    moved = sum(1 for a in plan.accesses if a.stride[innermost])
    read = sum(1 for k, a in enumerate(plan.accesses) if a.stride[innermost] or k in plan.reloaded)
    return 1 + read + (0 if moved else 1)


def plan_nest(
    dims: list[Dim], accesses: list[Access], cost: CostModel, registers: int = ALLOCATABLE_INTEGER_REGISTERS
) -> NestPlan:
    """The tiled, unrolled nest of least estimated cost that fits `registers` (module docstring).
    A fresh copy of the plan `_best_plan` made once per distinct nest: the register-tiling pass
    plans a nest up to three times (plannable, fused, emitted), and models repeat layer shapes."""
    plan = _best_plan(tuple(dims), tuple(accesses), cost, registers)
    return replace(plan, dims=list(plan.dims), accesses=list(plan.accesses), steps=list(plan.steps),
                   loops=list(plan.loops))


@lru_cache(maxsize=1 << 12)
def _best_plan(dims: tuple[Dim, ...], accesses: tuple[Access, ...], cost: CostModel, registers: int) -> NestPlan:
    """`plan_nest`'s search; its plan is copied before anyone sees it."""
    dims, accesses = merge_contiguous(list(dims), list(accesses))
    registers -= REGISTER_MARGIN
    n = len(dims)
    parallel = [d for d in range(n) if dims[d].parallel]
    reduction = [d for d in range(n) if not dims[d].parallel]

    base_steps = [1] * n
    small = [d for d in reduction if dims[d].bound <= FULL_UNROLL_MAX_BOUND]
    best: tuple[float, int, NestPlan] | None = None
    for tile in _tile_candidates(dims, parallel, bool(reduction), cost.body_operations):
        if cost.max_tile_points is not None and prod(tile.values()) > cost.max_tile_points:
            continue
        for unroll in _reduction_candidates(dims, reduction, small):
            steps = list(base_steps)
            for d, t in {**tile, **unroll}.items():
                steps[d] = t
            copies = prod(steps)
            if copies > MAX_BODY_COPIES:
                continue
            for window in (None, *_windows(dims, accesses[: cost.n_inputs], steps)):
                plan = NestPlan(dims, accesses, steps, window=window)
                per_copy, needed = cost.estimate(plan)
                for operand in cost.hoistable(plan):
                    if needed <= registers:
                        break
                    plan.reloaded = plan.reloaded | {operand}
                    per_copy, needed = cost.estimate(plan)
                if needed > registers and copies > 1:
                    continue
                key = (per_copy, copies)
                if best is None or key < best[:2]:
                    best = (per_copy, copies, plan)
    assert best is not None  # the all-ones candidate always exists
    per_copy, _, plan = best
    plan.per_copy = per_copy
    plan.loops = [d for d in range(n) if plan.steps[d] < dims[d].bound]
    return plan


def _windows(dims: list[Dim], inputs: list[Access], steps: list[int]) -> list[int]:
    """The last fully unrolled reduction dimension, where an input's elements at its points
    overlap across the tile (a sliding window: fewer distinct elements than points)."""
    unrolled = [d for d, dim in enumerate(dims) if not dim.parallel and steps[d] == dim.bound > 1]
    if not unrolled:
        return []
    window = unrolled[-1]
    tile_box = [steps[d] if dim.parallel else 1 for d, dim in enumerate(dims)]
    share_box = [steps[d] if dim.parallel or d == window else 1 for d, dim in enumerate(dims)]
    overlapping = any(distinct_in_box(a, share_box) < distinct_in_box(a, tile_box) * steps[window] for a in inputs)
    return [window] if overlapping else []


def _tile_candidates(dims: list[Dim], parallel: list[int], reducing: bool, body: int) -> list[dict[int, int]]:
    """Register tiles: for a reduction, up to two of the last three parallel dimensions (a lone one
    up to `LONE_DIMENSION_TILE_SIZES`);
    elementwise, the innermost parallel dimension unrolled where the body is short enough for
    the loop's own instructions to matter."""
    if not parallel:
        return [{}]
    if not reducing:
        d = parallel[-1]
        factors = ELEMENTWISE_UNROLL if body <= ELEMENTWISE_UNROLL_MAX_BODY else (1,)
        if body <= ELEMENTWISE_UNROLL_MAX_BODY and dims[d].bound % ELEMENTWISE_UNROLL[0]:
            factors = ELEMENTWISE_UNROLL_ODD + factors
        return [{d: t} for t in _divisors(dims[d].bound, factors)]
    window = parallel[-3:]
    sizes = LONE_DIMENSION_TILE_SIZES if len(parallel) == 1 else TILE_SIZES
    candidates: list[dict[int, int]] = [{}]
    for i, a in enumerate(window):
        for ta in _divisors(dims[a].bound, sizes):
            candidates.append({a: ta})
            for b in window[i + 1 :]:
                for tb in _divisors(dims[b].bound, TILE_SIZES):
                    candidates.append({a: ta, b: tb})
    return candidates


def _reduction_candidates(dims: list[Dim], reduction: list[int], small: list[int]) -> list[dict[int, int]]:
    """Small reduction dimensions unrolled completely (all, the innermost ones, or none), and
    the innermost remaining reduction loop unrolled by a divisor of its bound."""
    candidates: list[dict[int, int]] = []
    for k in range(len(small) + 1):
        full = {d: dims[d].bound for d in small[len(small) - k :]}
        remaining = [d for d in reduction if d not in full]
        if remaining:
            inner = remaining[-1]
            for u in _divisors(dims[inner].bound, REDUCTION_UNROLL):
                candidates.append({**full, inner: u})
        else:
            candidates.append(full)
    return candidates


LOOP_BOUNDS_ATTRIBUTE = "bitfold.loop_bounds"
"""On a generic whose loop bounds its maps no longer give (`padded_outputs.elide`: a fused
convolution writing a padded buffer through `d2 + 1`, its d2 elsewhere only in `d2 * 2 + d5`): the bounds."""


def loop_bounds(op: linalg.GenericOp) -> tuple[int, ...]:
    """The generic's loop bounds: `LOOP_BOUNDS_ATTRIBUTE` where set, else from its maps and shapes."""
    recorded = op.attributes.get(LOOP_BOUNDS_ATTRIBUTE)
    if isinstance(recorded, DenseArrayBase):
        return tuple(recorded.get_values())
    return tuple(int(b) for b in op.get_static_loop_ranges())


def generic_dims(op: linalg.GenericOp) -> list[Dim]:
    bounds = loop_bounds(op)
    kinds = [it.data for it in op.iterator_types]
    return [Dim(int(b), k == linalg.IteratorType.PARALLEL) for b, k in zip(bounds, kinds, strict=True)]
