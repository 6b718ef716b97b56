"""`bitfold-llvm-vector-contraction`: the schedule of the reductions on RVV, decided by bitfold above LLVM
(LLVM's own vectorizer reduces along k: a horizontal reduction per output, ~39 instructions each).

A reduction `linalg.generic` on memrefs (matmul, convolution, depthwise and pointwise convolution) of two
inputs whose body is arith on their elements and the output element becomes the outer-product form on
scalable vectors (`vector<[L]xi32>`: LMUL L / 2 for i32 lanes at every VLEN, L chosen with d_v by the
cost model of `contraction_plan.py` from the registers R rows of accumulators take):

    for p in the other parallel dims:                       (scf.for; the blocked one stepping by R)
      for j0 in 0 .. N step L * vscale:                     (d_v, an output dim chosen by the cost model of
                                                             `contraction_plan.py`; the last one merged with
                                                             the one before it where both are contiguous)
        mask = lanes j0 .. N - 1
        acc = maskedload out[p, j0 ..]                      (int32 accumulators in vector registers, one
                                                             a row of the R rows; a
                                                             gather at the output's stride along d_v when
                                                             d_v is not its last dim, a scatter to store)
        for r in the reduction dims:                        (scf.for carrying acc)
          s = load scalar_operand[p, r]                     (the input that does not use d_v: broadcast;
                                                             one a row, against one vector load)
          v = maskedload vector_operand[p, r, j0 ..]        (the input that uses d_v, contiguous along it;
                                                             a gather of every s-th element for stride s)
          acc = body(acc, s, v)                             (extsi, muli, addi: LLVM picks vwmacc.vx)
        maskedstore out[p, j0 ..] = acc

A constant vector operand whose axis along d_v is not its last (a matmul's weights, stored N x K) is
re-laid out at compile time with that axis last (k-major), so every vector load is contiguous. Where
both inputs use d_v (a depthwise convolution over its channels) both are loaded as vectors, the
non-constant one gathered at its stride along d_v (`vwmacc.vv`).

Exact: every output element is reduced in the generic's order (the reductions are not reordered, lanes
are independent output elements), and masked-off lanes are neither read nor written. VLEN-agnostic: the
strip length is `L * vscale`, read at run time.
"""

from dataclasses import dataclass
from itertools import product

import numpy as np
from xdsl.context import Context
from xdsl.dialects import affine, arith, func, memref, scf, vector
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    BoolAttr,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    VectorType,
    i1,
)
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

from bitfold.backends.kernel.bufferize import constant_global
from bitfold.backends.llvm.contraction_plan import (
    LANES,
    PAYOFF,
    Plan,
    coefficient,
    per_row_inputs,
    plan,
    unroll_factors,
    uses,
)
from bitfold.backends.llvm.upstream_vector_ops import GatherOp, PoisonOp, ScatterOp, StepOp, VectorScaleOp
from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.onnx.constant import dense_attr


def scalable(element, lanes: int = LANES) -> VectorType:
    """`vector<[lanes] x element>`: lanes x vscale elements."""
    return VectorType(element, [lanes], ArrayAttr([BoolAttr.from_bool(True)]))


def relaid_out(op: GenericOp, index: int, axis: int, rewriter: Rewriter) -> tuple[SSAValue, AffineMap]:
    """A copy of constant input `index` with `axis` moved last (a new global, shared by every
    contraction that re-lays out the same constant the same way), and its map."""
    source = constant_global(op.inputs[index])
    memref_type = source.type
    shape = list(memref_type.get_shape())
    order = [a for a in range(len(shape)) if a != axis] + [axis]
    new_shape = [shape[a] for a in order]
    element = memref_type.element_type
    name = f"{source.sym_name.data}_{''.join(map(str, order))}"
    new_type = MemRefType(element, new_shape)
    if SymbolTable.lookup_symbol(op, name) is None:
        initial = transposed_elements(source.initial_value, element, shape, order)
        new_global = memref.GlobalOp.get(StringAttr(name), new_type, initial, StringAttr("private"), UnitAttr())
        rewriter.insert_op(new_global, InsertPoint.after(source))
    get = memref.GetGlobalOp(name, new_type)
    rewriter.insert_op(get, InsertPoint.before(op))
    old = op.indexing_maps.data[index].data
    return get.memref, AffineMap(old.num_dims, 0, tuple(old.results[a] for a in order))


