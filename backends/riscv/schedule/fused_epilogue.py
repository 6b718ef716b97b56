"""Fused epilogues: a contraction whose accumulator buffer B is only filled by a broadcast of its
bias before it and only read by one elementwise generic E after it (the requantization) becomes
one register-tiled nest (`register_tiled_loops.py`) without B:

    fill:        B[i] = bias[f(i)]                       (linalg.generic, ins: bias)
    contraction: B[i] += sum_r body(x, w)                 (reduction dims r)
    epilogue:    O[i] = E(B[i], t_1[g_1(i)], ...)        (elementwise; requantization tables t_k)

is emitted as

    acc[t] = bias[f(i_t)]                     for each tile point t: the bias starts in the registers
    ... the contraction's reduction loops ...
    O[i_t] = E(acc[t], t_k[g_k(i_t)] ...)     the epilogue on the register tile, then one store

so no i32 buffer is filled, stored and read back. In the nest's terms the fused generic G has the
contraction's iteration space and body, the inputs x, w, bias (map f . out) and t_k (map g_k . out),
and the output O (E's output map . out); `Fusion` holds which inputs are the bias and the tables and
E's body, which the nest applies to each accumulator after the reduction (tables loaded there, never
held through the inner loops). B stays in the workspace plan (bufferization came first) but is no
longer touched. Where E is not fused (`worth_fusing`), the bias alone is: G's accumulators start
as the bias and are stored to B, which E reads as before (no fill nest, no first read of B).
"""

from collections.abc import Container
from dataclasses import dataclass
from math import prod

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import AffineMapAttr, IntegerType, MemRefType, ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.backends.kernel.bufferize import element_bytes
from bitfold.backends.riscv.schedule.loop_nest_plan import linear_form

BETWEEN = (memref.GetGlobalOp, memref.ViewOp, arith.ConstantOp)
"""Ops that may sit between the fill, the contraction and the epilogue (they touch no buffer; a
view of the workspace names the epilogue's output, so the fused generic goes where the epilogue was)."""


@dataclass(frozen=True)
class Fusion:
    """A fused generic's epilogue: G's input `bias` initializes the accumulators, E's body (with
    its argument 0 the accumulator, argument k its input k) maps them to the output, reading
    G's inputs `tables[k - 1]`."""

    bias: int
    tables: tuple[int, ...]
    epilogue: Region | None
    """E's body (E itself is erased); None where B is the output itself (the bias alone is fused)."""
    nests: int = 1
    """the elementwise generics E stands for (`compose_epilogues`)"""


def neighbour(op: Operation, forward: bool) -> linalg.GenericOp | None:
    """The generic next to `op` (after or before it), skipping `BETWEEN` ops."""
    other = op.next_op if forward else op.prev_op
    while isinstance(other, BETWEEN):
        other = other.next_op if forward else other.prev_op
    return other if isinstance(other, linalg.GenericOp) else None


def _parallel(op: linalg.GenericOp) -> bool:
    return all(it.data == linalg.IteratorType.PARALLEL for it in op.iterator_types.data)


def _identity(op: linalg.GenericOp, operand: int) -> bool:
    affine_map = op.indexing_maps.data[operand].data
    return affine_map == AffineMap.identity(affine_map.num_dims)


def _bias_fill(fill: linalg.GenericOp | None, buffer: SSAValue) -> bool:
    """`buffer[i] = bias[f(i)]`: one input, the body yields it, the output map the identity."""
    return (
        fill is not None and _parallel(fill) and len(fill.inputs) == 1 and list(fill.outputs) == [buffer]
        and _identity(fill, 1) and fill.body.block.last_op.operands[0] is fill.body.block.args[0]
    )


def _whole_byte_integer(element) -> bool:
    """An integer of 8 bits or more: not a packed sub-byte table, not a float island's f32."""
    return isinstance(element, IntegerType) and element.width.data >= 8


