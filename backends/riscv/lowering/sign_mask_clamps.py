"""`bitfold-riscv-sign-mask-clamps`: in `linalg.generic` bodies, `arith.minsi` / `arith.maxsi` by a
constant (a requantization's output clamp) become sign-mask arithmetic where the difference to the
bound cannot wrap (`value_ranges.body_ranges`):

    min(x, c) = c + (d & (d >>s (N-1)))          d = x - c: d & (d >> (N-1)) = min(d, 0)
    max(x, c) = c + (d - (d & (d >>s (N-1))))    d - min(d, 0) = max(d, 0)

RV32IM / RV64IM have neither min nor max: `bitfold-riscv-lower-arith`'s select costs `slt` and four
more instructions a bound, with the bound in a register; these are 3 (min) and 4 (max) with immediates,
and the constants fold along a chain, where x = y + k is used by the clamp alone (d = y + (k - c)): a
requantization's zero point and a two-sided clamp

    g + zp, max(., lo), min(., hi)    11 instructions  ->  addi, srai, and, sub, addi, srai, and, addi: 8

A clamp the ranges prove to be a no-op (`max(x, c)` with x >= c throughout, `min(x, c)` with x <= c)
is x itself: a squeeze-excitation gate's product of two non-negative terms needs no lower bound.
"""

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from bitfold.backends.riscv.lowering.value_ranges import Range, body_ranges, constant_value, type_range
from bitfold.backends.riscv.schedule.weight_panels import ModuleGlobals


def _constant(value: int, type_: IntegerType) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, type_))


def _bounded_operand(op: arith.MaxSIOp | arith.MinSIOp) -> tuple[SSAValue, int] | None:
    """(x, c) of `op(x, c)` with c a constant, either operand."""
    for x, bound in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        c = constant_value(bound)
        if c is not None and constant_value(x) is None:
            return x, c
    return None


def _offset(x: SSAValue) -> tuple[SSAValue, int]:
    """(y, k) with x = y + k: through an `addi` / `subi` by a constant used by this clamp alone."""
    op = x.owner
    if isinstance(op, arith.AddiOp | arith.SubiOp) and x.has_one_use():
        sign = 1 if isinstance(op, arith.AddiOp) else -1
        k = constant_value(op.rhs)
        if k is not None:
            return op.lhs, sign * k
        if isinstance(op, arith.AddiOp) and (k := constant_value(op.lhs)) is not None:
            return op.rhs, k
    return x, 0


def _sign_mask_clamp(op: arith.MaxSIOp | arith.MinSIOp, x: SSAValue, c: int) -> list[Operation]:
    """The ops computing `op` as sign-mask arithmetic (module docstring), the last one its value
    (no `+ c` for c = 0)."""
    type_ = op.result.type
    y, k = _offset(x)
    ops: list[Operation] = []
    d = y
    if k - c:
        ops += [delta := _constant(k - c, type_), shifted := arith.AddiOp(y, delta.result)]
        d = shifted.result
    ops += [top := _constant(type_.width.data - 1, type_), sign := arith.ShRSIOp(d, top.result)]
    ops.append(negative := arith.AndIOp(d, sign.result))
    part = negative.result
    if isinstance(op, arith.MaxSIOp):
        ops.append(positive := arith.SubiOp(d, negative.result))
        part = positive.result
    if c:
        ops += [bound := _constant(c, type_), arith.AddiOp(part, bound.result)]
    return ops


def _cannot_wrap(x: Range, c: int, whole: Range) -> bool:
    return whole[0] <= x[0] - c and x[1] - c <= whole[1]


def rewrite_clamps(generic: linalg.GenericOp, globals_: ModuleGlobals) -> None:
    """Every min / max by a constant of the body whose difference cannot wrap, rewritten (module
    docstring); constants left unused are erased. `globals_`: the module's globals, indexed once."""
    ranges = body_ranges(generic, globals_.constant_global)
    for op in list(generic.body.block.ops):
        if not isinstance(op, arith.MaxSIOp | arith.MinSIOp) or (found := _bounded_operand(op)) is None:
            continue
        x, c = found
        if x in ranges and (ranges[x][0] >= c if isinstance(op, arith.MaxSIOp) else ranges[x][1] <= c):
            op.result.replace_all_uses_with(x)  # a no-op clamp (module docstring)
            Rewriter.erase_op(op)
            continue
        whole = type_range(op.result)
        if x not in ranges or whole is None or not _cannot_wrap(ranges[x], c, whole):
            continue
        absorbed = x.owner if _offset(x)[0] is not x else None
        ops = _sign_mask_clamp(op, x, c)
        ranges[ops[-1].results[0]] = ranges[op.result]
        Rewriter.replace_op(op, ops, [ops[-1].results[0]])
        if absorbed is not None and not absorbed.results[0].uses:
            Rewriter.erase_op(absorbed)
    for op in list(generic.body.block.ops):
        if isinstance(op, arith.ConstantOp) and not op.result.uses:
            Rewriter.erase_op(op)

class BitfoldRiscvSignMaskClampsPass(ModulePass):
    """Min / max by a constant in linalg bodies as sign-mask arithmetic where it cannot wrap
    (module docstring)."""

    name = "bitfold-riscv-sign-mask-clamps"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        globals_ = ModuleGlobals(op)
        for generic in [g for g in op.walk() if isinstance(g, linalg.GenericOp)]:
            rewrite_clamps(generic, globals_)
