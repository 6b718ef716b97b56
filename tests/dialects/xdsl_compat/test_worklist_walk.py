"""`walk_order` is the order of xDSL's own `walk` (the oracle) on nested loops and multi-region ops,
and the installed `_populate_worklist` fills a walker's worklist as xDSL's does; its `IdentityWorklist`
pops what xDSL's `Worklist` pops."""

import itertools

import pytest
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.parser import Parser
from xdsl.pattern_rewriter import PatternRewriteWalker, RewritePattern
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.utils.worklist import Worklist

from bitfold.dialects.xdsl_compat import worklist_walk

NESTED = """
func.func @f(%n: index, %m: memref<4xi32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.if %c {
      scf.for %j = %c0 to %n step %c1 {
        %v = memref.load %m[%j] : memref<4xi32>
        memref.store %v, %m[%i] : memref<4xi32>
      }
    } else {
      %w = memref.load %m[%i] : memref<4xi32>
      memref.store %w, %m[%c0] : memref<4xi32>
    }
    %u = arith.addi %i, %c1 : index
  }
  func.return
}
"""

FLAGS = list(itertools.product([False, True], repeat=2))


@pytest.fixture(scope="module")
def module():
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return Parser(ctx, NESTED).parse_module()


@pytest.mark.parametrize(("reverse", "region_first"), FLAGS)
def test_walk_order_is_xdsls_walk(module, reverse, region_first):
    function = module.body.block.first_op
    for root in (module, module.body, module.body.block, function, function.body.block):
        expected = list(root.walk(reverse=reverse, region_first=region_first))
        assert worklist_walk.walk_order(root, reverse, region_first) == expected


class NoPattern(RewritePattern):
    def match_and_rewrite(self, op, rewriter):
        pass


@pytest.mark.parametrize(("walk_reverse", "walk_regions_first"), FLAGS)
def test_worklist_is_filled_as_xdsl_fills_it(module, walk_reverse, walk_regions_first):
    walkers = [PatternRewriteWalker(NoPattern(), walk_reverse=walk_reverse, walk_regions_first=walk_regions_first)
               for _ in range(2)]
    worklist_walk.XDSL_POPULATE_WORKLIST(walkers[0], module.body)
    with worklist_walk.listed_worklist_walk():
        assert PatternRewriteWalker._populate_worklist is not worklist_walk.XDSL_POPULATE_WORKLIST
        walkers[1]._populate_worklist(module.body)
    assert PatternRewriteWalker._populate_worklist is worklist_walk.XDSL_POPULATE_WORKLIST
    assert len(walkers[1]._worklist._stack) == sum(1 for _ in module.body.walk())
    assert walkers[1]._worklist._stack == walkers[0]._worklist._stack


def test_identity_worklist_pops_what_xdsls_pops(module):
    """The same pushes (repeated ones too), removals and pops on both worklists: the same ops out."""
    ops = list(module.walk())
    xdsl_worklist, identity = Worklist(), worklist_walk.IdentityWorklist()
    identity.push_all(ops[:5])
    for op in ops[:5]:
        xdsl_worklist.push(op)
    for worklist in (xdsl_worklist, identity):
        for op in [*ops[3:], ops[0]]:
            worklist.push(op)
        worklist.remove(ops[4])
        worklist.remove(ops[-1])
        worklist.remove(ops[-1])
    popped = [[], []]
    for out, worklist in zip(popped, (xdsl_worklist, identity), strict=True):
        while worklist:
            out.append(worklist.pop())
    assert popped[0] == popped[1]
    assert len(popped[1]) == len(ops) - 2
    with pytest.raises(IndexError):
        identity.pop()


def test_rewrites_as_xdsl_with_the_identity_worklist():
    """canonicalize (erasures, folds, pushes of users) gives the same module within `listed_worklist_walk`."""
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    text = NESTED.replace("%u = arith.addi %i, %c1 : index", "%u = arith.addi %c1, %c1 : index\n"
                          "    %z = arith.muli %u, %c0 : index\n    memref.store %v0, %m[%z] : memref<4xi32>").replace(
        "%c1 = arith.constant 1 : index", "%c1 = arith.constant 1 : index\n  %v0 = arith.constant 7 : i32")
    expected, listed = Parser(ctx, text).parse_module(), Parser(ctx, text).parse_module()
    CanonicalizePass().apply(ctx, expected)
    with worklist_walk.listed_worklist_walk():
        CanonicalizePass().apply(ctx, listed)
    assert str(listed) == str(expected)
    assert str(expected) != str(Parser(ctx, text).parse_module())