def _epilogue(epilogue: linalg.GenericOp | None, buffer: SSAValue) -> bool:
    """An elementwise generic reading `buffer` first, at its own index, into an output of B's shape,
    or into the interior of a larger one through an offset map (a padded buffer, `padded_outputs.py`)."""
    return (
        epilogue is not None and _parallel(epilogue) and len(epilogue.outputs) == 1 and len(epilogue.inputs) >= 1
        and epilogue.inputs[0] is buffer and buffer not in epilogue.inputs[1:] and _identity(epilogue, 0)
        and epilogue.body.block.args[0].uses.get_length() > 0
        and (_identity(epilogue, len(epilogue.inputs))
             and epilogue.outputs[0].type.get_shape() == buffer.type.get_shape()
             or _offset(epilogue.indexing_maps.data[-1].data))
        and all(_whole_byte_integer(x.type.get_element_type()) for x in epilogue.inputs)
        and all(op.name.startswith("arith.") and not op.regions
                for op in epilogue.body.block.ops if not isinstance(op, linalg.YieldOp))
    )


def _offset(affine_map: AffineMap) -> bool:
    """Each result one dimension, in order, plus a constant (`d floordiv 1` is d): an element's
    place in a padded buffer."""
    forms = [linear_form(r, affine_map.num_dims) for r in affine_map.results]
    return len(forms) == affine_map.num_dims and all(
        form is not None and form[0] == [int(d == k) for d in range(affine_map.num_dims)]
        for k, form in enumerate(forms))


def _covers(contraction: linalg.GenericOp, buffer: SSAValue) -> bool:
    """Whether the contraction writes every element of `buffer`: its output map is distinct plain
    dimensions whose bounds are the buffer's shape (what it does not write would keep the bias)."""
    out_map = contraction.indexing_maps.data[len(contraction.inputs)].data
    bounds = contraction.get_static_loop_ranges()
    dims = [r.position for r in out_map.results if isinstance(r, AffineDimExpr)]
    return (
        len(dims) == len(out_map.results) == len(set(dims))
        and [bounds[d] for d in dims] == list(buffer.type.get_shape())
    )


def epilogue_operations(body: Block | None) -> int:
    """Instructions one epilogue copy costs, roughly: the ops of its body but constants and the yield."""
    if body is None:
        return 0
    return sum(1 for op in body.ops if not isinstance(op, linalg.YieldOp | arith.ConstantOp))


SEPARATE_NEST_UNROLL = 4
"""Copies of a short elementwise body in its own nest (`loop_nest_plan.ELEMENTWISE_UNROLL`)."""

SHORT_REDUCTION = 16
"""Reduction points per output up to which an epilogue is fused whatever the tile: a separate
epilogue nest adds about 5 instructions per output (the i32 store, its reload, its loop's bumps
and branch), over 0.3 per MAC on a depthwise 3 x 3 layer (9 MACs an output)."""


CHEAP_EPILOGUE = 4
"""Operations of an epilogue (`epilogue_operations`) up to which twice `SEPARATE_NEST_UNROLL` copies
are no larger than its own nest: 8 x (4 + its store) = 40 against 4 x (4 + the accumulator's load
+ its store) + the loop's 6 + the contraction's 8 accumulator stores = 38, where the fused copies
also lose the extensions that fold into loads (a sign threshold: `lh`, `mul`, `slt`, `sb`)."""


def fused_tile_limit(epilogue: int, nests: int = 1) -> int:
    """The most tile points a fused epilogue of `epilogue` operations standing for `nests`
    elementwise nests is copied to: as often as its own nests unroll theirs, twice that for a
    cheap one (`CHEAP_EPILOGUE`)."""
    return SEPARATE_NEST_UNROLL * nests * (2 if epilogue <= CHEAP_EPILOGUE else 1)


def worth_fusing(tile_points: int, epilogue: int, reduction_points: int, nests: int = 1) -> bool:
    """Whether to fuse: the bias alone always (a whole nest less); an epilogue where it is copied
    fewer times (once per tile point) than its own nest unrolls it, or a cheap one no more than
    `fused_tile_limit` (the code no larger), or where the reduction per output is short enough
    (`SHORT_REDUCTION` for each of the epilogue's `nests`, `compose_epilogues`) for the separate
    nests' per-output overhead to be a large share of the work (`.text` grows by the copies)."""
    return (
        epilogue == 0 or tile_points < SEPARATE_NEST_UNROLL
        or (epilogue <= CHEAP_EPILOGUE and tile_points <= fused_tile_limit(epilogue))
        or reduction_points <= SHORT_REDUCTION * nests
    )


