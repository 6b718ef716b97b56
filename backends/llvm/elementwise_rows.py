"""`bitfold-llvm-merge-elementwise-rows`: an elementwise `linalg.generic` on memrefs iterates over the
rows x columns of its contiguous operands as one dimension, so LLVM's loop vectorizer gets long
loops: DS-CNN's 25 x 5 feature maps would give it 5-element inner loops (a vector strip each, mostly
masked) in the requantizations, bias fills and pooling that follow every layer.

A generic whose iterators are all parallel, whose body has no `linalg.index`, and in which every
operand either holds the last two dims (d_{n-2}, d_{n-1}) as its last two indices with extents equal
to their bounds (identity layout) or uses neither of them, becomes the same generic over n - 1 dims:
those operands `memref.collapse_shape`d (last two dims merged, row-major), their last index the
merged dim. Repeated while it applies (N x C x H x W with per-channel parameters: H x W merged, C not,
as the parameters use it).

Exact: the merged index h * W + w visits the same elements as (h, w), each once, and an elementwise
body does not depend on the order.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, IntegerAttr, MemRefType, ModuleOp, NoneAttr
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp, IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter


def holds_last_two(value: SSAValue, map_: AffineMap, bounds: list[int]) -> bool | None:
    """True when the operand holds (d_{n-2}, d_{n-1}) last and contiguously, False when it uses
    neither, None otherwise (module docstring)."""
    n = map_.num_dims
    users = [k for k, e in enumerate(map_.results) if set(e.used_dims()) & {n - 2, n - 1}]
    if not users:
        return False
    results, memref_type = map_.results, value.type
    if (users != [len(results) - 2, len(results) - 1] or results[-2] != AffineDimExpr(n - 2)
            or results[-1] != AffineDimExpr(n - 1) or not isinstance(memref_type, MemRefType)
            or not isinstance(memref_type.layout, NoneAttr)
            or list(memref_type.get_shape()[-2:]) != bounds[-2:]):
        return None
    return True


def merged_rows(value: SSAValue, rewriter: Rewriter, point: InsertPoint) -> SSAValue:
    """`value` with its last two dims merged."""
    shape = list(value.type.get_shape())
    groups = [[i] for i in range(len(shape) - 2)] + [[len(shape) - 2, len(shape) - 1]]
    collapse = memref.CollapseShapeOp(
        operands=[value], result_types=[MemRefType(value.type.element_type, [*shape[:-2], shape[-2] * shape[-1]])],
        properties={"reassociation": ArrayAttr([ArrayAttr([IntegerAttr(i, 64) for i in g]) for g in groups])})
    rewriter.insert_op(collapse, point)
    return collapse.result


def merge_once(op: GenericOp, rewriter: Rewriter) -> GenericOp | None:
    """`op` over n - 1 dims (module docstring), or None when it does not apply."""
    iterators = [i.data for i in op.iterator_types.data]
    if len(iterators) < 2 or any(i != IteratorType.PARALLEL for i in iterators) or op.res:
        return None
    if any(isinstance(o, IndexOp) for o in op.body.walk()):
        return None
    maps = [m.data for m in op.indexing_maps.data]
    bounds = list(op.get_static_loop_ranges())
    holding = [holds_last_two(v, m, bounds) for v, m in zip(op.operands, maps, strict=True)]
    if None in holding or not any(holding):
        return None
    n = len(iterators)
    point = InsertPoint.before(op)
    operands = [merged_rows(v, rewriter, point) if h else v for v, h in zip(op.operands, holding, strict=True)]
    new_maps = [AffineMap(n - 1, 0, (*m.results[:-2], AffineDimExpr(n - 2)) if h else m.results)
                for m, h in zip(maps, holding, strict=True)]
    inputs = len(op.inputs)
    merged = GenericOp(operands[:inputs], operands[inputs:], rewriter.move_region_contents_to_new_regions(op.body),
                       [AffineMapAttr(m) for m in new_maps], op.iterator_types.data[:-1])
    rewriter.replace_op(op, merged, [])
    return merged


@dataclass(frozen=True)
class BitfoldLlvmMergeElementwiseRowsPass(ModulePass):
    """Elementwise generics over rows x columns as one dim (module docstring)."""

    name = "bitfold-llvm-merge-elementwise-rows"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewriter = Rewriter()
        for generic in [g for g in op.walk() if isinstance(g, GenericOp)]:
            while generic is not None:
                generic = merge_once(generic, rewriter)
