"""bitfold's one-pass `region_dce` erases what xDSL's erases (the oracle), in the same order."""

import pytest
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.parser import Parser
from xdsl.pattern_rewriter import PatternRewriterListener
from xdsl.transforms import dead_code_elimination

from bitfold.dialects.xdsl_compat import dead_code

CASES = {
    "dead chain in a loop, live store": """
func.func @f(%n: index, %m: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dead = arith.addi %n, %c1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %m[%c0] : memref<4xi32>
    %d1 = arith.muli %v, %v : i32
    %d2 = arith.addi %d1, %v : i32
    scf.for %j = %c0 to %n step %c1 {
      %w = arith.addi %v, %v : i32
      memref.store %w, %m[%c0] : memref<4xi32>
    }
  }
  func.return
}""",
    "a loop without effects is dead, a result used only by dead ops is dead": """
func.func @f(%n: index, %a: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (i32) {
    %s = arith.addi %acc, %acc : i32
    scf.yield %s : i32
  }
  %u = arith.muli %r, %r : i32
  %live = arith.subi %a, %a : i32
  func.return %live : i32
}""",
    "allocation of a value defined inside, unreachable block": """
func.func @f(%a: i32) -> i32 {
  %m = memref.alloc() : memref<4xi32>
  %v = memref.load %m[] : memref<4xi32>
  cf.br ^bb1
^bb2:
  %x = arith.addi %a, %a : i32
  cf.br ^bb1
^bb1:
  func.return %a : i32
}""",
}


def parse(text: str):
    ctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return Parser(ctx, text).parse_module()


def erased_by(region_dce, text: str) -> tuple[list[str], str, bool]:
    """The names of the ops the listener saw removed, in order, the module left, and the flag."""
    module = parse(text)
    removed: list[str] = []
    listener = PatternRewriterListener(operation_removal_handler=[lambda op: removed.append(str(op))])
    changed = region_dce(module.body, listener)
    return removed, str(module), changed


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
def test_region_dce_erases_what_xdsls_erases(text):
    assert erased_by(dead_code.region_dce, text) == erased_by(dead_code_elimination.region_dce, text)


def test_region_dce_keeps_a_module_without_dead_ops():
    text = CASES["dead chain in a loop, live store"]
    module = parse(text)
    dead_code_elimination.region_dce(module.body)
    before = str(module)
    assert dead_code.region_dce(module.body) is False
    assert str(module) == before


LOOPS = """
func.func @f(%n: index, %m: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %m[%c0] : memref<4xi32>
    scf.for %j = %c0 to %n step %c1 {
      %w = memref.load %m[%c0] : memref<4xi32>
    }
  }
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloc() : memref<4xi32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %m[%c0] : memref<4xi32>
    scf.for %j = %c0 to %n step %c1 {
      memref.store %v, %m[%c0] : memref<4xi32>
    }
    %w = memref.load %m[%c0] : memref<4xi32>
  }
  scf.for %i = %c0 to %n step %c1 {
    "test.unknown"() : () -> ()
  }
  func.return
}"""
"""loops whose nested effects are reads (dead), an allocation (memref.alloc names no value: kept), a
write (kept), an op of unknown effects (kept)"""


@pytest.mark.parametrize("text", [*CASES.values(), LOOPS], ids=[*CASES.keys(), "loops"])
def test_trivially_dead_answers_as_xdsl(text):
    """`TriviallyDead.is_trivially_dead` gives xDSL's `is_trivially_dead` answer on every op."""
    ops = list(parse(text).walk())
    dead = dead_code.TriviallyDead()
    assert [dead.is_trivially_dead(op) for op in ops] == [dead_code_elimination.is_trivially_dead(op) for op in ops]


def test_trivially_dead_loops():
    loops = [op for op in parse(LOOPS).walk() if op.name == "scf.for"]
    dead = dead_code.TriviallyDead()
    assert [dead.is_trivially_dead(op) for op in loops] == [True, True, False, False, False, False]
