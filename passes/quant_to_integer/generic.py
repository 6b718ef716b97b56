"""Building `linalg.generic`s on integer tensors: any indexing maps, parallel and reduction
iterators, a body built with `Body` (`passes/lower_quant/elementwise.py`), and integer
constants (`arith.constant` of dense tensors)."""

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import AffineMapAttr, IntegerType, TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from bitfold.dialects.onnx.encoding import dense_attr
from bitfold.passes.lower_quant.elementwise import Body

I32 = IntegerType(32)


def integer_constant(rewriter: PatternRewriter, values: np.ndarray, element: IntegerType) -> SSAValue:
    """An `arith.constant` tensor of `values` (any integer array) as `element`s."""
    constant = arith.ConstantOp(dense_attr(np.asarray(values), element))
    rewriter.insert(constant)
    return constant.result


def empty(rewriter: PatternRewriter, shape: Sequence[int], element: IntegerType) -> SSAValue:
    """A `tensor.empty` of `shape` and `element`s (the init of an output fully written)."""
    op = tensor.EmptyOp([], TensorType(element, shape))
    rewriter.insert(op)
    return op.tensor


def affine_map(rank: int, results: Sequence[AffineExpr]) -> AffineMap:
    return AffineMap(rank, 0, tuple(results))


def build_generic(
    rewriter: PatternRewriter,
    inputs: Sequence[tuple[SSAValue, AffineMap]],
    init: tuple[SSAValue, AffineMap],
    reduction_dims: Sequence[int],
    build: Callable[[Body], SSAValue],
) -> SSAValue:
    """Insert a generic with one output, reading `inputs` through their maps and updating
    `init` (its body value is "output", the inputs "in0", "in1", ...); the loops not in
    `reduction_dims` are parallel. Returns the result tensor."""
    rank = init[1].num_dims
    out_type = init[0].type
    assert isinstance(out_type, TensorType)
    block = Block(arg_types=[*(v.type.element_type for v, _ in inputs), out_type.element_type])
    names = [f"in{i}" for i in range(len(inputs))] + ["output"]
    body = Body(block, dict(zip(names, block.args, strict=True)))
    block.add_op(linalg.YieldOp(build(body)))
    iterators = [
        IteratorTypeAttr.reduction() if dim in reduction_dims else IteratorTypeAttr.parallel() for dim in range(rank)
    ]
    generic = linalg.GenericOp(
        [v for v, _ in inputs],
        [init[0]],
        Region(block),
        [AffineMapAttr(m) for _, m in (*inputs, init)],
        iterators,
        [out_type],
    )
    rewriter.insert(generic)
    return generic.results[0]
