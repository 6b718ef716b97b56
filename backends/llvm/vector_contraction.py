"""`bitfold-vector-contraction`: the schedule of the reductions on RVV, decided by bitfold above LLVM
(LLVM's own vectorizer reduces along k: a horizontal reduction per output, ~39 instructions each).

A reduction `linalg.generic` on memrefs (matmul, convolution, depthwise and pointwise convolution) of two
inputs whose body is arith on their elements and the output element becomes the outer-product form on
scalable vectors (`vector<[16]xi32>`: LMUL 8 for i32 lanes at every VLEN):

    for p in the other parallel dims:                       (scf.for)
      for j0 in 0 .. N step 16 * vscale:                    (the output's last dim, d_v, merged with the
                                                             one before it where both are contiguous)
        mask = lanes j0 .. N - 1
        acc = maskedload out[p, j0 ..]                      (int32 accumulators in vector registers)
        for r in the reduction dims:                        (scf.for carrying acc)
          s = load scalar_operand[p, r]                     (the input that does not use d_v: broadcast)
          v = maskedload vector_operand[p, r, j0 ..]        (the input that uses d_v, contiguous along it;
                                                             a gather of every s-th element for stride s)
          acc = body(acc, s, v)                             (extsi, muli, addi: LLVM picks vwmacc.vx)
        maskedstore out[p, j0 ..] = acc

A constant vector operand whose axis along d_v is not its last (a matmul's weights, stored N x K) is
re-laid out at compile time with that axis last (k-major), so every vector load is contiguous.

Exact: every output element is reduced in the generic's order (the reductions are not reordered, lanes
are independent output elements), and masked-off lanes are neither read nor written. VLEN-agnostic: the
strip length is `16 * vscale`, read at run time.
"""

from dataclasses import dataclass

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
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    VectorType,
    i1,
    i32,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def, var_operand_def
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import Pure

LANES = 16
"""lanes of one vector per vscale (vscale = VLEN / 64 on RVV): 16 x i32 is a group of 8 registers"""
ROWS = 2
"""neighbouring output rows computed together: one vector load serves ROWS accumulators"""
ELEMENTWISE = (arith.ExtSIOp, arith.ExtUIOp, arith.MuliOp, arith.AddiOp, arith.SubiOp, arith.ConstantOp)
"""the body ops this schedule vectorizes (lane by lane)"""


@irdl_op_definition
class VectorScaleOp(IRDLOperation):
    """upstream `vector.vscale` (missing in xDSL 0.74): the runtime multiple of a scalable vector's lanes."""

    name = "vector.vscale"
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[IndexType()])


@irdl_op_definition
class StepOp(IRDLOperation):
    """upstream `vector.step` (missing in xDSL 0.74): the lanes' indices 0, 1, 2, ..."""

    name = "vector.step"
    result = result_def(VectorType)
    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: VectorType):
        super().__init__(result_types=[result_type])


@irdl_op_definition
class GatherOp(IRDLOperation):
    """upstream `vector.gather` (missing in xDSL 0.74): lane k reads base[i0, ..., in + index_vec[k]]
    where its mask bit is set, else takes pass_thru's lane k."""

    name = "vector.gather"
    base = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    index_vec = operand_def(VectorType)
    mask = operand_def(VectorType)
    pass_thru = operand_def(VectorType)
    result = result_def(VectorType)
    assembly_format = ("$base `[` $indices `]` `[` $index_vec `]` `,` $mask `,` $pass_thru attr-dict `:` type($base) "
                       "`,` type($index_vec) `,` type($mask) `,` type($pass_thru) `into` type($result)")

    def __init__(self, base: SSAValue, indices: list[SSAValue], index_vec: SSAValue, mask: SSAValue,
                 pass_thru: SSAValue):
        super().__init__(operands=[base, indices, index_vec, mask, pass_thru], result_types=[pass_thru.type])