WHOLE_BYTE_WIDTHS = (8, 16, 32, 64)


def transposed_elements(
    value: DenseIntOrFPElementsAttr, element, shape: list[int], order: list[int]
) -> DenseIntOrFPElementsAttr:
    """`value`'s elements (of `shape`) with their axes in `order`: the stored bytes moved as numpy
    elements where each element is whole bytes of its own (weights of millions of elements in
    milliseconds), else through Python ints (packed or splat storage)."""
    storage = value.data.data
    if isinstance(element, IntegerType) and element.width.data in WHOLE_BYTE_WIDTHS:
        dtype = numpy_dtype(element).newbyteorder("<")
        if len(storage) == dtype.itemsize * int(np.prod(shape)):
            return dense_attr(np.frombuffer(storage, dtype=dtype).reshape(shape).transpose(order), element)
    values = np.array([int(v) for v in value.get_values()], dtype=np.int64)
    values = np.broadcast_to(values, (int(np.prod(shape)),)) if values.size == 1 else values
    transposed = values.reshape(shape).transpose(order).reshape(-1)
    new_type = TensorType(element, [shape[a] for a in order])
    return DenseIntOrFPElementsAttr.from_list(new_type, [int(v) for v in transposed])


class Builder:
    """Appends ops at an insertion point and returns their results."""

    def __init__(self, rewriter: Rewriter, point: InsertPoint):
        self.rewriter, self.point = rewriter, point

    def add(self, op: Operation) -> Operation:
        self.rewriter.insert_op(op, self.point)
        return op

    def index(self, value: int) -> SSAValue:
        return self.add(arith.ConstantOp(IntegerAttr(value, IndexType()))).result

    def indices(self, map_: AffineMap, dims: list[SSAValue]) -> list[SSAValue]:
        return [self.add(affine.ApplyOp(dims, AffineMapAttr(AffineMap(map_.num_dims, 0, (e,))))).result
                for e in map_.results]


def collapsed(value: SSAValue, b: "Builder") -> SSAValue:
    """`value` (an identity-layout memref) with its last two dims merged into one."""
    memref_type = value.type
    shape = list(memref_type.get_shape())
    groups = [[IntegerAttr(i, 64)] for i in range(len(shape) - 2)] + [[IntegerAttr(len(shape) - 2, 64),
                                                                         IntegerAttr(len(shape) - 1, 64)]]
    result_type = MemRefType(memref_type.element_type, [*shape[:-2], shape[-2] * shape[-1]])
    return b.add(memref.CollapseShapeOp(operands=[value], result_types=[result_type],
                                        properties={"reassociation": ArrayAttr([ArrayAttr(g) for g in groups])})).result


def flattened(value: SSAValue, b: "Builder") -> SSAValue:
    """`value` (an identity-layout memref) as one dim."""
    memref_type = value.type
    shape = list(memref_type.get_shape())
    group = ArrayAttr([ArrayAttr([IntegerAttr(i, 64) for i in range(len(shape))])])
    result_type = MemRefType(memref_type.element_type, [int(np.prod(shape))])
    return b.add(memref.CollapseShapeOp(operands=[value], result_types=[result_type],
                                        properties={"reassociation": group})).result


def linearized(map_: AffineMap, shape: list[int]) -> AffineMap:
    """`map_`'s indices into a row-major buffer of `shape` as one flat index."""
    flat = None
    for expr, stride in zip(map_.results, [int(np.prod(shape[k + 1 :])) for k in range(len(shape))], strict=True):
        term = expr * stride
        flat = term if flat is None else flat + term
    return AffineMap(map_.num_dims, 0, (flat,))


def strided_indices(b: "Builder", stride: int, lanes: int = LANES) -> SSAValue:
    """The lanes' element offsets 0, s, 2s, ... as `index`: LLVM's RISC-V gather/scatter lowering
    recognizes `stepvector * s` there and emits strided loads and stores (vlse32, vsse32)."""
    offsets = scalable(IndexType(), lanes)
    stride_lanes = b.add(vector.BroadcastOp(b.index(stride), offsets)).vector
    return b.add(arith.MuliOp(b.add(StepOp(offsets)).result, stride_lanes, offsets)).result


