"""An op's operands as registers, without the casts `reconcile-unrealized-casts` would remove.

xDSL's lowerings (`cast_operands_to_regs`, `LowerBinaryIntegerOp`) put a cast to a register type
before every operand that is not one: where the operand is itself the cast of an earlier lowering
back from that register type (`%x = riscv.add ...; %v = cast %x : !riscv.reg to i32`), the pair
`!riscv.reg -> i32 -> !riscv.reg` is made only for `reconcile-unrealized-casts` to replace the
second cast's uses by %x again (about 12,000 of MobileNetV1's 15,000 casts). `operand_registers`
takes %x at once: the same registers after reconciliation, two casts fewer (and the first one
erased once nothing uses it, as reconciliation would)."""

from xdsl.backend.register_type import RegisterType
from xdsl.backend.riscv.lowering.utils import register_type_for_type
from xdsl.dialects.builtin import UnrealizedConversionCastOp
from xdsl.dialects.riscv import RISCVRegisterType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

_UNALLOCATED: dict[Attribute, RISCVRegisterType] = {}
"""type -> the unallocated register of its `register_type_for_type` (made once: a register type
is an attribute, built and checked by IRDL at each `unallocated()`)"""


def unallocated_register(type_: Attribute) -> RISCVRegisterType:
    """`register_type_for_type(type_).unallocated()`."""
    register = _UNALLOCATED.get(type_)
    if register is None:
        register = _UNALLOCATED[type_] = register_type_for_type(type_).unallocated()
    return register


def held_register(value: SSAValue, register: RISCVRegisterType) -> SSAValue | None:
    """The value of type `register` that `value` is a cast of (one input, one result), else None."""
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp):
        inputs = owner.operands
        if len(inputs) == 1 and inputs[0].type == register:
            return inputs[0]
    return None


def operand_registers(rewriter: PatternRewriter, op: Operation) -> list[SSAValue]:
    """`op`'s operands in registers, as `cast_operands_to_regs` gives them after reconciliation:
    a register operand itself, a cast of an unallocated register of the operand's register type
    (`register_type_for_type`) that register, any other a new cast inserted before `op`."""
    registers: list[SSAValue] = []
    for value in op.operands:
        if isinstance(value.type, RegisterType):
            registers.append(value)
            continue
        register = unallocated_register(value.type)
        held = held_register(value, register)
        if held is None:
            cast, held = UnrealizedConversionCastOp.cast_one(value, register)
            rewriter.insert(cast)
        registers.append(held)
    return registers
