"""Sub-byte outputs in the ABI's bytes (docs/riscv-abi.md: an i1..i7 output element is one byte, the
value sign-extended in it when its quantized type is signed, zero-extended otherwise).

A backend stores an `iN` value (N < 8) as a byte whose upper bits depend on it: LLVM zero-fills them
(`-4 : i4` becomes 0x0C), the RISC-V backend's `sb` keeps the register's sign extension (a u4 value 8,
`-8 : i4`, becomes 0xF8). So each sub-byte output argument of the bufferized function becomes a buffer
of `i8`, and every generic
writing it yields `extsi` (signed) or `extui` (unsigned, bipolar) of its `iN` value; a body reading the
output element reads `trunci` of the byte. The bytes are then the interpreter's values as the harness's
int8/uint8 arrays hold them.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IntegerType, MemRefType, ModuleOp, i8
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import BlockArgument
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from bitfold.dialects.quant import UniformQuantizedType
from bitfold.dialects.quant_type_attribute import QUANT_TYPE, recorded_quant_type


def signed(function: func.FuncOp, index: int) -> bool:
    """Whether argument `index`'s quantized type is signed (a bipolar type's 0/1 is not)."""
    qtype = recorded_quant_type(function.arg_attrs.data[index]) if function.arg_attrs else None
    if qtype is None:
        raise PassFailedException(f"sub-byte output @{function.sym_name.data} argument {index} has no {QUANT_TYPE}")
    return isinstance(qtype, UniformQuantizedType) and qtype.is_signed


def widen_writes(generic: GenericOp, argument: BlockArgument, extend: type, rewriter: Rewriter) -> None:
    """`generic` writes (or reads) the retyped `argument`: its element is a byte outside, `iN` inside."""
    block = generic.body.block
    for position, operand in enumerate(generic.operands):
        if operand is not argument:
            continue
        element = block.args[position]
        narrow = element.type
        wide = rewriter.replace_value_with_new_type(element, i8)
        truncated = arith.TruncIOp(wide, narrow)
        rewriter.insert_op(truncated, InsertPoint.at_start(block))
        for use in list(wide.uses):
            if use.operation is not truncated:
                use.operation.operands[use.index] = truncated.result
        if position >= len(generic.inputs):
            yielded = block.last_op.operands[position - len(generic.inputs)]
            extended = extend(yielded, i8)
            rewriter.insert_op(extended, InsertPoint.before(block.last_op))
            block.last_op.operands[position - len(generic.inputs)] = extended.result


def widen_sub_byte_outputs(function: func.FuncOp) -> None:
    """Every generic-written argument of i1..i7 elements becomes a buffer of i8 (module docstring)."""
    rewriter = Rewriter()
    for index, argument in enumerate(list(function.args)):
        memref_type = argument.type
        element = memref_type.element_type if isinstance(memref_type, MemRefType) else None
        writers = [u.operation for u in argument.uses if isinstance(u.operation, GenericOp)
                   and argument in u.operation.outputs]
        if not isinstance(element, IntegerType) or element.width.data >= 8 or not writers:
            continue
        if any(not isinstance(u.operation, GenericOp) for u in argument.uses):
            raise PassFailedException(f"sub-byte output argument {index} of @{function.sym_name.data} is used "
                                 "outside linalg.generic")
        extend = arith.ExtSIOp if signed(function, index) else arith.ExtUIOp
        wide = rewriter.replace_value_with_new_type(argument, MemRefType(i8, memref_type.get_shape()))
        for generic in {u.operation for u in wide.uses}:
            widen_writes(generic, wide, extend, rewriter)
    function.update_function_type()


@dataclass(frozen=True)
class WidenSubByteOutputsPass(ModulePass):
    """`widen_sub_byte_outputs` on every function with a body (module docstring)."""

    name = "widen-sub-byte-outputs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.ops:
            if isinstance(function, func.FuncOp) and function.body.blocks:
                widen_sub_byte_outputs(function)
