"""`bitfold-riscv-lower-arith`: integer `arith` to RV32IM / RV64IM instructions, for every width
from i1 to XLEN, under the register convention of `bitfold.backends.riscv.lowering.registers`.

The ops xDSL 0.74's `convert-arith-to-riscv` lowers correctly (`addi`/`subi`/`muli`/`divsi`/
`remsi`... on XLEN-wide types and `andi`/`ori`/`xori`/`shrsi` on any width) become the same one
instruction its `LowerBinaryIntegerOp` makes (`XDSL_BINARY`); here, as for every op of this pass,
an operand already held in a register by an earlier lowering is taken as that register, not as a
cast of its cast back (`register_operands.py`: the pairs `reconcile-unrealized-casts` would remove
are not made). xDSL's pass runs afterwards for what is left (floats). What it does not cover:

- `arith.extsi`, `arith.extui`, `arith.trunci`, `arith.index_cast`: not lowered by xDSL;
  a `trunci` whose value is only stored by a store no wider than it costs nothing (`_only_stored`),
  and so does one of a population count (`_small_count`: at most 64);
- `arith.select`, `arith.maxsi`/`minsi`/`maxui`/`minui`: xDSL raises NotImplementedError;
  with Zbb (`zbb`) a min/max is one `max`/`min`/`maxu`/`minu` (`ZBB_BOUNDS`), without it a
  bound by a constant whose result no loop carries (`_clamp`) is a forward branch over a move
  (`BRANCH_BOUNDS`, `branch_bounds.py`: 1-2 executed instructions), any other `slt`/`sltu` and a
  branch-free select, as a select is;
- `arith.mulsi_extended` / `arith.mului_extended`: not lowered (`mul` + `mulh`/`mulhu`, `mulh`
  alone where the low word is not read, or one `mul` and a shift when the full product fits a
  register);
- `arith.cmpi`: xDSL maps predicates 4..9 as if they were ult, ule, ugt, uge, ... (MLIR's order
  is eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge): `sgt` becomes `sltu`. Lowered here in full;
- `addi`/`subi`/`muli`/`shli`/`shrui` narrower than XLEN: xDSL's full-width `add` leaves a
  result that is not sign-extended (on RV64 every i32 add); here the `*w` instructions on RV64
  for i32, else the full-width instruction and a re-extension;
- integer constants: xDSL's `li` of an i32 0xFFFFFFFF is not sign-extended on RV64, and i64
  constants raise NotImplementedError;
- `arith.floordivsi` (from `lower-affine` of maps such as a grouped Conv's `m floordiv 8`):
  not lowered by xDSL; an arithmetic shift for a constant power of two (exact floor
  division for every sign), else `div`/`rem` and the floor correction;
- `math.ctpop` on i32 (and i64 on RV64) with Zbb (`zbb`): `cpop`/`cpopw` (without,
  `bitfold-riscv-expand-ctpop` has made it arith, `population_count.py`).
"""

from dataclasses import dataclass

from xdsl.backend.riscv.lowering.convert_arith_to_riscv import (
    lower_arith_addi,
    lower_arith_andi,
    lower_arith_divsi,
    lower_arith_divui,
    lower_arith_muli,
    lower_arith_ori,
    lower_arith_remsi,
    lower_arith_remui,
    lower_arith_shli,
    lower_arith_shrsi,
    lower_arith_shrui,
    lower_arith_subi,
    lower_arith_xori,
)
from xdsl.context import Context
from xdsl.dialects import arith, math, riscv, riscv_scf, rv32, rv64, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp, UnrealizedConversionCastOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from bitfold.backends.riscv.lowering import branch_bounds
from bitfold.backends.riscv.lowering.instructions import SbOp, SdOp, ShOp, SwOp
from bitfold.backends.riscv.lowering.population_count import population_count
from bitfold.backends.riscv.lowering.register_operands import operand_registers
from bitfold.backends.riscv.lowering.registers import (
    canonical_constant,
    load_immediate,
    shift_right_arithmetic,
    sign_extend,
    target_bit_width,
    zero_extend,
)

_INTEGER_LIKE = (IntegerType, IndexType)