def scalable(element) -> VectorType:
    return VectorType(element, [LANES], ArrayAttr([BoolAttr.from_bool(True)]))


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
    """The outer-product plan for `op`, or None when it does not fit (module docstring)."""
    if len(op.inputs) != 2 or len(op.outputs) != 1 or op.res:
        return None
    iterators = [i.data for i in op.iterator_types.data]
    if IteratorType.REDUCTION not in iterators:
        return None
    if not all(isinstance(o, ELEMENTWISE) for o in list(op.body.block.ops)[:-1]):
        return None
    maps = [m.data for m in op.indexing_maps.data]
    out_map = maps[-1]
    last = out_map.results[-1] if out_map.results else None
    if not isinstance(last, AffineDimExpr) or iterators[last.position] != IteratorType.PARALLEL:
        return None
    dim = last.position
    if any(uses(e, dim) for e in out_map.results[:-1]):
        return None
    using = [i for i in range(2) if any(uses(e, dim) for e in maps[i].results)]
    if len(using) != 1:
        return None
    vector_input = using[0]
    results = maps[vector_input].results
    holders = [k for k, e in enumerate(results) if uses(e, dim)]
    if len(holders) != 1 or coefficient(results[holders[0]], dim, out_map.num_dims) is None:
        return None
    if holders[0] != len(results) - 1 and not (isinstance(results[holders[0]], AffineDimExpr)
                                                and constant_global(op.inputs[vector_input]) is not None):
        return None
    row = mergeable_row(op, dim, vector_input)
    outer = [d for d, kind in enumerate(iterators) if kind == IteratorType.PARALLEL and d not in (dim, row)]
    reductions = [d for d, kind in enumerate(iterators) if kind == IteratorType.REDUCTION]
    return Plan(dim, vector_input, 1 - vector_input, outer, reductions, row)


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


def constant_global(value: SSAValue) -> memref.GlobalOp | None:
    owner = value.owner
    if not isinstance(owner, memref.GetGlobalOp):
        return None
    module = owner.parent_op()
    while module is not None and not isinstance(module, ModuleOp):
        module = module.parent_op()
    found = next((g for g in module.ops if isinstance(g, memref.GlobalOp) and g.sym_name.data == owner.name_.root_reference.data), None)
    return found if found is not None and found.constant is not None else None


def relaid_out(op: GenericOp, index: int, axis: int, rewriter: Rewriter) -> tuple[SSAValue, AffineMap]:
    """A copy of constant input `index` with `axis` moved last (a new global), and its map."""
    source = constant_global(op.inputs[index])
    memref_type = source.type
    shape = list(memref_type.get_shape())
    order = [a for a in range(len(shape)) if a != axis] + [axis]
    values = np.array([int(v) for v in source.initial_value.get_values()], dtype=np.int64)
    values = np.broadcast_to(values, (int(np.prod(shape)),)) if values.size == 1 else values
    transposed = values.reshape(shape).transpose(order).reshape(-1)
    new_shape = [shape[a] for a in order]
    element = memref_type.element_type
    name = f"{source.sym_name.data}_{''.join(map(str, order))}"
    new_type = MemRefType(element, new_shape)
    initial = DenseIntOrFPElementsAttr.from_list(TensorType(element, new_shape), [int(v) for v in transposed])
    new_global = memref.GlobalOp.get(StringAttr(name), new_type, initial, StringAttr("private"), UnitAttr())
    rewriter.insert_op(new_global, InsertPoint.after(source))
    get = memref.GetGlobalOp(name, new_type)
    rewriter.insert_op(get, InsertPoint.before(op))
    old = op.indexing_maps.data[index].data
    return get.memref, AffineMap(old.num_dims, 0, tuple(old.results[a] for a in order))


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


def strided_lanes(b: "Builder", stride: int) -> SSAValue:
    """The lanes' element offsets 0, s, 2s, ... of a strided vector input (a stride-s convolution's row)."""
    offsets = scalable(i32)
    lanes = b.add(arith.IndexCastOp(b.add(StepOp(scalable(IndexType()))).result, offsets)).result
    stride_lanes = b.add(vector.BroadcastOp(b.add(arith.ConstantOp(IntegerAttr(stride, i32))).result, offsets)).vector
    return b.add(arith.MuliOp(lanes, stride_lanes, offsets)).result