def reduction_points(op: linalg.GenericOp) -> int:
    """Points of the reduction dimensions: the MACs of one output of a contraction."""
    kinds = [it.data for it in op.iterator_types.data]
    bounds = op.get_static_loop_ranges()
    return prod(int(b) for b, k in zip(bounds, kinds, strict=True) if k == linalg.IteratorType.REDUCTION)


def _byte_range(buffer: SSAValue) -> tuple[SSAValue, int, int]:
    """(the memory, first byte, end) a buffer occupies: a view of the workspace at a constant
    offset is that range of the workspace; any other buffer is all of itself."""
    view = buffer.owner
    nbytes = element_bytes(buffer.type.get_element_type()) * prod(buffer.type.get_shape())
    if isinstance(view, memref.ViewOp) and isinstance(view.byte_shift.owner, arith.ConstantOp):
        offset = view.byte_shift.owner.value.value.data
        return view.source, offset, offset + max(nbytes, 1)
    return buffer, 0, max(nbytes, 1)


def overlap(a: SSAValue, b: SSAValue) -> bool:
    (memory_a, start_a, end_a), (memory_b, start_b, end_b) = _byte_range(a), _byte_range(b)
    return memory_a is memory_b and start_a < end_b and start_b < end_a


def _after(op: Operation, other: Operation) -> bool:
    """Whether `other` follows `op` in `op`'s block."""
    return other.parent_block() is op.parent_block() and op.is_before_in_block(other)


def _erase_dead_operations(block: Block) -> None:
    """Body operations (pure arith) whose results nothing reads, erased last to first."""
    for op in reversed(list(block.ops)):
        if not isinstance(op, linalg.YieldOp) and all(not r.uses for r in op.results):
            Rewriter.erase_op(op)


def compose_epilogues(first: linalg.GenericOp, buffer: SSAValue) -> tuple[linalg.GenericOp, int]:
    """The epilogue reading `buffer` (`first`, an `_epilogue`) and its chain: while the next
    generic E2 is an `_epilogue` of E1's output C, C read by E1 and E2 alone, and E2's output
    overlaps none of E1's inputs (it is written while they are read), E1 and E2 become one
    generic in their place (E1's inputs, then E2's but C; E2's output):

        C[i] = E1(B[i], t[i])        O[i] = E2(C[i], u[i])   ->   O[i] = E2(E1(B[i], t[i]), u[i])

    (the correction of a binary convolution's popcount, then its threshold). Returns the last
    epilogue and the number of generics it stands for; the body keeps no dead operations."""
    epilogue, nests = first, 1
    while True:
        middle = epilogue.outputs[0]
        second = neighbour(epilogue, True)
        if not (_epilogue(second, middle) and {u.operation for u in middle.uses} == {epilogue, second}):
            return epilogue, nests
        inputs = [*epilogue.inputs, *second.inputs[1:]]
        if epilogue.body.block.args[-1].uses or any(overlap(second.outputs[0], x) for x in inputs):
            return epilogue, nests
        if read_later(middle, second):
            return epilogue, nests  # C's bytes read again later (another view of them): C must be written
        epilogue, nests = _composed(epilogue, second), nests + 1


