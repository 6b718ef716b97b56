"""The f32 `linalg.generic` builders the float-island lowerings share (`onnx_float_to_linalg`,
`float_quant_to_linalg`, `dynamic_quantization_to_linalg`): constants read as `arith.constant`,
ONNX broadcasting, elementwise and reduction generics, the f32 clamp; the pass's name and its `fail`."""

from collections.abc import Callable, Sequence
from functools import partial

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from bitfold.dialects.onnx.constant import ConstantOp as OnnxConstantOp
from bitfold.dialects.onnx.constant import dense_to_numpy
from bitfold.passes.utils import pass_failure
from bitfold.passes.utils.linalg_building import (
    Body,
    affine_map,
    broadcast_map,
    build_generic,
    empty,
    filled,
    integer_constant,
)

PASS_NAME = "onnx-float-to-linalg"
F32 = Float32Type()

fail = partial(pass_failure.fail, PASS_NAME)
"""`fail(op, message)`: stop the pass with one line naming the op and its ONNX node."""


def tensor_shape(value: SSAValue) -> tuple[int, ...]:
    return tuple(value.type.get_shape())


def float_operand(rewriter: PatternRewriter, value: SSAValue) -> SSAValue:
    """`value` as an f32 tensor the generics read: a constant becomes an `arith.constant`."""
    if isinstance(value.owner, OnnxConstantOp):
        return integer_constant(rewriter, dense_to_numpy(value.owner.value).astype(np.float32), F32)
    return value


def elementwise(
    rewriter: PatternRewriter, op: Operation, operands: Sequence[SSAValue], build: Callable[..., SSAValue]
) -> None:
    """Replace `op` by a parallel generic over its result: build(body, *elements), operands
    broadcast as ONNX does."""
    shape = tensor_shape(op.results[0])
    rank = len(shape)
    inputs = [(float_operand(rewriter, v), broadcast_map(tensor_shape(v), rank)) for v in operands]
    init = (empty(rewriter, shape, F32), AffineMap.identity(rank))
    result = build_generic(
        rewriter, inputs, init, [], lambda body: build(body, *(body.values[f"in{i}"] for i in range(len(inputs))))
    )
    rewriter.replace(op, [], [result])


def float_reduction(
    rewriter: PatternRewriter,
    value: SSAValue,
    rank: int,
    reads: list,
    reduction: Sequence[int],
    out_shape,
    start: float,
    combine: type[Operation],
) -> SSAValue:
    """out[o] = combine(... combine(start, value[reads]) ...) over the reduction loops
    (ascending), out indexed by the loops not in `reduction`."""
    init = filled(rewriter, np.array(start), [], out_shape, F32)
    out_dims = [AffineDimExpr(d) for d in range(rank) if d not in reduction]
    return build_generic(
        rewriter,
        [(value, affine_map(rank, reads))],
        (init, affine_map(rank, out_dims)),
        reduction,
        lambda body: body.emit(combine(body.values["output"], body.values["in0"])),
    )


def clamp_f32(body: Body, x: SSAValue, low: float | None, high: float | None) -> SSAValue:
    """minimumf(maximumf(x, low), high) on f32, a None bound left out (MLIR: -0.0 < +0.0)."""
    if low is not None:
        x = body.emit(arith.MaximumfOp(x, body.constant(low, F32)))
    return x if high is None else body.emit(arith.MinimumfOp(x, body.constant(high, F32)))