def vectorized_body(op: GenericOp, b: Builder, scalar: SSAValue, vec: SSAValue, acc: SSAValue, plan_: Plan) -> SSAValue:
    """The body on lanes: block args -> (scalar, vector, accumulator); scalar values meeting vector
    ones are broadcast."""
    block = op.body.block
    values: dict[SSAValue, SSAValue] = {block.args[plan_.scalar_input]: scalar, block.args[plan_.vector_input]: vec,
                                        block.args[2]: acc}

    def lanes(value: SSAValue) -> SSAValue:
        if isinstance(value.type, VectorType):
            return value
        return b.add(vector.BroadcastOp(value, scalable(value.type))).vector

    for body_op in list(block.ops)[:-1]:
        operands = [values[o] for o in body_op.operands]
        if isinstance(body_op, arith.ConstantOp):
            values[body_op.result] = b.add(body_op.clone()).result
            continue
        if any(isinstance(o.type, VectorType) for o in operands):
            operands = [lanes(o) for o in operands]
            result_type = scalable(body_op.results[0].type)
        else:
            result_type = body_op.results[0].type
        if isinstance(body_op, (arith.ExtSIOp, arith.ExtUIOp)):
            new = type(body_op)(operands[0], result_type)
        else:
            new = type(body_op)(operands[0], operands[1], result_type)
        values[body_op.results[0]] = b.add(new).results[0]
    return lanes(values[block.last_op.operands[0]])


def for_loop(b: Builder, upper: SSAValue, step: SSAValue, carried: list[SSAValue]) -> tuple[scf.ForOp, Builder]:
    """`scf.for %i = 0 to upper step step iter_args(carried)`; a builder at the start of its body."""
    body = Block(arg_types=[IndexType(), *(c.type for c in carried)])
    loop = b.add(scf.ForOp(b.index(0), upper, step, carried, Region(body)))
    return loop, Builder(b.rewriter, InsertPoint.at_end(body))


def blocked_dim(op: GenericOp, plan_: Plan) -> int | None:
    """The outer dimension whose ROWS neighbouring points share one vector load: the last one the
    scalar input uses and the vector input does not, of a bound divisible by ROWS."""
    maps = [m.data for m in op.indexing_maps.data]
    bounds = op.get_static_loop_ranges()
    for d in reversed(plan_.outer):
        if (bounds[d] % ROWS == 0 and any(uses(e, d) for e in maps[plan_.scalar_input].results)
                and not any(uses(e, d) for e in maps[plan_.vector_input].results)):
            return d
    return None


