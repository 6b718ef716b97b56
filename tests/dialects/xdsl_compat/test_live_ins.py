"""`live_ins_per_block` gives every block the live-in values xDSL's `live_ins_per_block` (the oracle)
gives it, in the same order, on nested loops with carried values and values defined between them."""

from xdsl.backend.register_allocator import live_ins_per_block as xdsl_live_ins_per_block
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.parser import Parser

from bitfold.dialects.xdsl_compat.live_ins import live_ins_per_block

NESTED = """
func.func @f(%n: index, %m: memref<4xi32>, %c: i1, %a: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = arith.addi %a, %a : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %a) -> (i32) {
    %k = arith.addi %i, %c1 : index
    scf.if %c {
      scf.for %j = %k to %n step %c1 {
        %v = memref.load %m[%j] : memref<4xi32>
        %w = arith.addi %v, %b : i32
        memref.store %w, %m[%i] : memref<4xi32>
      }
    } else {
      %u = memref.load %m[%i] : memref<4xi32>
      memref.store %u, %m[%c0] : memref<4xi32>
    }
    %t = arith.addi %s, %b : i32
    scf.yield %t : i32
  }
  memref.store %r, %m[%c0] : memref<4xi32>
  func.return
}
"""


def test_live_ins_are_xdsls_in_xdsls_order():
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    block = Parser(ctx, NESTED).parse_module().body.block.first_op.body.block
    expected = xdsl_live_ins_per_block(block)
    found = live_ins_per_block(block)
    assert set(found) == set(expected) and len(expected) == 5  # the function's and four nested blocks
    for inner, values in expected.items():
        assert list(found[inner]) == list(values)
    assert any(len(values) >= 3 for values in expected.values())
