"""Table lookups, built one way by every pass and backend that reads a table computed at compile
time (quant-to-integer's activation and requantization tables and softmax's exponentials,
lower-quant's float-storage decoding, `bitfold-riscv-tabulate-elementwise`):

    out[i] = table[ext(x[i]) - low]

x an integer tensor, ext its extension to i32 (`arith.extsi` or `arith.extui` by the caller's
signedness; none for i32), `low` the stored value of table[0] (no `arith.subi` for 0), the table a
1-D tensor read with `arith.index_cast` then `tensor.extract`, and an entry of a wider integer type
than out's elements truncated to it (`arith.trunci`). It sits beside the dialects, which both
the passes and the backends use (layers point down only)."""

from collections.abc import Callable

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import AffineMapAttr, IndexType, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap

from bitfold.dialects.op_sequence import OpSequence


def read_table(emit: Callable[[Operation], SSAValue], table: SSAValue, index: SSAValue) -> SSAValue:
    """table[index] for an i32 `index`, its ops appended by `emit` (an `OpSequence`, a generic
    body's `emit`)."""
    position = emit(arith.IndexCastOp(index, IndexType()))
    return emit(tensor.ExtractOp(table, [position], table.type.element_type))


def lookup_generic(source: SSAValue, table: SSAValue, init: SSAValue, signed: bool, low: int = 0) -> linalg.GenericOp:
    """The parallel `linalg.generic` computing out = table[ext(source) - low] elementwise into
    `init` (module docstring), not inserted."""
    block = Block(arg_types=[source.type.element_type, init.type.element_type])
    emit = OpSequence()
    index = block.args[0]
    if index.type != i32:
        index = emit((arith.ExtSIOp if signed else arith.ExtUIOp)(index, i32))
    if low:
        index = emit(arith.SubiOp(index, emit.i32(low)))
    value = read_table(emit, table, index)
    if value.type != init.type.element_type:
        value = emit(arith.TruncIOp(value, init.type.element_type))
    block.add_ops([*emit.ops, linalg.YieldOp(value)])
    rank = len(init.type.get_shape())
    identity = AffineMapAttr(AffineMap.identity(rank))
    return linalg.GenericOp([source], [init], Region(block), [identity, identity],
                            [linalg.IteratorTypeAttr.parallel()] * rank, [init.type])