def read_later(buffer: SSAValue, last: Operation) -> bool:
    """Whether the bytes of `buffer` may be read after `last` (in its block) before a generic
    overwrites all of them: a later generic reading an overlapping buffer (another view of the same
    workspace bytes: an LSTM's cell state read by the next time step), any other op touching one,
    or `buffer` not a view of the workspace (a function's argument, read by the caller)."""
    if not isinstance(buffer.owner, memref.ViewOp):
        return True
    op = last.next_op
    while op is not None:
        if not isinstance(op, BETWEEN):
            touched = [v for v in op.operands if isinstance(v.type, MemRefType) and overlap(v, buffer)]
            if isinstance(op, linalg.GenericOp):
                arguments = dict(zip(op.operands, op.body.block.args))
                if any(v in op.inputs or arguments[v].uses for v in touched):
                    return True  # read as an input, or an output whose old value the body reads
                if any(_covers_bytes(v, buffer) for v in touched):
                    return False
            elif touched or op.regions:
                return True
        op = op.next_op
    return False


def _covers_bytes(a: SSAValue, b: SSAValue) -> bool:
    """Whether `a` occupies every byte of `b` (`_byte_range`)."""
    (memory_a, start_a, end_a), (memory_b, start_b, end_b) = _byte_range(a), _byte_range(b)
    return memory_a is memory_b and start_a <= start_b and end_b <= end_a


def _composed(first: linalg.GenericOp, second: linalg.GenericOp) -> linalg.GenericOp:
    """The one generic of `compose_epilogues` in place of `first` and `second` (both erased)."""
    n_first = len(first.inputs)
    body = Block(arg_types=[*(a.type for a in first.body.block.args[:n_first]),
                            *(a.type for a in second.body.block.args[1:])])
    values = dict(zip(first.body.block.args[:n_first], body.args[:n_first]))
    for op in first.body.block.ops:
        if isinstance(op, linalg.YieldOp):
            values[second.body.block.args[0]] = values.get(op.operands[0], op.operands[0])
            break
        body.add_op(clone := op.clone(value_mapper=values))
        values.update(zip(op.results, clone.results))
    values.update(zip(second.body.block.args[1:], body.args[n_first:]))
    for op in second.body.block.ops:
        body.add_op(clone := op.clone(value_mapper=values))
        values.update(zip(op.results, clone.results))
    _erase_dead_operations(body)
    maps = [*first.indexing_maps.data[:n_first], *second.indexing_maps.data[1:]]
    composed = linalg.GenericOp(
        [*first.inputs, *second.inputs[1:]], [second.outputs[0]], Region(body), maps, second.iterator_types,
    )
    composed.attributes.update(second.attributes)
    Rewriter.insert_op(composed, InsertPoint.before(second))
    for op in (first, second):
        op.detach()
        op.erase()
    return composed


def fuse(contraction: linalg.GenericOp, plannable, tile_points, separate=None,
         fused_so_far: Container = ()) -> tuple[linalg.GenericOp, Fusion] | None:
    """G and its Fusion in place of the fill, the contraction and the epilogue (module docstring),
    where the contraction has one output B used by those three only and each of the three is a
    nest on its own (`plannable`: linear maps, static memrefs). Where the epilogue is not worth
    fusing (`worth_fusing` on `tile_points(G, fusion)`, G's register tile with E's body fused), writes over an
    input (unless `separate(G, B, fused generics)` plans the workspace again with G's output apart
    from them: `workspace_replan.separate_epilogue`), or B has other readers after the contraction
    (RV64's two lane splits of a packed contraction), the bias alone is fused: G writes B, its
    readers stay. Else None, IR untouched."""
    if _parallel(contraction) or len(contraction.outputs) != 1 or contraction.res:
        return None
    buffer = contraction.outputs[0]
    if not _covers(contraction, buffer):
        return None
    fill, epilogue = neighbour(contraction, False), neighbour(contraction, True)
    if not _bias_fill(fill, buffer):
        return None
    users = {use.operation for use in buffer.uses}
    nests = 1
    if _epilogue(epilogue, buffer) and users == {fill, contraction, epilogue}:
        _erase_dead_operations(epilogue.body.block)  # e.g. a read of the output left by its widening
        epilogue, nests = compose_epilogues(epilogue, buffer)
        users = {use.operation for use in buffer.uses}
    if not _epilogue(epilogue, buffer) or users != {fill, contraction, epilogue}:
        epilogue = None  # the bias alone: the accumulators are stored as they are
        if not all(u in (fill, contraction) or _after(contraction, u) for u in users):
            return None  # B read between the fill and the contraction
    if not all(plannable(op) for op in (fill, contraction, epilogue) if op is not None):
        return None
    shares = epilogue is not None and any(overlap(epilogue.outputs[0], x) for x in contraction.inputs)
    if shares and separate is None:
        epilogue = None  # the output in place of an input the later tiles still read (a residual)
    fused, fusion = _fused_generic(contraction, fill, epilogue, nests)
    points = reduction_points(contraction)
    operations = epilogue_operations(epilogue.body.block if epilogue is not None else None)
    if epilogue is not None and (
            not worth_fusing(
                tile_points(fused, Fusion(fusion.bias, fusion.tables, epilogue.body, nests)), operations, points, nests)
            or shares and not separate(fused, buffer, {*fused_so_far, fused})):
        fused.detach()
        fused.erase()
        epilogue = None  # the bias alone: the epilogue stays a nest of its own, reading B
        fused, fusion = _fused_generic(contraction, fill, None)
    if epilogue is not None:
        fusion = Fusion(fusion.bias, fusion.tables, epilogue.detach_region(0), nests)
    for op in (fill, contraction, epilogue):
        if op is not None:
            op.detach()
            op.erase()
    return fused, fusion


