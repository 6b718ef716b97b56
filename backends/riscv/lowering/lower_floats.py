"""`bitfold-riscv-lower-float`: f32 arith on targets with the F extension (rv32imf, rv64imfd), IEEE
binary32 per op, round to nearest even, never fused (no `fmadd`):

    addf subf mulf divf          fadd.s fsub.s fmul.s fdiv.s, rne (`float_instructions.py`)
    maximumf / minimumf          fmax.s / fmin.s, NaN-propagating (below)
    maxnumf / minnumf            fmax.s / fmin.s (a NaN operand gives the other: IEEE maximumNumber)
    negf, math.absf, copysign    fsgnjn.s x,x / fsgnjx.s x,x / fsgnj.s a,b
    cmpf                         feq/flt/fle (+ xor/and/or): xDSL's `LowerArithCmpf`, which is right
    select on f32                the integer select (`lower_integers.select_ops`) of the bits
    bitcast i32 <-> f32          fmv.w.x / fmv.x.w
    sitofp / uitofp from <= i32  fcvt.s.w / fcvt.s.wu, rne (a narrower unsigned value zero-extended first)
    fptosi / fptoui to <= i32    fcvt.w.s / fcvt.wu.s, rtz (toward zero, as MLIR defines them)
    constant                     li of the bits, fmv.w.x (zero: fmv.w.x from `zero`)

Shimmed xDSL 0.74 errors (its `convert-arith-to-riscv`): fptosi is `fcvt.w.s` with the dynamic
rounding mode (`frm`, round-to-nearest by default), not toward zero; maximumf / minimumf are
`fmax.s` / `fmin.s`, which return the other operand when one is NaN (IEEE 754-2008 maxNum), where
MLIR's maximumf returns NaN; add/sub/mul/div round by `frm`; uitofp, fptoui, bitcast and float
select are not lowered.

NaN: maximumf / minimumf give the canonical NaN 0x7FC00000 when an operand is NaN, as every F
instruction does; -0.0 < +0.0 for both (RISC-V's fmax.s, and IEEE 754-2019 maximum).

Any other op on a float (f64, f16, math.exp, ...) is refused in one line naming it."""

import functools
from dataclasses import dataclass
from math import isnan

from xdsl.backend.riscv.lowering.convert_arith_to_riscv import LowerArithCmpf, LowerArithNegf
from xdsl.context import Context
from xdsl.dialects import arith, math, riscv, rv32, rv64
from xdsl.dialects.builtin import AnyFloat, Float32Type, FloatAttr, IntegerAttr, ModuleOp, UnrealizedConversionCastOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.utils.bitwise_casts import convert_f32_to_u32
from xdsl.utils.exceptions import DiagnosticException

from bitfold.backends.riscv.lowering.float_instructions import (
    FAddSOp,
    FCvtSWOp,
    FCvtSWuOp,
    FCvtWSOp,
    FCvtWuSOp,
    FDivSOp,
    FMulSOp,
    FSubSOp,
)
from bitfold.backends.riscv.lowering.lower_integers import select_ops
from bitfold.backends.riscv.lowering.registers import (
    canonical_constant,
    load_immediate,
    sign_extend,
    target_bit_width,
    zero_extend,
)
from bitfold.dialects.xdsl_compat.dead_casts import erase_unused_casts

CANONICAL_NAN = 0x7FC00000
"""The quiet NaN every RISC-V F instruction returns for a NaN result."""
INFINITY_BITS = 0x7F800000
"""f32 bits above this (ignoring the sign) are NaN"""

FLOAT_DIALECTS = ("arith", "math")

ROUNDED = {arith.AddfOp: FAddSOp, arith.SubfOp: FSubSOp, arith.MulfOp: FMulSOp, arith.DivfOp: FDivSOp}


def is_float(type_) -> bool:
    return _is_float_class(type(type_))