def lane_offsets(b: "Builder", stride: int, lanes: int = LANES) -> SSAValue | None:
    """None for consecutive lanes (`stride` 1), else `strided_indices`: the offsets `lanes_load`
    and `lanes_store` take."""
    return None if stride == 1 else strided_indices(b, stride, lanes)


def lanes_load(memref: SSAValue, indices, offsets: SSAValue | None, mask: SSAValue, unread: SSAValue) -> Operation:
    """The lanes from `indices` on: a masked load of consecutive elements where `offsets` is None,
    else a gather at those element offsets (`strided_indices`); masked-off lanes are `unread`."""
    if offsets is None:
        return vector.MaskedLoadOp(memref, indices, mask, unread)
    return GatherOp(memref, indices, offsets, mask, unread)


def lanes_store(memref: SSAValue, indices, offsets: SSAValue | None, mask: SSAValue, lanes: SSAValue) -> Operation:
    """`lanes` stored from `indices` on, as `lanes_load` reads them; masked-off lanes are not written."""
    if offsets is None:
        return vector.MaskedStoreOp(memref, indices, mask, lanes)
    return ScatterOp(memref, indices, offsets, mask, lanes)


def vectorized_body(op: GenericOp, b: Builder, loaded: dict[int, SSAValue], acc: SSAValue, lanes: int) -> SSAValue:
    """The body on `lanes` lanes per vscale: block args -> (the inputs `loaded`, scalars or vectors, the
    accumulator); scalar values meeting vector ones are broadcast."""
    block = op.body.block
    values: dict[SSAValue, SSAValue] = {**{block.args[i]: v for i, v in loaded.items()}, block.args[2]: acc}

    def broadcast(value: SSAValue) -> SSAValue:
        if isinstance(value.type, VectorType):
            return value
        return b.add(vector.BroadcastOp(value, scalable(value.type, lanes))).vector

    for body_op in list(block.ops)[:-1]:
        operands = [values[o] for o in body_op.operands]
        if isinstance(body_op, arith.ConstantOp):
            values[body_op.result] = b.add(body_op.clone()).result
            continue
        if any(isinstance(o.type, VectorType) for o in operands):
            operands = [broadcast(o) for o in operands]
            result_type = scalable(body_op.results[0].type, lanes)
        else:
            result_type = body_op.results[0].type
        if isinstance(body_op, (arith.ExtSIOp, arith.ExtUIOp)):
            new = type(body_op)(operands[0], result_type)
        else:
            new = type(body_op)(operands[0], operands[1], result_type)
        values[body_op.results[0]] = b.add(new).results[0]
    return broadcast(values[block.last_op.operands[0]])


def for_loop(b: Builder, upper: SSAValue, step: SSAValue, carried: list[SSAValue]) -> tuple[scf.ForOp, Builder]:
    """`scf.for %i = 0 to upper step step iter_args(carried)`; a builder at the start of its body."""
    body = Block(arg_types=[IndexType(), *(c.type for c in carried)])
    loop = b.add(scf.ForOp(b.index(0), upper, step, carried, Region(body)))
    return loop, Builder(b.rewriter, InsertPoint.at_end(body))


@dataclass
class Strip:
    """One strip of lanes inside the outer loops: the values every access of the nest is built from."""

    op: GenericOp
    plan: Plan
    dims: list[SSAValue | None]
    """each dimension's value at the strip's first element (0 for the dims the strip covers when merged)"""
    start: SSAValue
    """the strip's first lane along d_v (or along the merged rows x columns)"""
    mask: SSAValue

    def indices(self, map_: AffineMap, values: list[SSAValue], b: Builder) -> list[SSAValue]:
        """Indices of the strip's first element in the output or the vector input (collapsed when merged)."""
        if self.plan.out_stride != 1 and map_ is self.op.indexing_maps.data[-1].data:
            return b.indices(linearized(map_, list(self.op.outputs[0].type.get_shape())), values)
        if self.plan.row_dim is None:
            return b.indices(map_, values)
        return [*b.indices(AffineMap(map_.num_dims, 0, map_.results[:-2]), values), self.start]

    def row(self, values: list[SSAValue], b: Builder, r: int) -> list[SSAValue]:
        """The dimension values of row r of the plan's block of rows."""
        if self.plan.blocked is None or r == 0:
            return list(values)
        shifted = list(values)
        shifted[self.plan.blocked] = b.add(arith.AddiOp(values[self.plan.blocked], b.index(r))).result
        return shifted


