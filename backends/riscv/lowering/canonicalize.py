"""`bitfold-riscv-canonicalize`: xDSL's `canonicalize` (the same patterns, folding and walk)
with the one-pass `region_dce` of `bitfold.dialects.xdsl_compat.dead_code` after each walk: the
same rewrites and erasures, without xDSL's effect queries per enclosing loop on deep nests.
A walk that changed nothing right after such a dead code elimination is not followed by another:
`region_dce` erases every op its live set leaves out, and the live set of what it leaves is all
of it (every op kept is kept by the same rule), so on the same IR it would find nothing."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Region
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern

from bitfold.dialects.xdsl_compat.dead_code import region_dce


@dataclass
class _DeadCodeAfterChanges(RewritePattern):
    """`pattern`, noting whether any of its rewrites did something since the last `region_dce`
    (as the walker notes a walk's changes: `rewriter.has_done_action`); called after a walk, the
    dead code elimination where something did (the first one always)."""

    pattern: RewritePattern
    changed: bool = True

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        self.pattern.match_and_rewrite(op, rewriter)
        self.changed |= rewriter.has_done_action

    def __call__(self, region: Region, listener: PatternRewriterListener) -> bool:
        if not self.changed:
            return False
        erased = region_dce(region, listener)
        self.changed = False
        return erased


@dataclass(frozen=True)
class BitfoldRiscvCanonicalizePass(ModulePass):
    """Canonicalization patterns and folding to a fixpoint, dead ops erased after each walk."""

    name = "bitfold-riscv-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = _DeadCodeAfterChanges(
            GreedyRewritePatternApplier([CanonicalizationRewritePattern()], ctx=ctx, folding_enabled=True)
        )
        PatternRewriteWalker(pattern, post_walk_func=pattern).rewrite_module(op)
