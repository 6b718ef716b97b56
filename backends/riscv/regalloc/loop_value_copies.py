"""`bitfold-riscv-copy-loop-values`: copies that make xDSL 0.74's loop register allocation sound.

xDSL's allocator gives a `riscv_scf.for`'s initial value, block argument, yielded value and
result one register R (`allocate_values_same_reg`) and does not check that this is possible.
It is wrong when

- the initial value is used elsewhere too (a buffer's base address that two loop nests start
  from, after CSE merged their copies; one value initializing two carried values): the loop
  overwrites R, and the other user reads the advanced value;
- the initial value is an enclosing loop's induction variable: the loop increments that
  register at the end of each iteration (a use that is not an SSA use);
- the yielded value is defined while the block argument is still live (an inner loop's bound,
  computed from the carried pointer before that inner loop starts from it): both are in R.

This pass inserts a `riscv.mv` before the loop for each such initial value, and before the
yield for each such yielded value; the allocator then gives the copy R. A copy whose source
ends up in R too is removed after allocation (`bitfold-riscv-prologue-epilogue`).
"""

from xdsl.context import Context
from xdsl.dialects import riscv, riscv_scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter


def copy_of(value: SSAValue, point: InsertPoint) -> riscv.MVOp:
    move = riscv.MVOp(value, rd=riscv.Registers.UNALLOCATED_INT)
    Rewriter.insert_op(move, point)
    return move


def ancestor_in(block: Block, op: Operation) -> Operation | None:
    """The op of `block` that is `op` or contains it."""
    while op is not None and op.parent_block() is not block:
        op = op.parent_op()
    return op


def last_use_position(value: SSAValue, block: Block, positions: dict[Operation, int]) -> int:
    return max((positions[a] for u in value.uses if (a := ancestor_in(block, u.operation)) is not None), default=-1)


def is_induction_variable(value: SSAValue) -> bool:
    return (
        isinstance(value, BlockArgument)
        and value.index == 0
        and isinstance(value.block.parent_op(), riscv_scf.ForOp | riscv_scf.RofOp)
    )


def copy_initial_values(loop: riscv_scf.ForOp | riscv_scf.RofOp) -> list[riscv.MVOp]:
    first = len(loop.operands) - len(loop.iter_args)
    seen: set[SSAValue] = set()
    copies = []
    for index, value in enumerate(loop.iter_args):
        shared = len(list(value.uses)) > 1 or value in seen
        if shared or is_induction_variable(value):
            copies.append(copy_of(value, InsertPoint.before(loop)))
            loop.operands[first + index] = copies[-1].rd
        seen.add(value)
    return copies


def copy_yielded_values(loop: riscv_scf.ForOp | riscv_scf.RofOp) -> list[riscv.MVOp]:
    block = loop.body.block
    yield_op = block.last_op
    assert isinstance(yield_op, riscv_scf.YieldOp)
    positions = {op: i for i, op in enumerate(block.ops)}
    copies = []
    for index, (argument, value) in enumerate(zip(block.args[1:], yield_op.operands)):
        if value is argument:
            continue
        defined = positions.get(value.owner, -1) if isinstance(value.owner, Operation) else -1
        other_uses = len(list(value.uses)) > 1
        if other_uses or defined < last_use_position(argument, block, positions):
            copies.append(copy_of(value, InsertPoint.before(yield_op)))
            yield_op.operands[index] = copies[-1].rd
    return copies


def copy_loop_values(op: Operation) -> list[riscv.MVOp]:
    """The copies of the module docstring, for every loop inside `op` (the register allocator
    calls it again on spilled code: a reload or a rematerialized value may be shared); returns
    them in the order inserted."""
    copies = []
    for loop in [o for o in op.walk() if isinstance(o, riscv_scf.ForOp | riscv_scf.RofOp)]:
        copies += copy_initial_values(loop)
        copies += copy_yielded_values(loop)
    return copies


class BitfoldRiscvCopyLoopValuesPass(ModulePass):
    """Copies before loops and yields where xDSL's allocator would be unsound (module docstring)."""

    name = "bitfold-riscv-copy-loop-values"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        copy_loop_values(op)