XDSL_BINARY = {pattern.arith_op_cls: pattern.riscv_op_cls for pattern in (
    lower_arith_addi, lower_arith_subi, lower_arith_muli, lower_arith_divui, lower_arith_divsi, lower_arith_remui,
    lower_arith_remsi, lower_arith_andi, lower_arith_ori, lower_arith_xori, lower_arith_shli, lower_arith_shrui,
    lower_arith_shrsi,
)}
"""xDSL's `LowerBinaryIntegerOp`s: arith op -> the one instruction it becomes, for the widths xDSL
lowers right (module docstring)"""

LOWERED = frozenset({
    math.CtPopOp, arith.ConstantOp, arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp, arith.IndexCastOp, arith.SelectOp,
    arith.MaxSIOp, arith.MinSIOp, arith.MaxUIOp, arith.MinUIOp, arith.CmpiOp, arith.FloorDivSIOp,
    arith.MulSIExtendedOp, arith.MulUIExtendedOp, *XDSL_BINARY,
})
"""the op types `LowerIntegerArith` may rewrite (the cases of its match): any other op, such as the
riscv ops and casts it makes, is passed over at one set lookup"""


def _replace(rewriter: PatternRewriter, op: Operation, ops: list[Operation], results: list[SSAValue]) -> None:
    """Replace `op` by `ops`, casting the registers `results` back to op's result types."""
    casts = [UnrealizedConversionCastOp.get((r,), (old.type,)) for r, old in zip(results, op.results, strict=True)]
    rewriter.replace(op, [*ops, *casts], [c.results[0] for c in casts])


def select_ops(condition: SSAValue, if_true: SSAValue, if_false: SSAValue) -> tuple[list[Operation], SSAValue]:
    """Branch-free select on a 0/1 condition: `f ^ ((t ^ f) & -c)`."""
    zero = rv32.GetRegisterOp(riscv.Registers.ZERO)
    mask = riscv.SubOp(zero, condition)
    diff = riscv.XorOp(if_true, if_false)
    picked = riscv.AndOp(diff, mask)
    result = riscv.XorOp(if_false, picked)
    return [zero, mask, diff, picked, result], result.rd


def _clamp(op: arith.MaxSIOp | arith.MinSIOp | arith.MaxUIOp | arith.MinUIOp) -> bool:
    """Whether `op` bounds a value by a constant and its result is not carried by a loop: the
    ops lowered as a branch over a move (`BRANCH_BOUNDS`). A min / max of two variables (a
    reduction's running maximum, its result carried around the loop in the accumulator's
    register) keeps the branch-free select: tying that result to an operand's register
    miscompiled Softmax's running maximum under qemu."""
    if _constant(op.lhs) is None and _constant(op.rhs) is None:
        return False
    return not any(isinstance(use.operation, scf.YieldOp | riscv_scf.YieldOp) for use in op.result.uses)


def _constant(value: SSAValue) -> int | None:
    """The integer an `arith.constant` (or the `li` it was lowered to) gives `value`."""
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp):
        owner = owner.inputs[0].owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    if isinstance(owner, rv32.LiOp | rv64.LiOp) and isinstance(owner.immediate, IntegerAttr):
        return owner.immediate.value.data
    return None


# MLIR's arith.cmpi predicates, in order
EQ, NE, SLT, SLE, SGT, SGE, ULT, ULE, UGT, UGE = range(10)


def compare_ops(predicate: int, lhs: SSAValue, rhs: SSAValue, width: int) -> tuple[list[Operation], SSAValue]:
    """0/1 of `lhs <predicate> rhs` for values in the register convention."""
    if width == 1 and predicate in (SLT, SLE, SGT, SGE):
        # i1 sits as 0/1 but 1 is -1 as a signed i1: signed order is the reverse unsigned order
        predicate = {SLT: UGT, SLE: UGE, SGT: ULT, SGE: ULE}[predicate]
    if predicate in (EQ, NE):
        diff = riscv.XorOp(lhs, rhs)
        if predicate == EQ:
            test = riscv.SltiuOp(diff, 1, comment="seqz")
            return [diff, test], test.rd
        zero = rv32.GetRegisterOp(riscv.Registers.ZERO)
        test = riscv.SltuOp(zero, diff, comment="snez")
        return [diff, zero, test], test.rd
    less = riscv.SltOp if predicate in (SLT, SLE, SGT, SGE) else riscv.SltuOp
    swapped = predicate in (SLE, SGT, ULE, UGT)  # a <= b is !(b < a); a > b is b < a
    negated = predicate in (SLE, SGE, ULE, UGE)
    test = less(rhs, lhs) if swapped else less(lhs, rhs)
    if not negated:
        return [test], test.rd
    flip = riscv.XoriOp(test, 1)
    return [test, flip], flip.rd


