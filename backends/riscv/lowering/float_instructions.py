"""F-extension instructions with a static rounding mode, which xDSL 0.74's riscv ops lack.

xDSL's `riscv.fadd.s`, `fsub.s`, `fmul.s`, `fdiv.s`, `fcvt.s.w`, `fcvt.w.s` print without a
rounding-mode operand, so they round by the dynamic mode in `frm`. Its reset value is
round-to-nearest-even, but any code that ran before the kernel may have changed it; and
`arith.fptosi` (what `convert-arith-to-riscv` makes `fcvt.w.s`) must truncate toward zero, which
`frm` never gives by default. The ops here are the same instructions with the rounding mode
written out (`fadd.s ft0, ft1, ft2, rne`), so the result is the IEEE binary32 result the
interpreter computes, whatever `frm` holds:

    rvfloat.fadd.s / fsub.s / fmul.s / fdiv.s     rne (never fused: no fmadd is ever emitted)
    rvfloat.fcvt.s.w / fcvt.s.wu                  rne (exact below 2^24, else rounded to even)
    rvfloat.fcvt.w.s / fcvt.wu.s {rounding}       rtz (fptosi/fptoui), or rne/rdn/rup

Soft float (targets without F) calls libgcc's routines through two ops:

    rvfloat.libcall {callee}   a call as one instruction for the register allocator: register
                               operands (the routine's arguments), one register result;
                               `bitfold-riscv-expand-calls` (`soft_float_calls.py`) replaces it
                               after allocation by saves, moves to a0/a1, the call, restores
    rvfloat.call {callee}      `call symbol` (jal ra through the PLT-free near call)

`tests/backends/riscv/test_float_codegen.py` assembles them.
"""

from xdsl.backend.assembly_printer import AssemblyPrinter
from xdsl.dialects.builtin import StringAttr
from xdsl.dialects.riscv.abstract_ops import (
    AssemblyInstructionArg,
    FloatRegisterType,
    IntRegisterType,
    LabelAttr,
    RdRsFloatOperation,
    RdRsIntegerOperation,
    RdRsRsFloatOperation,
    Registers,
    RISCVCustomFormatOperation,
    RISCVInstruction,
    assembly_arg_str,
)
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import attr_def, irdl_op_definition, opt_attr_def, result_def, traits_def, var_operand_def
from xdsl.traits import Pure

ROUNDING_MODES = ("rne", "rtz", "rdn", "rup")
"""IEEE roundings RISC-V encodes statically: to nearest even, toward zero, down (floor), up (ceil)."""


def _with_rounding(op: Operation, mode: str) -> str | None:
    args = ", ".join(assembly_arg_str(arg) for arg in op.assembly_line_args())
    return AssemblyPrinter.assembly_line(op.assembly_instruction_name(), f"{args}, {mode}", op.comment)


class _RoundedBinary(RdRsRsFloatOperation[FloatRegisterType, FloatRegisterType]):
    """`<op>.s rd, rs1, rs2, rne`."""

    traits = traits_def(Pure())

    def assembly_line(self) -> str | None:
        return _with_rounding(self, "rne")


@irdl_op_definition
class FAddSOp(_RoundedBinary):
    """f[rd] = f[rs1] + f[rs2], rounded to nearest even."""

    name = "rvfloat.fadd.s"


@irdl_op_definition
class FSubSOp(_RoundedBinary):
    """f[rd] = f[rs1] - f[rs2], rounded to nearest even."""

    name = "rvfloat.fsub.s"


@irdl_op_definition
class FMulSOp(_RoundedBinary):
    """f[rd] = f[rs1] * f[rs2], rounded to nearest even."""

    name = "rvfloat.fmul.s"


@irdl_op_definition
class FDivSOp(_RoundedBinary):
    """f[rd] = f[rs1] / f[rs2], rounded to nearest even."""

    name = "rvfloat.fdiv.s"


class _IntegerToFloat(RdRsFloatOperation[IntRegisterType]):
    traits = traits_def(Pure())

    def assembly_line(self) -> str | None:
        return _with_rounding(self, "rne")


@irdl_op_definition
class FCvtSWOp(_IntegerToFloat):
    """f[rd] = the signed 32-bit x[rs1], rounded to nearest even."""

    name = "rvfloat.fcvt.s.w"


@irdl_op_definition
class FCvtSWuOp(_IntegerToFloat):
    """f[rd] = the unsigned 32-bit x[rs1], rounded to nearest even."""

    name = "rvfloat.fcvt.s.wu"


class _FloatToInteger(RdRsIntegerOperation[FloatRegisterType]):
    """`fcvt.w[u].s rd, rs, <rounding>`: out-of-range values and NaN saturate (RISC-V)."""

    rounding = attr_def(StringAttr)

    traits = traits_def(Pure())

    def __init__(
        self, rs: Operation | SSAValue, rounding: str = "rtz", *, rd: IntRegisterType = Registers.UNALLOCATED_INT
    ):
        if rounding not in ROUNDING_MODES:
            raise ValueError(f"rounding mode {rounding!r} (one of {', '.join(ROUNDING_MODES)})")
        super().__init__(rs, rd=rd)
        self.attributes["rounding"] = StringAttr(rounding)

    def assembly_line(self) -> str | None:
        return _with_rounding(self, self.rounding.data)


@irdl_op_definition
class FCvtWSOp(_FloatToInteger):
    """x[rd] = sext(the signed 32-bit integer f[rs1] rounds to)."""

    name = "rvfloat.fcvt.w.s"


@irdl_op_definition
class FCvtWuSOp(_FloatToInteger):
    """x[rd] = sext(the unsigned 32-bit integer f[rs1] rounds to)."""

    name = "rvfloat.fcvt.wu.s"


@irdl_op_definition
class LibcallOp(RISCVCustomFormatOperation, RISCVInstruction):
    """`rd = callee(arguments...)` for a libgcc routine taking and returning integer registers
    (soft float: f32 bits, ints). Pure: the routines read and write no memory."""

    name = "rvfloat.libcall"

    arguments = var_operand_def(IntRegisterType)
    rd = result_def(IntRegisterType)
    callee = attr_def(StringAttr)
    comment = opt_attr_def(StringAttr)

    traits = traits_def(Pure())

    def __init__(self, callee: str, arguments: list[SSAValue], *, rd: IntRegisterType = Registers.UNALLOCATED_INT):
        super().__init__(operands=[arguments], result_types=[rd], attributes={"callee": StringAttr(callee)})

    def assembly_line_args(self) -> tuple[AssemblyInstructionArg, ...]:
        return (self.rd, *self.arguments)


@irdl_op_definition
class CallOp(RISCVCustomFormatOperation, RISCVInstruction):
    """`call symbol`: ra = the return address, pc = symbol (clobbers every caller-saved register)."""

    name = "rvfloat.call"

    immediate = attr_def(LabelAttr)
    comment = opt_attr_def(StringAttr)

    def __init__(self, symbol: str):
        super().__init__(attributes={"immediate": LabelAttr(symbol)})

    def assembly_instruction_name(self) -> str:
        return "call"

    def assembly_line_args(self) -> tuple[AssemblyInstructionArg, ...]:
        return (self.immediate,)


RvFloat = Dialect(
    "rvfloat", [FAddSOp, FSubSOp, FMulSOp, FDivSOp, FCvtSWOp, FCvtSWuOp, FCvtWSOp, FCvtWuSOp, LibcallOp, CallOp], []
)
