"""`bitfold-riscv-canonicalize`: xDSL's `canonicalize` rewrites, its dead code elimination after
a walk only where something changed since the last one."""

from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.parser import Parser
from xdsl.transforms.canonicalize import CanonicalizePass

from bitfold.backends.riscv.lowering import canonicalize
from bitfold.backends.riscv.lowering.canonicalize import BitfoldRiscvCanonicalizePass

FOLDABLE = """
func.func @f(%x : i32) -> i32 {
  %one = arith.constant 1 : i32
  %two = arith.addi %one, %one : i32
  %unused = arith.muli %x, %two : i32
  %y = arith.addi %x, %two : i32
  func.return %y : i32
}
"""


def parse(text: str):
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx, Parser(ctx, text).parse_module()


def test_same_module_as_xdsl_canonicalize():
    ctx, module = parse(FOLDABLE)
    BitfoldRiscvCanonicalizePass().apply(ctx, module)
    ctx, expected = parse(FOLDABLE)
    CanonicalizePass().apply(ctx, expected)
    assert str(module) == str(expected)
    assert "arith.muli" not in str(module)


def test_no_dead_code_elimination_after_a_walk_that_changed_nothing(monkeypatch):
    """The first walk folds and the elimination erases the unused product; the second walk
    changes nothing, so no second elimination (it would find nothing)."""
    calls = []

    def counted(region, listener):
        calls.append(str(region.parent_op()))
        return region_dce(region, listener)

    region_dce = canonicalize.region_dce
    monkeypatch.setattr(canonicalize, "region_dce", counted)
    ctx, module = parse(FOLDABLE)
    BitfoldRiscvCanonicalizePass().apply(ctx, module)
    assert len(calls) == 1
    assert "arith.muli" not in str(module)
