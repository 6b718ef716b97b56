"""`bitfold-riscv-fuse-elementwise`: an elementwise generic read by one other elementwise generic over
the same iteration space is computed inside it (on tensors, before bufferization), so the value
never goes through a buffer:

    %p = linalg.generic ins(%a, %t : ...) { body_P(a, t) }            (only user: C)
    %c = linalg.generic ins(%p, %b : ...) { body_C(p, b) }
->
    %c = linalg.generic ins(%b, %a, %t : ...) { p = body_P(a, t); body_C(p, b) }

Both generics are all parallel with one output at the identity whose initial value the body does
not read, with no `linalg.index`; C reads P's result at the identity (dimensions of extent 1 may be
read at 0) and P's result has C's shape, so P's iteration space is C's and its maps apply to C's
loops unchanged. The same arithmetic runs on the same operands in the same order: exact. An input
read twice through the same map is read once. P is left alone where it reads a contraction's
result (a generic with reduction loops), and so is a C that reads one: each is that contraction's
epilogue, which `fused_epilogue.py` places on the register tile instead. Both bodies compute on
integers only: float islands stay apart (the register allocator does not spill float values, and a
fused float body holds more of them at once).

A residual Add (two operands requantized to a common scale, summed, requantized: four generics
and three i32 buffers) is one loop nest; so is a squeeze-excitation gate's Mul and its
requantization.
"""

from xdsl.context import Context
from xdsl.dialects import func, tensor
from xdsl.dialects.builtin import AffineMapAttr, IndexType, IntegerType, ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.backends.riscv.schedule.tabulated_elementwise import elementwise_generic, pointwise


def _reads_contraction(op: linalg.GenericOp) -> bool:
    return any(isinstance(v.owner, linalg.GenericOp)
               and any(it.data == linalg.IteratorType.REDUCTION for it in v.owner.iterator_types.data)
               for v in op.inputs)


def _integer_body(op: linalg.GenericOp) -> bool:
    """Whether every value `op`'s body computes is an integer or an index (float islands stay
    apart: the register allocator does not spill float values)."""
    block = op.body.block
    values = [*block.args, *(r for body_op in block.ops for r in body_op.results)]
    return all(isinstance(v.type, IntegerType | IndexType) for v in values)


def _fusable_producer(consumer: linalg.GenericOp) -> int | None:
    """The position of an input of `consumer` that can be computed inside it (module docstring)."""
    if not _integer_body(consumer):
        return None
    shape = consumer.res[0].type.get_shape()
    for k, (operand, affine_map) in enumerate(zip(consumer.inputs, consumer.indexing_maps.data, strict=False)):
        producer = operand.owner
        if (elementwise_generic(producer) and _integer_body(producer) and operand.has_one_use()
                and operand.type.get_shape() == shape and pointwise(affine_map.data, shape) and not _reads_contraction(producer)
                and not _reads_contraction(consumer)):
            return k
    return None


def fuse(consumer: linalg.GenericOp, position: int) -> linalg.GenericOp:
    """`consumer` computing its input `position` itself (module docstring); both erased."""
    producer = consumer.inputs[position].owner
    maps = [m.data for m in consumer.indexing_maps.data]
    inputs: list[tuple[SSAValue, object]] = []
    for k, (value, affine_map) in enumerate(zip(consumer.inputs, maps, strict=False)):
        if k != position:
            inputs.append((value, affine_map))
    for value, affine_map in zip(producer.inputs, producer.indexing_maps.data, strict=False):
        if (value, affine_map.data) not in inputs:
            inputs.append((value, affine_map.data))
    output_element = consumer.body.block.args[-1].type
    block = Block(arg_types=[v.type.element_type for v, _ in inputs] + [output_element])
    argument = {entry: arg for entry, arg in zip(inputs, block.args, strict=False)}
    mapping: dict[SSAValue, SSAValue] = {
        old: argument[(value, affine_map.data)]
        for old, value, affine_map in zip(producer.body.block.args, producer.inputs, producer.indexing_maps.data,
                                          strict=False)
    }
    for op in producer.body.block.ops:
        if isinstance(op, linalg.YieldOp):
            produced = mapping[op.operands[0]]
            continue
        block.add_op(op.clone(value_mapper=mapping))
    mapping = {old: argument[(value, affine_map)]
               for k, (old, value, affine_map) in enumerate(zip(consumer.body.block.args, consumer.inputs, maps,
                                                                 strict=False)) if k != position}
    mapping[consumer.body.block.args[position]] = produced
    mapping[consumer.body.block.args[-1]] = block.args[-1]
    for op in consumer.body.block.ops:
        block.add_op(op.clone(value_mapper=mapping))
    fused = linalg.GenericOp(
        [v for v, _ in inputs], list(consumer.outputs), Region(block),
        [AffineMapAttr(m) for _, m in inputs] + [consumer.indexing_maps.data[-1]],
        consumer.iterator_types, [consumer.res[0].type])
    Rewriter.insert_op(fused, InsertPoint.before(consumer))
    consumer.res[0].replace_all_uses_with(fused.res[0])
    Rewriter.erase_op(consumer)
    init = producer.outputs[0]
    Rewriter.erase_op(producer)
    if isinstance(init.owner, tensor.EmptyOp) and not init.uses:
        Rewriter.erase_op(init.owner)
    return fused


def fuse_elementwise(function: func.FuncOp) -> None:
    """Every fusable producer computed inside its consumer (module docstring), repeatedly."""
    for op in list(function.walk()):
        if op.parent is None or not elementwise_generic(op):
            continue
        while (position := _fusable_producer(op)) is not None:
            op = fuse(op, position)


class BitfoldRiscvFuseElementwisePass(ModulePass):
    """Elementwise generics read by one elementwise generic are computed inside it (module
    docstring); on tensors, exact."""

    name = "bitfold-riscv-fuse-elementwise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.ops:
            if isinstance(function, func.FuncOp) and function.body.blocks:
                fuse_elementwise(function)