@functools.cache
def _is_float_class(cls: type) -> bool:
    """`isinstance(x, AnyFloat)` by x's class, once per class: the isinstance test itself runs
    ABCMeta's check for each of AnyFloat's 18 types on every integer value."""
    return issubclass(cls, AnyFloat)


def to_register(value: SSAValue) -> tuple[list[Operation], SSAValue]:
    """`value` in a register: the register a cast made it from, else a cast to the register type
    of its type (f registers for floats). No cast of a cast: xDSL 0.74's
    `reconcile-unrealized-casts` fails on some chains of them across blocks (a hoisted constant)."""
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp) and isinstance(owner.inputs[0].type, riscv.RISCVRegisterType):
        return [], owner.inputs[0]
    register = riscv.Registers.UNALLOCATED_FLOAT if is_float(value.type) else riscv.Registers.UNALLOCATED_INT
    cast = UnrealizedConversionCastOp.get((value,), (register,))
    return [cast], cast.results[0]


def drop(ops: list[Operation]) -> None:
    """Erase ops built but never inserted (they hold uses of their operands)."""
    for op in reversed(ops):
        op.erase(safe_erase=False)


def is_number_constant(value: SSAValue) -> bool:
    """Whether `value` is a constant f32 that is not NaN (a clamp bound): an `arith.constant`,
    or what this pass or `soft_float.py` lowered one to (`li` of the bits, `fmv.w.x`, casts)."""
    owner = value.owner
    while isinstance(owner, UnrealizedConversionCastOp | riscv.FMvWXOp):
        owner = owner.operands[0].owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, FloatAttr):
        return not isnan(owner.value.value.data)
    if isinstance(owner, arith.ConstantOp | rv32.LiOp | rv64.LiOp):
        attribute = owner.value if isinstance(owner, arith.ConstantOp) else owner.immediate
        if isinstance(attribute, IntegerAttr):
            return attribute.value.data & 0x7FFFFFFF <= INFINITY_BITS
    return False


def nan_propagating(
    op: arith.MaximumfOp | arith.MinimumfOp, a: SSAValue, b: SSAValue
) -> tuple[list[Operation], SSAValue]:
    """maximumf / minimumf: fmax.s / fmin.s where both operands are numbers, else the canonical NaN:
    `select(feq(a, a) & feq(b, b), bits(fmax(a, b)), 0x7FC00000)`, without the test of an operand
    that is a constant number."""
    picked = (riscv.FMaxSOp if isinstance(op, arith.MaximumfOp) else riscv.FMinSOp)(a, b)
    tests = [riscv.FeqSOp(r, r) for r, v in ((a, op.lhs), (b, op.rhs)) if not is_number_constant(v)]
    if not tests:
        return [picked], picked.rd
    ops: list[Operation] = [picked, *tests]
    numbers = tests[0].rd
    if len(tests) == 2:
        ops.append(both := riscv.AndOp(tests[0], tests[1]))
        numbers = both.rd
    bits = riscv.FMvXWOp(picked)
    nan = load_immediate(CANONICAL_NAN, 32)
    select, result = select_ops(numbers, bits.rd, nan.results[0])
    back = riscv.FMvWXOp(result)
    return [*ops, bits, nan, *select, back], back.rd


