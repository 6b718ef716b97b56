"""`rvbound`: min / max without Zbb as a short forward branch, the result in its operand's register.

RV32IM / RV64IM have no `min` or `max`. gcc and clang lower one at -O2 as a conditional move over
a branch, and so do these ops: `rvbound.max %x, %b` is

    bge  x, b, 1f        # x >= b: x is the maximum already
    mv   x, b
    1:

executed: 1 instruction where x is kept, 2 where b is taken (a branch-free select costs `slt`
and 4 more, with the bound in a register as here). `min` compares the other way (`bge b, x`),
`maxu` / `minu` with `bgeu` (the unsigned order of the registers). The result is x's register
(an `inout` register constraint): `LoopAwareAllocator` gives the operand the result's register
where the op is the operand's last use, else a copy (`mv`) before the op takes it. A bound of 0
is read from `zero`. The label is GNU as's numeric local label: `1f` is the next `1:`, so every op
reuses the same label name.
"""

from abc import ABC
from typing import ClassVar

from xdsl.backend.assembly_printer import AssemblyPrinter
from xdsl.backend.register_allocatable import RegisterConstraints
from xdsl.dialects.riscv.abstract_ops import (
    AssemblyInstructionArg,
    IntRegisterType,
    RISCVInstruction,
    assembly_arg_str,
)
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure

LABEL = "1"
"""The numeric local label every op branches to (`1f`: the next `1:` below)."""


class BranchBoundOperation(RISCVInstruction, ABC):
    """`rd = op(rs, bound)`, rd in rs's register: `<branch> <first>, <second>, 1f; mv rd, bound; 1:`
    with (first, second) = (rs, bound) for a max, (bound, rs) for a min."""

    rs = operand_def(IntRegisterType)
    bound = operand_def(IntRegisterType)
    rd = result_def(IntRegisterType)

    traits = traits_def(Pure())

    BRANCH: ClassVar[str]
    """the branch taken where rs is kept"""
    KEEPS_GREATER: ClassVar[bool]
    """a max (rs kept where rs >= bound) or a min (where bound >= rs)"""

    def __init__(self, rs: Operation | SSAValue, bound: Operation | SSAValue, *, rd: IntRegisterType | None = None):
        super().__init__(operands=[rs, bound], result_types=[rd or SSAValue.get(rs).type])

    def get_register_constraints(self) -> RegisterConstraints:
        return RegisterConstraints((self.bound,), (), ((self.rs, self.rd),))

    def assembly_line_args(self) -> tuple[AssemblyInstructionArg, ...]:
        return self.rd, self.rs, self.bound

    def assembly_line(self) -> str | None:
        first, second = (self.rs, self.bound) if self.KEEPS_GREATER else (self.bound, self.rs)
        compare = f"{assembly_arg_str(first)}, {assembly_arg_str(second)}, {LABEL}f"
        move = f"{assembly_arg_str(self.rd)}, {assembly_arg_str(self.bound)}"
        return "\n".join(
            (
                AssemblyPrinter.assembly_line(self.BRANCH, compare, self.comment),
                AssemblyPrinter.assembly_line("mv", move),
                f"{LABEL}:",
            )
        )


@irdl_op_definition
class MaxOp(BranchBoundOperation):
    """Signed maximum: `bge rs, bound, 1f; mv rd, bound; 1:`."""

    name = "rvbound.max"
    BRANCH: ClassVar[str] = "bge"
    KEEPS_GREATER: ClassVar[bool] = True


@irdl_op_definition
class MinOp(BranchBoundOperation):
    """Signed minimum: `bge bound, rs, 1f; mv rd, bound; 1:`."""

    name = "rvbound.min"
    BRANCH: ClassVar[str] = "bge"
    KEEPS_GREATER: ClassVar[bool] = False


@irdl_op_definition
class MaxUOp(BranchBoundOperation):
    """Unsigned maximum: `bgeu rs, bound, 1f; mv rd, bound; 1:`."""

    name = "rvbound.maxu"
    BRANCH: ClassVar[str] = "bgeu"
    KEEPS_GREATER: ClassVar[bool] = True


@irdl_op_definition
class MinUOp(BranchBoundOperation):
    """Unsigned minimum: `bgeu bound, rs, 1f; mv rd, bound; 1:`."""

    name = "rvbound.minu"
    BRANCH: ClassVar[str] = "bgeu"
    KEEPS_GREATER: ClassVar[bool] = False


RvBound = Dialect("rvbound", [MaxOp, MinOp, MaxUOp, MinUOp], [])
"""Min / max as a forward branch over a move (module docstring)."""