STORE_BITS = {SbOp: 8, ShOp: 16, SwOp: 32, SdOp: 64}


def _only_stored(value: SSAValue, width: int) -> bool:
    """Whether every use of `value` (through the casts to a register) is the stored value of an
    `sb`/`sh`/`sw`/`sd` of at most `width` bits: such a store writes the low bits only, so a
    truncation feeding nothing else needs no sign extension (a requantized i8 before its `sb`)."""
    uses = [u for use in value.uses for u in (
        [c for r in use.operation.results for c in r.uses] if isinstance(use.operation, UnrealizedConversionCastOp)
        else [use])]
    return bool(uses) and all(
        STORE_BITS.get(type(u.operation), width + 1) <= width and u.operation.operands[u.index] is u.operation.rs2
        for u in uses
    )


COUNT_BITS = 8
"""A population count of at most 64 bits is at most 64 < 2^7: it fits a signed integer of 8 bits."""


def _small_count(value: SSAValue, width: int) -> bool:
    """Whether `value` (through casts to and from registers) is a population count (`math.ctpop`,
    Zbb's `cpop`/`cpopw`), so already sign-extended from `width` >= COUNT_BITS bits."""
    owner = value.owner
    while isinstance(owner, UnrealizedConversionCastOp) and len(owner.inputs) == 1:
        owner = owner.inputs[0].owner
    return width >= COUNT_BITS and isinstance(owner, math.CtPopOp | riscv.CpopOp | riscv.CpopwOp)


ZBB_BOUNDS = {
    (arith.MaxSIOp, False): riscv.MaxOp, (arith.MinSIOp, False): riscv.MinOp,
    (arith.MaxUIOp, False): riscv.MaxUOp, (arith.MinUIOp, False): riscv.MinUOp,
    (arith.MaxSIOp, True): riscv.MinUOp, (arith.MinSIOp, True): riscv.MaxUOp,
    (arith.MaxUIOp, True): riscv.MaxUOp, (arith.MinUIOp, True): riscv.MinUOp,
}
"""Zbb's instruction for (an arith min/max, on i1): on sign-extended registers `max`/`min` are
the signed order and `maxu`/`minu` the unsigned one (sign extension from i<N> keeps the unsigned
order of N-bit values: [0, 2^(N-1)) stays below, [2^(N-1), 2^N) moves to the top in order); an
i1 is held as 0/1 (`registers.py`), where the signed order is the reverse unsigned order
(1 is -1), so its signed max is `minu` and its signed min `maxu`."""

BRANCH_BOUNDS = {
    (arith.MaxSIOp, False): branch_bounds.MaxOp, (arith.MinSIOp, False): branch_bounds.MinOp,
    (arith.MaxUIOp, False): branch_bounds.MaxUOp, (arith.MinUIOp, False): branch_bounds.MinUOp,
    (arith.MaxSIOp, True): branch_bounds.MinUOp, (arith.MinSIOp, True): branch_bounds.MaxUOp,
    (arith.MaxUIOp, True): branch_bounds.MaxUOp, (arith.MinUIOp, True): branch_bounds.MinUOp,
}
"""Without Zbb: the branch over a move (`branch_bounds.py`) in the order `ZBB_BOUNDS` uses; the
result takes the register of the operand that is not a constant (the bound stays in its own)."""