@dataclass
class LowerFloatArith(RewritePattern):
    """The f32 ops of the module docstring."""

    xlen: int

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.dialect_name() not in FLOAT_DIALECTS or not any(is_float(v.type) for v in (*op.operands, *op.results)):
            return
        if isinstance(op, arith.CmpfOp | arith.NegfOp):
            return  # xDSL's patterns (BitfoldRiscvLowerFloatPass)
        casts, registers = [], []
        for operand in op.operands:
            cast, register = to_register(operand)
            casts += cast
            registers.append(register)
        lowered = self._lower(op, registers)
        if lowered is None:
            drop(casts)
            return
        ops, result = lowered
        back = UnrealizedConversionCastOp.get((result,), (op.results[0].type,))
        rewriter.replace(op, [*casts, *ops, back], [back.results[0]])

    def _lower(self, op: Operation, x: list[SSAValue]) -> tuple[list[Operation], SSAValue] | None:
        xlen = self.xlen
        match op:
            case arith.ConstantOp(value=FloatAttr() as value) if isinstance(op.result.type, Float32Type):
                bits = canonical_constant(convert_f32_to_u32(value.value.data), 32)
                li = load_immediate(bits, xlen)
                move = riscv.FMvWXOp(li.results[0])
                return [li, move], move.rd
            case arith.AddfOp() | arith.SubfOp() | arith.MulfOp() | arith.DivfOp():
                new = ROUNDED[type(op)](x[0], x[1])
                return [new], new.rd
            case arith.MaximumfOp() | arith.MinimumfOp():
                return nan_propagating(op, x[0], x[1])
            case arith.MaxnumfOp() | arith.MinnumfOp():
                new = (riscv.FMaxSOp if isinstance(op, arith.MaxnumfOp) else riscv.FMinSOp)(x[0], x[1])
                return [new], new.rd
            case math.AbsFOp():
                new = riscv.FSgnJXSOp(x[0], x[0], comment="fabs.s")
                return [new], new.rd
            case math.CopySignOp():
                new = riscv.FSgnJSOp(x[0], x[1])
                return [new], new.rd
            case arith.SelectOp():
                moves = [riscv.FMvXWOp(x[1]), riscv.FMvXWOp(x[2])]
                ops, bits = select_ops(x[0], moves[0].rd, moves[1].rd)
                back = riscv.FMvWXOp(bits)
                return [*moves, *ops, back], back.rd
            case arith.BitcastOp() if is_float(op.result.type):
                new = riscv.FMvWXOp(x[0])
                return [new], new.rd
            case arith.BitcastOp():
                new = riscv.FMvXWOp(x[0])
                return [new], new.rd
            case arith.SIToFPOp() | arith.UIToFPOp() if isinstance(op.result.type, Float32Type):
                width = target_bit_width(op.operands[0].type, xlen)
                if width > 32:
                    return None
                ops, value = [], x[0]
                convert = FCvtSWOp
                if isinstance(op, arith.UIToFPOp):
                    ops, value = zero_extend(value, width, xlen)
                    convert = FCvtSWuOp if width == 32 else FCvtSWOp
                new = convert(value)
                return [*ops, new], new.rd
            case arith.FPToSIOp() | arith.FPToUIOp() if isinstance(op.operands[0].type, Float32Type):
                width = target_bit_width(op.result.type, xlen)
                if width > 32:
                    return None
                new = (FCvtWSOp if isinstance(op, arith.FPToSIOp) else FCvtWuSOp)(x[0], "rtz")
                ops, result = sign_extend(new.rd, width, xlen)
                return [new, *ops], result
        return None


def refuse_floats(module: ModuleOp, allowed: tuple[type, ...] = ()) -> None:
    """One line naming the first arith / math op on a float (other than the `allowed` types)."""
    for op in module.walk():
        if op.dialect_name() not in FLOAT_DIALECTS:
            continue
        if any(is_float(v.type) and not isinstance(v.type, allowed) for v in (*op.operands, *op.results)):
            types = ", ".join(str(v.type) for v in (*op.operands, *op.results))
            raise DiagnosticException(f"riscv: no lowering for {op.name} ({types}) on this target")


@dataclass(frozen=True)
class BitfoldRiscvLowerFloatPass(ModulePass):
    """f32 arith to F instructions (module docstring); any float op left is an error."""

    name = "bitfold-riscv-lower-float"

    xlen: int = 64

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refuse_floats(op, allowed=(Float32Type,))
        patterns = [LowerFloatArith(self.xlen), LowerArithCmpf(), LowerArithNegf()]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns), apply_recursively=False).rewrite_module(op)
        erase_unused_casts(op)
        refuse_floats(op)
