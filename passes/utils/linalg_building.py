"""Building `linalg.generic`s, shared by the passes that emit them (lower-quant,
quant-to-integer, onnx-data-movement-to-linalg, onnx-float-to-linalg): a body under
construction, the generic around it (any indexing maps, parallel and reduction iterators),
inserted by a rewriter, its constant inputs (`arith.constant` of dense tensors) and the maps of
ONNX broadcasting."""

from collections.abc import Callable, Mapping, Sequence

import numpy as np
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from bitfold.dialects.onnx.constant import dense_attr


class Body:
    """A generic's block under construction: `emit(op)` appends an op and returns its (first)
    result; `values` holds the block's arguments by name."""

    def __init__(self, block: Block, values: Mapping[str, SSAValue] = ()):
        self.block = block
        self.values = dict(values)
        self._index_constants: dict[int, SSAValue] = {}

    def emit(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def constant(self, value, element_type: Attribute) -> SSAValue:
        """An `arith.constant` of an integer or float type."""
        if isinstance(element_type, IntegerType | IndexType):
            return self.emit(arith.ConstantOp(IntegerAttr(int(value), element_type)))
        return self.emit(arith.ConstantOp(FloatAttr(float(value), element_type)))

    def index_constant(self, value: int) -> SSAValue:
        """An `index` constant, emitted once per body."""
        if value not in self._index_constants:
            self._index_constants[value] = self.constant(value, IndexType())
        return self._index_constants[value]

    def index(self, dim: int) -> SSAValue:
        """The iteration index along loop `dim` (`linalg.index`)."""
        return self.emit(linalg.IndexOp(dim))

    def clamp(self, value: SSAValue, low: int | None, high: int | None) -> SSAValue:
        """An index clamped to [low, high] (signed), either bound None where not needed."""
        if low is not None:
            value = self.emit(arith.MaxSIOp(value, self.index_constant(low)))
        if high is not None:
            value = self.emit(arith.MinSIOp(value, self.index_constant(high)))
        return value


def generic_op(
    inputs: Sequence[tuple[SSAValue, AffineMap]],
    init: tuple[SSAValue, AffineMap],
    reduction_dims: Sequence[int],
    build: Callable[[Body], SSAValue],
) -> linalg.GenericOp:
    """A generic with one output, reading `inputs` through their maps and updating `init`
    (body values "in0", "in1", ... and "output"); the loops not in `reduction_dims` are
    parallel, the value `build` returns is yielded."""
    out_type = init[0].type
    assert isinstance(out_type, TensorType)
    block = Block(arg_types=[*(v.type.element_type for v, _ in inputs), out_type.element_type])
    names = [f"in{i}" for i in range(len(inputs))] + ["output"]
    body = Body(block, dict(zip(names, block.args, strict=True)))
    block.add_op(linalg.YieldOp(build(body)))
    rank = init[1].num_dims
    return linalg.GenericOp(
        [v for v, _ in inputs],
        [init[0]],
        Region(block),
        [AffineMapAttr(m) for _, m in (*inputs, init)],
        [IteratorTypeAttr.reduction() if d in reduction_dims else IteratorTypeAttr.parallel() for d in range(rank)],
        [out_type],
    )


I32 = IntegerType(32)


def integer_constant(rewriter: PatternRewriter, values: np.ndarray, element: IntegerType | Float32Type) -> SSAValue:
    """An `arith.constant` tensor of `values` (any integer array; or floats, rounded to an f32
    `element` once) as `element`s."""
    constant = arith.ConstantOp(dense_attr(np.asarray(values), element))
    rewriter.insert(constant)
    return constant.result


def empty(rewriter: PatternRewriter, shape: Sequence[int], element: IntegerType | Float32Type) -> SSAValue:
    """A `tensor.empty` of `shape` and `element`s (the init of an output fully written)."""
    op = tensor.EmptyOp([], TensorType(element, shape))
    rewriter.insert(op)
    return op.tensor


def affine_map(rank: int, results: Sequence[AffineExpr]) -> AffineMap:
    return AffineMap(rank, 0, tuple(results))


def filled(
    rewriter: PatternRewriter, values: np.ndarray, dims: Sequence[int], shape: Sequence[int],
    element: IntegerType | Float32Type,
) -> SSAValue:
    """A tensor of `shape` whose element at index i is values[i[d] for d in dims] (a scalar for
    no dims): a constant table broadcast by a parallel generic."""
    table = integer_constant(rewriter, values, element)
    rank = len(shape)
    return build_generic(
        rewriter,
        [(table, affine_map(rank, [AffineDimExpr(d) for d in dims]))],
        (empty(rewriter, shape, element), AffineMap.identity(rank)),
        [],
        lambda body: body.values["in0"],
    )


def build_generic(
    rewriter: PatternRewriter,
    inputs: Sequence[tuple[SSAValue, AffineMap]],
    init: tuple[SSAValue, AffineMap],
    reduction_dims: Sequence[int],
    build: Callable[[Body], SSAValue],
) -> SSAValue:
    """Insert `generic_op(...)` before the matched op; return its result."""
    generic = generic_op(inputs, init, reduction_dims, build)
    rewriter.insert(generic)
    return generic.results[0]


def broadcast_map(shape, out_rank: int):
    """ONNX multidirectional broadcasting: operand dims right-aligned, size 1 reads index 0."""
    offset = out_rank - len(shape)
    return affine_map(
        out_rank, [AffineConstantExpr(0) if size == 1 else AffineDimExpr(offset + i) for i, size in enumerate(shape)]
    )
