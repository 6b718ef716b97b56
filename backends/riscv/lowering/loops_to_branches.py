"""`bitfold-riscv-loops-to-branches`: `riscv_scf.for` loops to labels and branches, exactly as
xDSL's `convert-riscv-scf-to-riscv-cf` writes them (its `LowerRiscvScfForPattern`: the same
blocks, branches and labels `scf_body_<k>_for` / `scf_body_end_<k>_for`, k numbering the loops
inner before outer, in program order), in time linear in the function's size.

xDSL's walker lowers the loops of a block first to last, and each lowering splits the block
before its loop, moving every op after it into a new block (`Block.split_before` re-parents them
one by one): a function of L top-level nests and N ops costs O(L N), minutes for a 100-layer
model. Here the loops of a block are lowered last to first, so a split moves only the ops up to
the next loop's (already split) end; the blocks come out in the same order, and each loop keeps
the number xDSL's order gives it.
"""

from dataclasses import dataclass

from xdsl.backend.riscv.lowering.convert_riscv_scf_to_riscv_cf import LowerRiscvScfForPattern
from xdsl.context import Context
from xdsl.dialects import riscv_scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter


def _lower_block(block: Block, pattern: LowerRiscvScfForPattern, numbers: dict[riscv_scf.ForOp, int]) -> None:
    """The loops in `block`, last to first, each after those nested in it."""
    for op in reversed(list(block.ops)):
        for region in op.regions:
            for inner in list(region.blocks):
                _lower_block(inner, pattern, numbers)
        if isinstance(op, riscv_scf.ForOp):
            pattern.for_idx = numbers[op] - 1  # the pattern numbers the loop it lowers for_idx + 1
            pattern.match_and_rewrite(op, PatternRewriter(op))


@dataclass(frozen=True)
class BitfoldRiscvLoopsToBranchesPass(ModulePass):
    """`convert-riscv-scf-to-riscv-cf`'s output in linear time (module docstring)."""

    name = "bitfold-riscv-loops-to-branches"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # xDSL's walker visits a loop after the loops nested in it, in program order
        loops = (o for o in op.walk(region_first=True) if isinstance(o, riscv_scf.ForOp))
        numbers = {loop: k for k, loop in enumerate(loops)}
        _lower_block(op.body.block, LowerRiscvScfForPattern(), numbers)

