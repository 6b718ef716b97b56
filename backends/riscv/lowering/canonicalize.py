"""`bitfold-riscv-canonicalize`: xDSL's `canonicalize` (the same patterns, folding and walk)
with the one-pass `region_dce` of `bitfold.dialects.xdsl_compat.dead_code` after each walk: the
same rewrites and erasures, without xDSL's effect queries per enclosing loop on deep nests."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.canonicalize import CanonicalizationRewritePattern

from bitfold.dialects.xdsl_compat.dead_code import region_dce


@dataclass(frozen=True)
class BitfoldRiscvCanonicalizePass(ModulePass):
    """Canonicalization patterns and folding to a fixpoint, dead ops erased after each walk."""

    name = "bitfold-riscv-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = GreedyRewritePatternApplier([CanonicalizationRewritePattern()], ctx=ctx, folding_enabled=True)
        PatternRewriteWalker(pattern, post_walk_func=region_dce).rewrite_module(op)
