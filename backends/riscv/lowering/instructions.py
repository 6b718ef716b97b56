"""RISC-V instructions the code generator needs that xDSL 0.74 lacks or prints wrongly.

- `riscv.lb`, `riscv.lbu`, `riscv.lh`, `riscv.lhu`, `riscv.sb`, `riscv.sh` print as
  `lb a0, a1, 0`; GNU as and llvm-mc want `lb a0, 0(a1)` (only `lw`/`sw` override the
  printer). The ops here are the same instructions with the `offset(base)` operand form.
- `lwu` (RV64: load a word, zero-extended) is missing.
- An address of a symbol: xDSL materializes `memref.get_global` as `li a0, symbol`, which both
  assemblers reject (`li` takes a constant); `la` is the pseudo-instruction for it.

`tests/backends/riscv/test_codegen_shims.py` assembles xDSL's forms and these.
"""

from xdsl.backend.assembly_printer import AssemblyPrinter
from xdsl.dialects.builtin import StringAttr
from xdsl.dialects.riscv.abstract_ops import (
    AssemblyInstructionArg,
    IntRegisterType,
    LabelAttr,
    RdRsImmIntegerOperation,
    Registers,
    RISCVCustomFormatOperation,
    RISCVInstruction,
    RsRsImmIntegerOperation,
    assembly_arg_str,
)
from xdsl.ir import Dialect, Operation
from xdsl.irdl import attr_def, irdl_op_definition, opt_attr_def, result_def, traits_def
from xdsl.traits import MemoryEffect, MemoryWriteEffect, Pure


class UnknownMemoryEffect(MemoryEffect):
    """Effects that passes must assume unknown (`get_effects` is None): nothing moves, merges
    or removes the op."""

    @classmethod
    def get_effects(cls, op: Operation) -> None:
        return None


class _LoadOperation(RdRsImmIntegerOperation):
    """`<instruction> rd, offset(rs1)`.

    Unknown memory effects (`UnknownMemoryEffect`): CSE and LICM leave loads where the code
    generator put them. xDSL's `RegisterAllocatedMemoryEffect`, inherited from
    `RISCVInstruction`, declares no effect before allocation, so CSE would merge loads across
    stores; `bitfold-riscv-register-tiled-loops` places and shares loads on purpose, and merging a
    sliding window's reloads would keep them all live."""

    traits = traits_def(UnknownMemoryEffect())

    def assembly_line(self) -> str | None:
        args = f"{assembly_arg_str(self.rd)}, {assembly_arg_str(self.immediate)}({assembly_arg_str(self.rs1)})"
        return AssemblyPrinter.assembly_line(self.assembly_instruction_name(), args, self.comment)


class _StoreOperation(RsRsImmIntegerOperation):
    """`<instruction> rs2, offset(rs1)`."""

    traits = traits_def(MemoryWriteEffect())

    def assembly_line(self) -> str | None:
        args = f"{assembly_arg_str(self.rs2)}, {assembly_arg_str(self.immediate)}({assembly_arg_str(self.rs1)})"
        return AssemblyPrinter.assembly_line(self.assembly_instruction_name(), args, self.comment)


@irdl_op_definition
class LbOp(_LoadOperation):
    """Load a byte, sign-extended: `x[rd] = sext(M[x[rs1] + offset][7:0])`."""

    name = "rvmem.lb"


@irdl_op_definition
class LbuOp(_LoadOperation):
    """Load a byte, zero-extended: `x[rd] = M[x[rs1] + offset][7:0]`."""

    name = "rvmem.lbu"


@irdl_op_definition
class LhOp(_LoadOperation):
    """Load a half word, sign-extended."""

    name = "rvmem.lh"


@irdl_op_definition
class LhuOp(_LoadOperation):
    """Load a half word, zero-extended."""

    name = "rvmem.lhu"


@irdl_op_definition
class LwOp(_LoadOperation):
    """Load a word, sign-extended to XLEN (RV32 and RV64)."""

    name = "rvmem.lw"


@irdl_op_definition
class LwuOp(_LoadOperation):
    """RV64: load a word, zero-extended."""

    name = "rvmem.lwu"


@irdl_op_definition
class LdOp(_LoadOperation):
    """RV64: load a double word."""

    name = "rvmem.ld"


@irdl_op_definition
class SbOp(_StoreOperation):
    """Store the low byte of rs2."""

    name = "rvmem.sb"


@irdl_op_definition
class ShOp(_StoreOperation):
    """Store the low half word of rs2."""

    name = "rvmem.sh"


@irdl_op_definition
class SwOp(_StoreOperation):
    """Store the low word of rs2."""

    name = "rvmem.sw"


@irdl_op_definition
class SdOp(_StoreOperation):
    """RV64: store a double word."""

    name = "rvmem.sd"


@irdl_op_definition
class LaOp(RISCVCustomFormatOperation, RISCVInstruction):
    """The address of a symbol: `la rd, symbol` (`auipc` + `addi`, position independent)."""

    name = "rvmem.la"

    rd = result_def(IntRegisterType)
    immediate = attr_def(LabelAttr)
    comment = opt_attr_def(StringAttr)

    traits = traits_def(Pure())

    def __init__(self, symbol: str, *, rd: IntRegisterType = Registers.UNALLOCATED_INT):
        super().__init__(result_types=[rd], attributes={"immediate": LabelAttr(symbol)})

    def assembly_line_args(self) -> tuple[AssemblyInstructionArg, ...]:
        return self.rd, self.immediate


LOADS = {(8, True): LbOp, (8, False): LbuOp, (16, True): LhOp, (16, False): LhuOp, (32, True): LwOp, (32, False): LwuOp}
"""(bits, sign-extending) -> load instruction; 64-bit loads are `ld`."""

STORES = {8: SbOp, 16: ShOp, 32: SwOp, 64: SdOp}

RvMem = Dialect("rvmem", [LbOp, LbuOp, LhOp, LhuOp, LwOp, LwuOp, LdOp, SbOp, ShOp, SwOp, SdOp, LaOp], [])
