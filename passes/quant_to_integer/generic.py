"""Building `linalg.generic`s on integer (and f32) tensors: any indexing maps, parallel and reduction
iterators, a body built with `linalg_building.Body`, inserted by a rewriter, and integer
constants (`arith.constant` of dense tensors)."""

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import Float32Type, IntegerType, TensorType
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from bitfold.dialects.onnx.encoding import dense_attr
from bitfold.passes.linalg_building import Body, generic_op

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
    """Insert `linalg_building.generic_op(...)` before the matched op; return its result."""
    generic = generic_op(inputs, init, reduction_dims, build)
    rewriter.insert(generic)
    return generic.results[0]
