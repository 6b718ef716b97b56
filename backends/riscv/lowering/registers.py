"""How integer values sit in RISC-V registers, and the few instruction sequences that keep them
there. Every shim of the code generator follows this one convention:

- a value of type `iN` (2 <= N <= XLEN) is held sign-extended from bit N-1 to XLEN bits (the
  RV64 ABI's rule for `int`, applied to every width), so `and`/`or`/`xor`, `slt`, `sltu`, `sra`,
  `beq`/`blt` work unchanged on any width;
- `i1` is held as 0 or 1 (what `slt`/`sltu` produce);
- `index` is XLEN bits (a pointer-sized integer).

The code may use `INTEGER_REGISTERS`; the others are zero, ra, sp, gp and tp.
"""

from xdsl.dialects import riscv, rv32, rv64
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.dialects.riscv.ops import AddiwOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import DiagnosticException

INTEGER_REGISTERS = (*riscv.Registers.T, *riscv.Registers.A, *riscv.Registers.S)
"""The allocatable integer registers in order of preference: t0..t6, a0..a7, s0..s11."""

ALLOCATABLE_INTEGER_REGISTERS = len(INTEGER_REGISTERS)
"""27: the register budget of the tile planner and the allocator unless restricted."""

ANDI_MAX_MASK_BITS = 11
"""`andi` takes a 12-bit signed immediate: masks up to 2**11 - 1 fit."""


class UnsupportedWidth(DiagnosticException):
    """An integer type the target cannot hold in one register."""


def target_bit_width(type_: Attribute, xlen: int) -> int:
    """Bits of an integer or index type on a target with XLEN-bit registers."""
    if isinstance(type_, IndexType):
        return xlen
    if isinstance(type_, IntegerType):
        width = type_.width.data
        if width > xlen:
            raise UnsupportedWidth(f"i{width} values are not supported on rv{xlen}")
        return width
    raise UnsupportedWidth(f"{type_} values are not supported by the RISC-V backend")


def load_immediate(value: int, xlen: int) -> Operation:
    """`li rd, value` (value already sign-extended to the register convention)."""
    if -(2**31) <= value < 2**31:
        return rv32.LiOp(value)
    return rv64.LiOp(value)


def canonical_constant(value: int, width: int) -> int:
    """An N-bit integer constant as it sits in a register: 0/1 for i1, else sign-extended."""
    value &= (1 << width) - 1
    if width == 1:
        return value
    return value - (1 << width) if value >> (width - 1) else value


def shift_left(x: SSAValue, amount: int, xlen: int) -> Operation:
    return (rv32.SlliOp if xlen == 32 else rv64.SlliOp)(x, amount)


def shift_right_arithmetic(x: SSAValue, amount: int, xlen: int) -> Operation:
    return (rv32.SraiOp if xlen == 32 else rv64.SraiOp)(x, amount)


def shift_right_logical(x: SSAValue, amount: int, xlen: int) -> Operation:
    return (rv32.SrliOp if xlen == 32 else rv64.SrliOp)(x, amount)


def sign_extend(x: SSAValue, width: int, xlen: int) -> tuple[list[Operation], SSAValue]:
    """Instructions bringing the low `width` bits of x to the register convention."""
    if width >= xlen:
        return [], x
    if width == 1:
        op = riscv.AndiOp(x, 1)
        return [op], op.rd
    if width == 32:
        op = AddiwOp(x, 0, comment="sext.w")
        return [op], op.rd
    left = shift_left(x, xlen - width, xlen)
    right = shift_right_arithmetic(left.results[0], xlen - width, xlen)
    return [left, right], right.results[0]


def zero_extend(x: SSAValue, width: int, xlen: int) -> tuple[list[Operation], SSAValue]:
    """Instructions leaving the low `width` bits of x, zero-extended."""
    if width >= xlen or width == 1:
        return [], x
    if width <= ANDI_MAX_MASK_BITS:
        op = riscv.AndiOp(x, (1 << width) - 1)
        return [op], op.rd
    left = shift_left(x, xlen - width, xlen)
    right = shift_right_logical(left.results[0], xlen - width, xlen)
    return [left, right], right.results[0]


IMMEDIATE_MIN, IMMEDIATE_MAX = -(2**11), 2**11 - 1
"""The 12-bit signed immediates of addi, loads and stores."""


def fits_immediate(value: int) -> bool:
    return IMMEDIATE_MIN <= value <= IMMEDIATE_MAX


def add_constant(base: SSAValue, amount: int) -> tuple[list[Operation], SSAValue]:
    """base + amount in registers (|amount| < 2**31 - 2**11): `addi` for a 12-bit signed amount,
    else `lui` (+ `addi`) of |amount| and `add` or `sub`. Not `li` + `add`: xDSL 0.74's
    canonicalization turns `add x, (li c)` into `addi x, c` whatever c, which fails beyond 12
    bits; and `lui` takes 0..2**20-1 only, hence `sub` for negative amounts."""
    if amount == 0:
        return [], base
    if fits_immediate(amount):
        op = riscv.AddiOp(base, amount)
        return [op], op.rd
    magnitude = abs(amount)
    upper = (magnitude + 2**11) >> 12
    ops: list[Operation] = [riscv.LuiOp(upper)]
    if lower := magnitude - (upper << 12):
        ops.append(riscv.AddiOp(ops[-1].results[0], lower))
    ops.append((riscv.AddOp if amount > 0 else riscv.SubOp)(base, ops[-1].results[0]))
    return ops, ops[-1].results[0]