def strip_loop(b: Builder, total_lanes: int, lanes: int = LANES) -> tuple[SSAValue, SSAValue, Builder]:
    """`scf.for %start = 0 to total_lanes step lanes * vscale` and the mask of its lanes start ..
    total_lanes - 1 (the tail masked); a builder inside it."""
    total = b.index(total_lanes)
    step = b.add(arith.MuliOp(b.add(VectorScaleOp(IndexType())).result, b.index(lanes))).result
    strip, b = for_loop(b, total, step, [])
    b.add(scf.YieldOp())
    b.point = InsertPoint.before(strip.body.block.last_op)
    start = strip.body.block.args[0]
    mask = b.add(vector.CreateMaskOp([b.add(arith.SubiOp(total, start)).result], scalable(i1, lanes))).mask_vector
    return start, mask, b


def open_strip(op: GenericOp, plan_: Plan, b: Builder) -> tuple[Strip, Builder]:
    """The outer loops (the blocked one stepping by the plan's rows) and the strip loop (`lanes *
    vscale` lanes, the tail masked); a builder inside the strip loop."""
    bounds = op.get_static_loop_ranges()
    dims: list[SSAValue | None] = [None] * len(bounds)
    for d in plan_.outer:
        loop, b = for_loop(b, b.index(bounds[d]), b.index(plan_.rows if d == plan_.blocked else 1), [])
        dims[d] = loop.body.block.args[0]
        b.add(scf.YieldOp())
        b.point = InsertPoint.before(loop.body.block.last_op)
    merged = plan_.row_dim is not None
    start, mask, b = strip_loop(b, bounds[plan_.vector_dim] * (bounds[plan_.row_dim] if merged else 1), plan_.lanes)
    for d in (*plan_.reductions, *((plan_.row_dim, plan_.vector_dim) if merged else ())):
        dims[d] = b.index(0)
    if not merged:
        dims[plan_.vector_dim] = start
    return Strip(op, plan_, dims, start, mask), b


def reduction_step(strip: Strip, inputs: list[SSAValue], vector_maps: dict[int, AffineMap], lane_offsets: dict,
                   unread: dict[int, SSAValue], dims: list[SSAValue], accumulators: list[SSAValue],
                   b: Builder) -> list[SSAValue]:
    """One reduction step at `dims`: the vector loads the rows share, each row's own loads (its scalar,
    or where both inputs are vectors the one using the blocked dim) and body; the updated accumulators."""
    plan_, op = strip.plan, strip.op
    own = per_row_inputs(plan_)

    def load_vector(i: int, at: list[SSAValue]) -> SSAValue:
        indices = strip.indices(vector_maps[i], at, b)
        return b.add(lanes_load(inputs[i], indices, lane_offsets.get(i), strip.mask, unread[i])).result

    shared = {i: load_vector(i, dims) for i in vector_maps if i not in own}
    updated = []
    for r in range(plan_.rows):
        loaded, at = dict(shared), strip.row(dims, b, r)
        for i in own:
            if i in vector_maps:
                loaded[i] = load_vector(i, at)
            else:
                scalar_indices = b.indices(op.indexing_maps.data[i].data, at)
                loaded[i] = b.add(memref.LoadOp.get(inputs[i], scalar_indices)).res
        updated.append(vectorized_body(op, b, loaded, accumulators[r], plan_.lanes))
    return updated


