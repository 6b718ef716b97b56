"""`dispatched_pattern_application` rewrites IR exactly as xDSL's own `GreedyRewritePatternApplier`
(the oracle: the same passes run without it, the printed IR compared), and leaves out of an op's
patterns only those that cannot match its type."""

import pytest
from xdsl.backend.riscv.lowering.convert_arith_to_riscv import (
    ConvertArithToRiscvPass,
    LowerArithConstant,
    lower_arith_addf,
    lower_arith_addi,
)
from xdsl.context import Context
from xdsl.dialects import arith, get_all_dialects
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.lower_affine import LowerAffinePass

from bitfold.dialects.xdsl_compat import pattern_dispatch

ARITH = """
func.func @f(%a: i32, %b: i32, %x: f32, %n: index) -> (i32, f32, i1) {
  %c3 = arith.constant 3 : i32
  %c0 = arith.constant 0 : i32
  %s = arith.addi %a, %c3 : i32
  %z = arith.addi %s, %c0 : i32
  %m = arith.muli %z, %b : i32
  %d = arith.subi %m, %a : i32
  %l = arith.shli %d, %c3 : i32
  %o = arith.ori %l, %b : i32
  %k = arith.cmpi slt, %o, %a : i32
  %y = arith.remsi %o, %d : i32
  %i = arith.index_cast %n : index to i32
  %w = arith.addi %y, %i : i32
  %f = arith.addf %x, %x : f32
  %g = arith.mulf %f, %x : f32
  %dead = arith.xori %a, %b : i32
  %lo = affine.apply affine_map<(d0) -> (d0 * 4 + 2)>(%n)
  func.return %w, %g, %k : i32, f32, i1
}
"""


def context() -> Context:
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


def parsed() -> ModuleOp:
    return Parser(context(), ARITH).parse_module()


@pytest.mark.parametrize("passes", [
    [ConvertArithToRiscvPass()], [CanonicalizePass()], [LowerAffinePass(), CanonicalizePass(), ConvertArithToRiscvPass()],
], ids=["convert-arith-to-riscv", "canonicalize", "lower-affine,canonicalize,convert-arith-to-riscv"])
def test_the_same_ir_as_xdsls_applier(passes):
    expected, dispatched = parsed(), parsed()
    for module_pass in passes:
        module_pass.apply(context(), expected)
    with pattern_dispatch.dispatched_pattern_application():
        for module_pass in passes:
            module_pass.apply(context(), dispatched)
    assert GreedyRewritePatternApplier.match_and_rewrite is not pattern_dispatch._dispatched_match_and_rewrite
    assert str(dispatched) == str(expected)
    assert str(dispatched) != str(parsed())  # the passes did rewrite


class Unknown(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        pass


class AddOrMul(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp | arith.MuliOp, rewriter: PatternRewriter) -> None:
        pass


def test_matched_types():
    assert pattern_dispatch.matched_types(LowerArithConstant()) == (arith.ConstantOp,)
    assert pattern_dispatch.matched_types(lower_arith_addi) == (arith.AddiOp,)
    assert pattern_dispatch.matched_types(lower_arith_addf) == (arith.AddfOp,)
    assert pattern_dispatch.matched_types(AddOrMul()) == (arith.AddiOp, arith.MuliOp)
    assert pattern_dispatch.matched_types(Unknown()) is None


def test_matching_patterns_keep_order_and_unknown_patterns():
    unknown, add_or_mul = Unknown(), AddOrMul()
    applier = GreedyRewritePatternApplier([unknown, LowerArithConstant(), add_or_mul, lower_arith_addi])
    assert pattern_dispatch.matching_patterns(applier, arith.AddiOp) == [unknown, add_or_mul, lower_arith_addi]
    assert pattern_dispatch.matching_patterns(applier, arith.MuliOp) == [unknown, add_or_mul]
    assert pattern_dispatch.matching_patterns(applier, arith.SubiOp) == [unknown]
