"""`expand-float-math`: `math.exp`, `math.tanh`, `math.roundeven`, `math.sqrt` and `math.erf` on f32
become the fixed sequences of IEEE binary32 arith ops that define them in bitfold
(`bitfold.dialects.float_math_expansions`, docs/float-islands.md), so no backend calls libm and
every backend and the interpreter compute the same bits."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from bitfold.dialects.float_math_expansions import EXPANSIONS, F32, Emitter


class ExpandFloatMath(RewritePattern):
    """An f32 `math` op of EXPANSIONS -> its arith sequence."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if type(op) in EXPANSIONS and op.results[0].type == F32:
            e = Emitter()
            result = EXPANSIONS[type(op)](e, op.operands[0])
            rewriter.replace(op, e.ops, [result])


@dataclass(frozen=True)
class ExpandFloatMathPass(ModulePass):
    """Expand every f32 `math.exp` / `math.tanh` / `math.roundeven` / `math.sqrt` / `math.erf` into
    basic arith ops (module docstring)."""

    name = "expand-float-math"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ExpandFloatMath()).rewrite_module(op)