@dataclass
class LowerIntegerArith(RewritePattern):
    """The integer arith ops listed in the module docstring."""

    xlen: int
    zbb: bool = False

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if type(op) not in LOWERED:
            return
        xlen = self.xlen
        match op:
            case math.CtPopOp():
                bits = target_bit_width(op.operand.type, xlen)
                if not self.zbb or bits not in (32, xlen):
                    raise NotImplementedError(
                        f"math.ctpop on {op.operand.type} without Zbb (bitfold-riscv-expand-ctpop expands i32, i64)"
                    )
                (x,) = operand_registers(rewriter, op)
                count = population_count(x, xlen, bits)
                _replace(rewriter, op, [count], [count.results[0]])
            case arith.ConstantOp(value=IntegerAttr() as value) if isinstance(op.result.type, _INTEGER_LIKE):
                width = target_bit_width(op.result.type, xlen)
                li = load_immediate(canonical_constant(value.value.data, width), xlen)
                _replace(rewriter, op, [li], [li.results[0]])
            case arith.ExtSIOp() | arith.ExtUIOp() | arith.TruncIOp() | arith.IndexCastOp():
                self._cast(op, rewriter)
            case arith.SelectOp() if isinstance(op.result.type, _INTEGER_LIKE):
                condition, if_true, if_false = operand_registers(rewriter, op)
                ops, result = select_ops(condition, if_true, if_false)
                _replace(rewriter, op, ops, [result])
            case arith.MaxSIOp() | arith.MinSIOp() | arith.MaxUIOp() | arith.MinUIOp() if self.zbb:
                lhs, rhs = operand_registers(rewriter, op)
                bound = ZBB_BOUNDS[type(op), target_bit_width(op.result.type, xlen) == 1](lhs, rhs)
                _replace(rewriter, op, [bound], [bound.rd])
            case arith.MaxSIOp() | arith.MinSIOp() | arith.MaxUIOp() | arith.MinUIOp() if not _clamp(op):
                lhs, rhs = operand_registers(rewriter, op)
                signed = isinstance(op, arith.MaxSIOp | arith.MinSIOp)
                less = (riscv.SltOp if signed else riscv.SltuOp)(lhs, rhs)
                if isinstance(op, arith.MaxSIOp | arith.MaxUIOp):
                    ops, result = select_ops(less.rd, rhs, lhs)
                else:
                    ops, result = select_ops(less.rd, lhs, rhs)
                _replace(rewriter, op, [less, *ops], [result])
            case arith.MaxSIOp() | arith.MinSIOp() | arith.MaxUIOp() | arith.MinUIOp():
                lhs, rhs = operand_registers(rewriter, op)
                x, bound = (rhs, lhs) if _constant(op.lhs) is not None else (lhs, rhs)
                branch = BRANCH_BOUNDS[type(op), target_bit_width(op.result.type, xlen) == 1](x, bound)
                _replace(rewriter, op, [branch], [branch.rd])
            case arith.CmpiOp():
                width = target_bit_width(op.lhs.type, xlen)
                lhs, rhs = operand_registers(rewriter, op)
                ops, result = compare_ops(op.predicate.value.data, lhs, rhs, width)
                _replace(rewriter, op, ops, [result])
            case arith.FloorDivSIOp():
                self._floor_divide(op, rewriter)
            case arith.MulSIExtendedOp() | arith.MulUIExtendedOp():
                self._extended_multiply(op, rewriter)
            case arith.AddiOp() | arith.SubiOp() | arith.MuliOp() | arith.ShLIOp() | arith.ShRUIOp() if (
                width := target_bit_width(op.result.type, xlen)
            ) < xlen:
                self._narrow_binary(op, width, rewriter)
            case _ if type(op) in XDSL_BINARY:
                lhs, rhs = operand_registers(rewriter, op)
                new = XDSL_BINARY[type(op)](lhs, rhs)
                _replace(rewriter, op, [new], [new.rd])
            case _:
                return

    def _cast(self, op: Operation, rewriter: PatternRewriter) -> None:
        xlen = self.xlen
        (x,) = operand_registers(rewriter, op)
        source = target_bit_width(op.operands[0].type, xlen)
        target = target_bit_width(op.results[0].type, xlen)
        ops: list[Operation] = []
        result = x
        match op:
            case arith.ExtSIOp() | arith.IndexCastOp() if source < target:
                if source == 1:  # 0/1 -> 0/-1
                    zero = rv32.GetRegisterOp(riscv.Registers.ZERO)
                    negate = riscv.SubOp(zero, x)
                    ops, result = [zero, negate], negate.rd
            case arith.ExtUIOp() if source < target:
                ops, result = zero_extend(x, source, xlen)
            case _ if target < source and not _only_stored(op.results[0], target) and not _small_count(
                op.operands[0], target
            ):
                ops, result = sign_extend(x, target, xlen)
            case _:
                pass
        _replace(rewriter, op, ops, [result])

    def _floor_divide(self, op: arith.FloorDivSIOp, rewriter: PatternRewriter) -> None:
        """floor(a / b): `srai` by k for b = 2^k, else q = a / b (toward zero) minus 1 where the
        remainder is not 0 and its sign differs from b's."""
        xlen = self.xlen
        divisor = _constant(op.rhs)
        lhs, rhs = operand_registers(rewriter, op)
        if target_bit_width(op.result.type, xlen) != xlen:
            raise NotImplementedError(f"arith.floordivsi on {op.result.type}")
        if divisor is not None and divisor > 0 and divisor & (divisor - 1) == 0:
            shift = shift_right_arithmetic(lhs, divisor.bit_length() - 1, xlen)
            _replace(rewriter, op, [shift], [shift.results[0]])
            return
        quotient, remainder = riscv.DivOp(lhs, rhs), riscv.RemOp(lhs, rhs)
        signs = riscv.XorOp(remainder.rd, rhs)
        zero = rv32.GetRegisterOp(riscv.Registers.ZERO)
        opposite = riscv.SltOp(signs.rd, zero.res)
        inexact = riscv.SltuOp(zero.res, remainder.rd, comment="snez")
        correction = riscv.AndOp(opposite.rd, inexact.rd)
        floor = riscv.SubOp(quotient.rd, correction.rd)
        _replace(rewriter, op, [quotient, remainder, signs, zero, opposite, inexact, correction, floor], [floor.rd])

    def _narrow_binary(self, op: Operation, width: int, rewriter: PatternRewriter) -> None:
        xlen = self.xlen
        lhs, rhs = operand_registers(rewriter, op)
        if xlen == 64 and width == 32:
            word = {
                arith.AddiOp: riscv.AddwOp,
                arith.SubiOp: riscv.SubwOp,
                arith.MuliOp: riscv.MulwOp,
                arith.ShLIOp: riscv.SllwOp,
                arith.ShRUIOp: riscv.SrlwOp,
            }[type(op)]
            new = word(lhs, rhs)
            _replace(rewriter, op, [new], [new.rd])
            return
        ops: list[Operation] = []
        if isinstance(op, arith.ShRUIOp):
            ops, lhs = zero_extend(lhs, width, xlen)
        full = {
            arith.AddiOp: riscv.AddOp,
            arith.SubiOp: riscv.SubOp,
            arith.MuliOp: riscv.MulOp,
            arith.ShLIOp: riscv.SllOp,
            arith.ShRUIOp: riscv.SrlOp,
        }[type(op)]
        new = full(lhs, rhs)
        extend, result = sign_extend(new.rd, width, xlen)
        _replace(rewriter, op, [*ops, new, *extend], [result])

    def _extended_multiply(self, op: arith.MulSIExtendedOp | arith.MulUIExtendedOp, rewriter: PatternRewriter) -> None:
        xlen = self.xlen
        width = target_bit_width(op.lhs.type, xlen)
        lhs, rhs = operand_registers(rewriter, op)
        signed = isinstance(op, arith.MulSIExtendedOp)
        if width == xlen:
            high = (riscv.MulhOp if signed else riscv.MulhuOp)(lhs, rhs)
            if not op.low.uses:  # the high word alone: no `mul`
                _replace(rewriter, op, [high], [high.rd, high.rd])
                return
            low = riscv.MulOp(lhs, rhs)
            _replace(rewriter, op, [low, high], [low.rd, high.rd])
            return
        if 2 * width > xlen:
            raise NotImplementedError(f"{op.name} on i{width} with XLEN {xlen}")
        ops: list[Operation] = []
        if not signed:
            zl, lhs = zero_extend(lhs, width, xlen)
            zr, rhs = zero_extend(rhs, width, xlen)
            ops += [*zl, *zr]
        product = riscv.MulOp(lhs, rhs, comment=f"full {2 * width}-bit product")
        low_ops, low = sign_extend(product.rd, width, xlen) if op.low.uses else ([], product.rd)
        if signed:
            high_op = shift_right_arithmetic(product.rd, width, xlen)
            high_ops, high = [high_op], high_op.results[0]
        else:
            shifted = shift_right_arithmetic(product.rd, width, xlen)
            extend, high = sign_extend(shifted.results[0], width, xlen)
            high_ops = [shifted, *extend]
        _replace(rewriter, op, [*ops, product, *low_ops, *high_ops], [low, high])


@dataclass(frozen=True)
class BitfoldRiscvLowerArithPass(ModulePass):
    """Integer arith to RISC-V for every width (this module's docstring), before xDSL's
    `convert-arith-to-riscv` takes the rest; `zbb`: the target has Zbb."""

    name = "bitfold-riscv-lower-arith"

    xlen: int = 64
    zbb: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GreedyRewritePatternApplier([LowerIntegerArith(self.xlen, self.zbb)])).rewrite_module(op)
