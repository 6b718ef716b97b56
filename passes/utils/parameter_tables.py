"""One `linalg.generic` per quant cast: all iterators parallel, the cast's tensor as the
first input, one output (`tensor.empty`), and the body built from scalar arith / math ops.

Quantization parameters (scale, zero point, and anything derived per channel) enter the
body in one of two ways: a parameter equal for every element (per tensor, or per axis with
equal values) is an `arith.constant` in the body; otherwise it is a constant tensor holding
the type's parameter table, a generic input whose indexing map picks the element's entry:

    per axis a:      (d0, ..., dr) -> (da)
    sub-channel:     (d0, ..., dr) -> (e0, ..., er), ei = di floordiv block_i on a blocked
                     axis (di when block_i = 1), 0 on an axis that is one block

xDSL's affine maps express `floordiv`, so sub-channel tables are not expanded."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    TensorType,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from bitfold.dialects.onnx.constant import dense_attr
from bitfold.dialects.quant import Granularity, QuantizedType
from bitfold.passes.utils.linalg_building import Body


def parameter_map(qtype: QuantizedType, rank: int) -> list[AffineExpr]:
    """The results of the indexing map from the iteration space into `qtype`'s table."""
    if qtype.kind == Granularity.PER_TENSOR:
        return []
    if qtype.kind == Granularity.PER_AXIS:
        return [AffineDimExpr(qtype.axis)]
    blocks = qtype.block_size_info()
    return [
        (AffineDimExpr(dim) if blocks[dim] == 1 else AffineDimExpr(dim) // blocks[dim])
        if dim in blocks
        else AffineConstantExpr(0)
        for dim in range(rank)
    ]


def parameter_table(qtype: QuantizedType, values) -> np.ndarray:
    """Per-parameter values (one per scale of `qtype`, in table order) shaped as its table."""
    table = np.asarray(values)
    if qtype.kind == Granularity.PER_TENSOR:
        return table.reshape(())
    shape = [d.data for d in qtype.params_shape] if qtype.kind == Granularity.SUB_CHANNEL else [-1]
    return table.reshape(shape)


@dataclass(frozen=True)
class Parameter:
    """One parameter table of the cast and the element type it has in the body."""

    table: np.ndarray
    element_type: Attribute


def build_elementwise(
    rewriter: PatternRewriter,
    source: SSAValue,
    source_element: Attribute,
    qtype: QuantizedType,
    parameters: Mapping[str, Parameter],
    result_type: TensorType,
    build: Callable[[Body], SSAValue],
) -> SSAValue:
    """Insert, before the matched op, the generic computing `build(body)` for each element
    of `source` (whose element is `source_element` in the body), with `parameters` laid
    out by `qtype`; return its result."""
    rank = len(result_type.get_shape())
    identity = AffineMap.identity(rank)
    table_map = AffineMap(rank, 0, tuple(parameter_map(qtype, rank)))
    uniform = {name: p for name, p in parameters.items() if np.all(p.table == p.table.flat[0])}
    tables = {name: p for name, p in parameters.items() if name not in uniform}

    table_constants = [arith.ConstantOp(dense_attr(p.table, p.element_type)) for p in tables.values()]
    empty = tensor.EmptyOp([], result_type)
    rewriter.insert([*table_constants, empty])

    block = Block(arg_types=[source_element, *(p.element_type for p in tables.values()), result_type.element_type])
    body = Body(block, {"input": block.args[0], **dict(zip(tables, block.args[1:]))})
    for name, p in uniform.items():
        body.values[name] = body.constant(p.table.flat[0], p.element_type)
    block.add_op(linalg.YieldOp(build(body)))

    generic = linalg.GenericOp(
        [source, *(c.result for c in table_constants)],
        [empty.tensor],
        Region(block),
        [AffineMapAttr(identity), *(AffineMapAttr(table_map) for _ in tables), AffineMapAttr(identity)],
        [IteratorTypeAttr.parallel()] * rank,
        [result_type],
    )
    rewriter.insert(generic)
    return generic.results[0]