def reduction_loops(strip: Strip, inputs: list[SSAValue], vector_maps: dict[int, AffineMap],
                    accumulators: list[SSAValue], b: Builder, payoff: float) -> list[SSAValue]:
    """The reduction loops carrying the accumulators, unrolled by `unroll_factors` (a 3x3 kernel's row:
    one `vsetvli` and one loop a kernel row, not a tap); their results. The vector loads' masked-off
    lanes are poison (they only reach masked-off accumulator lanes, which are never stored), so the
    loads need no undisturbed lanes: LLVM keeps one `vsetvli` state for the whole loop."""
    plan_, dims = strip.plan, list(strip.dims)
    bounds = strip.op.get_static_loop_ranges()
    strides = {i: coefficient(m.results[-1], plan_.vector_dim, len(bounds)) for i, m in vector_maps.items()}
    lane_offsets = {i: strided_indices(b, stride, plan_.lanes) for i, stride in strides.items() if stride != 1}
    unread = {i: b.add(PoisonOp(scalable(inputs[i].type.element_type, plan_.lanes))).result for i in vector_maps}
    factors = unroll_factors(strip.op, plan_, payoff)
    carried, inner, loops = accumulators, b, []
    for d in plan_.reductions:
        if factors[d] < bounds[d]:
            loop, inner = for_loop(inner, inner.index(bounds[d]), inner.index(factors[d]), carried)
            dims[d] = loop.body.block.args[0]
            carried = list(loop.body.block.args[1:])
            loops.append(loop)
    unrolled = [d for d in plan_.reductions if factors[d] > 1 or bounds[d] == 1]
    first = {d: dims[d] for d in unrolled}
    for offsets in product(*(range(factors[d]) for d in unrolled)):
        for d, offset in zip(unrolled, offsets, strict=True):
            if factors[d] == bounds[d]:
                dims[d] = inner.index(offset)
            else:
                dims[d] = inner.add(arith.AddiOp(first[d], inner.index(offset))).result if offset else first[d]
        carried = reduction_step(strip, inputs, vector_maps, lane_offsets, unread, dims, carried, inner)
    if not loops:
        return carried
    inner.add(scf.YieldOp(*carried))
    for outer_loop, inner_loop in zip(reversed(loops[:-1]), reversed(loops[1:])):
        b.rewriter.insert_op(scf.YieldOp(*inner_loop.results), InsertPoint.at_end(outer_loop.body.block))
    return list(loops[0].results)


def vectorize(op: GenericOp, plan_: Plan, rewriter: Rewriter, payoff: float = PAYOFF) -> None:
    """Replace `op` by its outer-product form (module docstring), unrolled at `payoff`."""
    maps = [m.data for m in op.indexing_maps.data]
    inputs = list(op.inputs)
    b = Builder(rewriter, InsertPoint.before(op))
    vector_maps = {}
    for i in plan_.vector_inputs:
        vector_maps[i] = maps[i]
        holder = next(k for k, e in enumerate(maps[i].results) if uses(e, plan_.vector_dim))
        if holder == len(maps[i].results) - 1:
            continue
        if constant_global(op.inputs[i]) is not None:
            inputs[i], vector_maps[i] = relaid_out(op, i, holder, rewriter)
        else:
            vector_maps[i] = linearized(maps[i], list(inputs[i].type.get_shape()))
            inputs[i] = flattened(inputs[i], b)
    output = op.outputs[0]
    if plan_.row_dim is not None:
        output = collapsed(output, b)
        inputs[plan_.vector_input] = collapsed(inputs[plan_.vector_input], b)
    if plan_.out_stride != 1:
        output = flattened(output, b)
    strip, b = open_strip(op, plan_, b)
    out_type = output.type.element_type
    unread = b.add(PoisonOp(scalable(out_type, plan_.lanes))).result
    out_indices = [strip.indices(maps[-1], strip.row(strip.dims, b, r), b) for r in range(plan_.rows)]
    out_lanes = lane_offsets(b, plan_.out_stride, plan_.lanes)
    accumulators = [b.add(lanes_load(output, indices, out_lanes, strip.mask, unread)).results[0]
                    for indices in out_indices]
    results = reduction_loops(strip, inputs, vector_maps, accumulators, b, payoff)
    for indices, result in zip(out_indices, results, strict=True):
        b.add(lanes_store(output, indices, out_lanes, strip.mask, result))
    rewriter.erase_op(op)


@dataclass(frozen=True)
class BitfoldLlvmVectorContractionPass(ModulePass):
    """Reduction generics on memrefs -> the outer-product form on scalable vectors (module docstring)."""

    name = "bitfold-llvm-vector-contraction"

    payoff: float = PAYOFF
    """executed instructions a byte of unrolled code must save (`contraction_plan.unroll_factors`; 0
    unrolls every reduction to its budget)"""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewriter = Rewriter()
        for function in [f for f in op.ops if isinstance(f, func.FuncOp)]:
            for generic in [g for g in function.walk() if isinstance(g, GenericOp)]:
                plan_ = plan(generic, self.payoff)
                if plan_ is not None:
                    vectorize(generic, plan_, rewriter, self.payoff)
