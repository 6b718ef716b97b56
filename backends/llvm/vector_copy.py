"""`bitfold-llvm-vector-copy`: a copy `linalg.generic` on RVV (a padding copy), vectorized along the
dimension of the lowest cost. LLVM's loop vectorizer leaves these copies between workspace views to
scalar code: a padding copy of DS-CNN's 25 x 5 feature maps into their 27 x 7 padded buffers gets one
vector and three scalar byte copies a row (17 instructions), MobileNetV1's 48-wide rows a fully
unrolled byte copy (two instructions a byte).

A generic whose iterators are all parallel and whose body yields its one input's element unchanged,
on identity-layout memrefs of 8-, 16- or 32-bit elements in which every dimension is one index of
constant stride, becomes

    for p in the other dims:                                 (scf.for)
      for j0 in 0 .. N step 16 * vscale:                     (d_v, `16 * vscale` lanes, the tail masked)
        v = maskedload src[p, j0 ..]   (or a gather at src's element stride along d_v)
        maskedstore dst[p, j0 ..] = v  (or a scatter at dst's element stride)

d_v is the dimension of the lowest cost, for S strips (the other dims' points times ceil(N / L) for
N lanes along d_v and L = STRIP_LANES):

    cost = S * (STRIP + GATHER * operands at a stride other than 1 along d_v)

STRIP is one strip's instructions (the mask, the load, the store, the loop) and GATHER the cost
model's charge for a strided access (`contraction_plan.GATHER`). Ties keep the last dim.

Exact: each lane copies one element of the generic's iteration space, each once; masked-off lanes
are neither read nor written.
"""

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import AnyFloat, IntegerType, MemRefType, ModuleOp, NoneAttr
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp, YieldOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.backends.llvm.contraction_plan import GATHER, STRIP_LANES, coefficient
from bitfold.backends.llvm.upstream_vector_ops import PoisonOp
from bitfold.backends.llvm.vector_contraction import (
    Builder,
    flattened,
    for_loop,
    lane_offsets,
    lanes_load,
    lanes_store,
    linearized,
    scalable,
    strip_loop,
)

STRIP = 6
"""the cost model's instructions of one strip (module docstring)"""
LANE_WIDTHS = (8, 16, 32)
"""the element widths copied as lanes: whole bytes (LLVM packs an i1 vector's lanes in memory, where
a buffer holds a byte an element) and at most a group of 8 registers a strip"""


def bitwidth(element) -> int | None:
    return element.bitwidth if isinstance(element, IntegerType | AnyFloat) else None


def flat_maps(op: GenericOp) -> list[AffineMap] | None:
    """Each operand's indices as one flat index into its buffer, or None when `op` is not a copy this
    pass takes (module docstring)."""
    iterators = [i.data for i in op.iterator_types.data]
    body = list(op.body.block.ops)
    if (len(op.inputs) != 1 or len(op.outputs) != 1 or op.res or any(i != IteratorType.PARALLEL for i in iterators)
            or len(body) != 1 or not isinstance(body[0], YieldOp) or body[0].operands[0] is not op.body.block.args[0]):
        return None
    bounds = op.get_static_loop_ranges()
    maps = []
    for value, map_attr in zip(op.operands, op.indexing_maps.data, strict=True):
        memref_type, map_ = value.type, map_attr.data
        if (not isinstance(memref_type, MemRefType) or not isinstance(memref_type.layout, NoneAttr)
                or bitwidth(memref_type.element_type) not in LANE_WIDTHS):
            return None
        for d in range(len(bounds)):
            holders = [e for e in map_.results if d in e.used_dims()]
            if len(holders) != 1 or coefficient(holders[0], d, len(bounds)) is None:
                return None
        maps.append(linearized(map_, list(memref_type.get_shape())))
    return maps


def strides(maps: list[AffineMap], dim: int) -> list[int]:
    """Each operand's element stride along `dim`."""
    return [coefficient(m.results[0], dim, m.num_dims) for m in maps]


def cost(bounds: list[int], maps: list[AffineMap], dim: int) -> int:
    """The module docstring's cost of d_v = `dim`."""
    strips = prod(bounds) // bounds[dim] * -(-bounds[dim] // STRIP_LANES)
    return strips * (STRIP + GATHER * sum(s != 1 for s in strides(maps, dim)))


def vector_dim(op: GenericOp) -> tuple[int, list[AffineMap]] | None:
    """d_v and the flat maps when `op` is a copy (module docstring), else None."""
    maps = flat_maps(op)
    bounds = op.get_static_loop_ranges()
    if maps is None or not bounds:
        return None
    return min(reversed(range(len(bounds))), key=lambda d: cost(bounds, maps, d)), maps


def vectorized_copy(op: GenericOp, dim: int, maps: list[AffineMap], rewriter: Rewriter) -> None:
    """Replace `op` by its strip loops (module docstring)."""
    bounds = op.get_static_loop_ranges()
    b = Builder(rewriter, InsertPoint.before(op))
    source, target = (flattened(v, b) for v in op.operands)
    dims: list[SSAValue | None] = [None] * len(bounds)
    for d in range(len(bounds)):
        if d != dim:
            loop, b = for_loop(b, b.index(bounds[d]), b.index(1), [])
            dims[d] = loop.body.block.args[0]
            b.add(scf.YieldOp())
            b.point = InsertPoint.before(loop.body.block.last_op)
    dims[dim], mask, b = strip_loop(b, bounds[dim])
    (load_at,), (store_at,) = (b.indices(m, dims) for m in maps)
    load_stride, store_stride = strides(maps, dim)
    unread = b.add(PoisonOp(scalable(source.type.element_type))).result
    lanes = b.add(lanes_load(source, [load_at], lane_offsets(b, load_stride), mask, unread)).result
    b.add(lanes_store(target, [store_at], lane_offsets(b, store_stride), mask, lanes))
    rewriter.erase_op(op)


@dataclass(frozen=True)
class BitfoldLlvmVectorCopyPass(ModulePass):
    """Copy generics -> strip loops along the cheapest dim (module docstring)."""

    name = "bitfold-llvm-vector-copy"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rewriter = Rewriter()
        for function in [f for f in op.ops if isinstance(f, func.FuncOp)]:
            for generic in [g for g in function.walk() if isinstance(g, GenericOp)]:
                chosen = vector_dim(generic)
                if chosen is not None:
                    vectorized_copy(generic, *chosen, rewriter)
