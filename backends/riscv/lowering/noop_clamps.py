"""`bitfold-riscv-noop-clamps`: in `linalg.generic` bodies, an `arith.maxsi` / `arith.minsi` by a
constant that the value ranges prove to be a no-op is gone: `max(x, c)` with x >= c throughout,
`min(x, c)` with x <= c throughout (`value_ranges.body_ranges`: interval arithmetic over the
body), is x itself. A squeeze-excitation gate's product of two non-negative terms needs no lower
bound, and a requantization whose range fits the output type no clamp at all.

Without Zbb the clamps that stay become a forward branch over a move each
(`bitfold-riscv-lower-arith`, `branch_bounds.py`): 1 executed instruction a bound where the value
is in range.
"""

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from bitfold.backends.riscv.lowering.value_ranges import body_ranges, constant_value
from bitfold.backends.riscv.schedule.weight_panels import ModuleGlobals


def _bounded_operand(op: arith.MaxSIOp | arith.MinSIOp) -> tuple[SSAValue, int] | None:
    """(x, c) of `op(x, c)` with c a constant, either operand."""
    for x, bound in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
        c = constant_value(bound)
        if c is not None and constant_value(x) is None:
            return x, c
    return None


def drop_noop_clamps(generic: linalg.GenericOp, globals_: ModuleGlobals) -> None:
    """Every min / max by a constant of the body that its operand's range makes a no-op, replaced
    by that operand (module docstring); constants left unused are erased. `globals_`: the module's
    globals, indexed once."""
    ranges = body_ranges(generic, globals_.constant_global)
    for op in list(generic.body.block.ops):
        if not isinstance(op, arith.MaxSIOp | arith.MinSIOp) or (found := _bounded_operand(op)) is None:
            continue
        x, c = found
        if x in ranges and (ranges[x][0] >= c if isinstance(op, arith.MaxSIOp) else ranges[x][1] <= c):
            op.result.replace_all_uses_with(x)
            Rewriter.erase_op(op)
    for op in list(generic.body.block.ops):
        if isinstance(op, arith.ConstantOp) and not op.result.uses:
            Rewriter.erase_op(op)


class BitfoldRiscvNoopClampsPass(ModulePass):
    """Min / max by a constant in linalg bodies that the value ranges make a no-op, removed
    (module docstring)."""

    name = "bitfold-riscv-noop-clamps"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        globals_ = ModuleGlobals(op)
        for generic in [g for g in op.walk() if isinstance(g, linalg.GenericOp)]:
            drop_noop_clamps(generic, globals_)