def vectorize(op: GenericOp, plan_: Plan, rewriter: Rewriter) -> None:
    maps = [m.data for m in op.indexing_maps.data]
    inputs = list(op.inputs)
    vector_map = maps[plan_.vector_input]
    holder = next(k for k, e in enumerate(vector_map.results) if uses(e, plan_.vector_dim))
    if holder != len(vector_map.results) - 1:
        inputs[plan_.vector_input], vector_map = relaid_out(op, plan_.vector_input, holder, rewriter)
    blocked = blocked_dim(op, plan_)
    rows = ROWS if blocked is not None else 1
    b = Builder(rewriter, InsertPoint.before(op))
    bounds = op.get_static_loop_ranges()
    dims: list[SSAValue | None] = [None] * len(bounds)
    one = b.index(1)
    merged = plan_.row_dim is not None
    output = collapsed(op.outputs[0], b) if merged else op.outputs[0]
    if merged:
        inputs[plan_.vector_input] = collapsed(inputs[plan_.vector_input], b)
    for d in plan_.outer:
        loop, b = for_loop(b, b.index(bounds[d]), b.index(rows) if d == blocked else one, [])
        dims[d] = loop.body.block.args[0]
        b.add(scf.YieldOp())
        b.point = InsertPoint.before(loop.body.block.last_op)
    total = b.index(bounds[plan_.vector_dim] * (bounds[plan_.row_dim] if merged else 1))
    step = b.add(arith.MuliOp(b.add(VectorScaleOp()).result, b.index(LANES))).result
    strip, b = for_loop(b, total, step, [])
    b.add(scf.YieldOp())
    b.point = InsertPoint.before(strip.body.block.last_op)
    start = strip.body.block.args[0]
    mask = b.add(vector.CreateMaskOp([b.add(arith.SubiOp(total, start)).result], scalable(i1))).mask_vector
    for d in (*plan_.reductions, *((plan_.row_dim, plan_.vector_dim) if merged else ())):
        dims[d] = b.index(0)
    if not merged:
        dims[plan_.vector_dim] = start

    def strip_indices(map_: AffineMap, values: list[SSAValue], builder: Builder) -> list[SSAValue]:
        """Indices of the strip's first element in the output or the vector input (collapsed when merged)."""
        if not merged:
            return builder.indices(map_, values)
        return [*builder.indices(AffineMap(map_.num_dims, 0, map_.results[:-2]), values), start]

    def row(values: list[SSAValue], builder: Builder, r: int) -> list[SSAValue]:
        """The dimension values of row r of the block."""
        if blocked is None or r == 0:
            return list(values)
        shifted = list(values)
        shifted[blocked] = builder.add(arith.AddiOp(values[blocked], builder.index(r))).result
        return shifted

    out_type = output.type.element_type
    stride = coefficient(vector_map.results[-1], plan_.vector_dim, len(bounds))
    lane_offsets = None if stride == 1 else strided_lanes(b, stride)
    zero = b.add(vector.BroadcastOp(b.add(arith.ConstantOp(IntegerAttr(0, out_type))).result, scalable(out_type))).vector
    out_indices = [strip_indices(maps[-1], row(dims, b, r), b) for r in range(rows)]
    accumulators = [b.add(vector.MaskedLoadOp(output, out_indices[r], mask, zero)).result for r in range(rows)]
    vector_type = scalable(inputs[plan_.vector_input].type.element_type)
    initial_lanes = b.add(vector.BroadcastOp(b.add(arith.ConstantOp(IntegerAttr(0, vector_type.element_type))).result,
                                             vector_type)).vector
    carried, inner, loops = [*accumulators, initial_lanes], b, []
    for d in plan_.reductions:
        loop, inner = for_loop(inner, inner.index(bounds[d]), one, carried)
        dims[d] = loop.body.block.args[0]
        carried = list(loop.body.block.args[1:])
        loops.append(loop)
    # the previous step's lanes are the masked load's pass-through: masked-off lanes are never stored
    vector_indices = strip_indices(vector_map, dims, inner)
    if lane_offsets is None:
        vec = inner.add(vector.MaskedLoadOp(inputs[plan_.vector_input], vector_indices, mask, carried[-1])).result
    else:
        vec = inner.add(GatherOp(inputs[plan_.vector_input], vector_indices, lane_offsets, mask, carried[-1])).result
    updated = []
    for r in range(rows):
        indices = inner.indices(maps[plan_.scalar_input], row(dims, inner, r))
        scalar = inner.add(memref.LoadOp.get(inputs[plan_.scalar_input], indices)).res
        updated.append(vectorized_body(op, inner, scalar, vec, carried[r], plan_))
    inner.add(scf.YieldOp(*updated, vec))
    for outer_loop, inner_loop in zip(reversed(loops[:-1]), reversed(loops[1:])):
        rewriter.insert_op(scf.YieldOp(*inner_loop.results), InsertPoint.at_end(outer_loop.body.block))
    for r in range(rows):
        b.add(vector.MaskedStoreOp(output, out_indices[r], mask, loops[0].results[r]))
    rewriter.erase_op(op)


@dataclass(frozen=True)
class VectorContractionPass(ModulePass):
    """Reduction generics on memrefs -> the outer-product form on scalable vectors (module docstring)."""

    name = "bitfold-vector-contraction"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewriter = Rewriter()
        for function in [f for f in op.ops if isinstance(f, func.FuncOp)]:
            for generic in [g for g in function.walk() if isinstance(g, GenericOp)]:
                plan_ = plan(generic)
                if plan_ is not None:
                    vectorize(generic, plan_, rewriter)