def _fused_generic(
    contraction: linalg.GenericOp, fill: linalg.GenericOp, epilogue: linalg.GenericOp | None, nests: int = 1
) -> tuple[linalg.GenericOp, Fusion]:
    """G (module docstring) inserted in place of the contraction (of the epilogue, where given),
    with its discardable attributes,
    and its Fusion without E's body:
    the epilogue's output and tables where `epilogue` is given, else B itself (the bias alone)."""
    buffer = contraction.outputs[0]
    n_inputs = len(contraction.inputs)
    out_map = contraction.indexing_maps.data[n_inputs].data
    maps = [m.data for m in contraction.indexing_maps.data[:n_inputs]]
    maps.append(fill.indexing_maps.data[0].data.compose(out_map))
    tables = [] if epilogue is None else list(epilogue.inputs[1:])
    if epilogue is not None:
        maps += [m.data.compose(out_map) for m in epilogue.indexing_maps.data[1:]]
    else:
        maps.append(out_map)
    block = contraction.body.block
    arg_types = [a.type for a in block.args[:n_inputs]] + [fill.body.block.args[0].type]
    if epilogue is not None:
        arg_types += [a.type for a in epilogue.body.block.args[1 : len(epilogue.inputs)]]
    arg_types.append(block.args[n_inputs].type)
    body = Block(arg_types=arg_types)
    mapping = {old: new for old, new in zip(block.args[:n_inputs], body.args[:n_inputs])}
    mapping[block.args[n_inputs]] = body.args[-1]
    for op in block.ops:
        body.add_op(op.clone(value_mapper=mapping))
    output = buffer if epilogue is None else epilogue.outputs[0]
    fused = linalg.GenericOp(
        [*contraction.inputs, fill.inputs[0], *tables], [output], Region(body),
        [AffineMapAttr(m) for m in maps], contraction.iterator_types,
    )
    fused.attributes.update(contraction.attributes)  # e.g. its nest number
    # where the epilogue was: after the definitions of all its operands (`BETWEEN`)
    Rewriter.insert_op(fused, InsertPoint.before(contraction if epilogue is None else epilogue))
    table_operands = tuple(range(n_inputs + 1, n_inputs + 1 + len(tables)))
    return fused, Fusion(n_inputs, table_operands, None, nests)


def fuse_epilogues(module: ModuleOp, plannable, tile_points, separate=None) -> dict[linalg.GenericOp, Fusion]:
    """Every fusable contraction of the module fused (`fuse`); the fused generics' epilogues."""
    fused = {}
    for op in list(module.walk()):
        if isinstance(op, linalg.GenericOp) and op.parent is not None:
            found = fuse(op, plannable, tile_points, separate, fused)
            if found is not None:
                fused[found[0]] = found[1]
    return fused
