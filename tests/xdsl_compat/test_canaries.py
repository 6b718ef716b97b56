"""Canaries: each test shows one bug of plain xDSL 0.74 that bitfold works around
(docs/xdsl-compat.md, `bitfold.dialects.xdsl_compat`) and FAILS once an xDSL upgrade fixes it: the
workaround can then go (delete its module, its row of the table and this test). They build
everything from xDSL alone; bitfold's fix is tested where it is used."""

import subprocess
import sys

import pytest
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, f32
from xdsl.interpreter import Interpreter
from xdsl.interpreters import register_implementations
from xdsl.parser import Parser
from xdsl.utils.exceptions import InterpretationError

from bitfold.dialects.xdsl_compat.parser_crashes import XDSL_PARSER_CRASHES
from bitfold.dialects.xdsl_compat.string_lexer import XDSL_STRING_LITERAL


def xdsl_context() -> Context:
    """Every dialect of xDSL's and none of bitfold's; unregistered ops allowed (`test.op`)."""
    ctx = Context(allow_unregistered=True)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


def test_string_lexer_backtracks_exponentially():
    """xdsl_compat.string_lexer: xDSL's own lexer, in a process where bitfold has patched nothing,
    still has the pattern whose nested `+` in `*` backtracks exponentially on a missing `"`."""
    pattern = subprocess.run(
        [sys.executable, "-c",
         "from xdsl.utils.mlir_lexer import MLIRLexer; print(MLIRLexer._unescaped_characters_regex.pattern)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert pattern == XDSL_STRING_LITERAL


def test_verifier_accepts_a_use_before_its_definition():
    """xdsl_compat.dominance: `verify()` does not check dominance (MLIR: "operand #0 does not
    dominate this use")."""
    text = '%0 = "test.op"(%1) : (i32) -> i32\n%1 = "test.op"() : () -> i32'
    Parser(xdsl_context(), text).parse_module().verify()  # no VerifyException


def test_parse_optional_float_refuses_a_hex_double():
    """xdsl_compat.hex_float: MLIR's parseFloat reads `0x3FF0000000000000` as the double 1.0."""
    assert Parser(xdsl_context(), "0x3FF0000000000000").parse_optional_float(allow_negative=True) is None


@pytest.mark.parametrize(("text", "error"), [
    ('"test.op"() {v = dense<300> : tensor<2xi8>} : () -> ()', ValueError),
    ('"test.op"() {v = array<i333: 1>} : () -> ()', NotImplementedError),
])
def test_parser_crashes_on_malformed_text(text, error):
    """xdsl_compat.parser_crashes: malformed text raises a Python exception, not a ParseError."""
    assert error in XDSL_PARSER_CRASHES
    with pytest.raises(error):
        Parser(xdsl_context(), text).parse_module()


def test_integer_types_wider_than_mlir_allows_parse():
    """driver/parsing.py's `MAX_INTEGER_WIDTH`: MLIR refuses integer types wider than 2^24 - 1
    bits; xDSL builds them (and hangs in range checks on `i61000000000`)."""
    assert str(Parser(xdsl_context(), "i16777216").parse_attribute()) == "i16777216"


def test_infinite_f32_constant_does_not_read_back():
    """passes/onnx_float_to_linalg.py's `F32_LOWEST`: -inf prints as `dense<0xff800000>`, which
    parses back as the integer 4286578688."""
    printed = str(DenseIntOrFPElementsAttr.from_list(TensorType(f32, [1]), [float("-inf")]))
    assert printed == "dense<0xff800000> : tensor<1xf32>"
    parsed = Parser(xdsl_context(), printed).parse_attribute()
    assert parsed.get_values() == (4286578688.0,)


@pytest.mark.parametrize(("body", "operand"), [
    ("%y = arith.extsi %x : i8 to i32\n func.return %y : i32", ("i8", "i32", -3)),
    ("%y = math.floor %x : f32\n func.return %y : f32", ("f32", "f32", 1.5)),
])
def test_interpreter_lacks_integer_casts_and_math(body, operand):
    """interpreters/: xDSL's interpreter has no arith extsi/extui/trunci/... and no math
    rounding ops (bitfold's numpy implementations provide them)."""
    argument, result, value = operand
    ctx = xdsl_context()
    module = Parser(ctx, f"func.func @f(%x: {argument}) -> {result} {{\n {body}\n}}").parse_module()
    interpreter = Interpreter(module)
    register_implementations(interpreter, ctx)
    with pytest.raises(InterpretationError, match="Could not find interpretation function"):
        interpreter.call_op("f", (value,))


def test_vector_dialect_lacks_vscale_step_and_gather():
    """backends/llvm/upstream_vector_ops.py: upstream MLIR's `vector.vscale`, `vector.step` and
    `vector.gather`, which the RVV contraction builds, are not in xDSL's vector dialect."""
    from xdsl.dialects.vector import Vector

    names = {op.name for op in Vector.operations}
    assert not names & {"vector.vscale", "vector.step", "vector.gather"}


NESTED_LOOPS = """
func.func @f(%n: index, %m: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      scf.for %k = %c0 to %n step %c1 {
        %v = memref.load %m[%k] : memref<4xi32>
        %w = arith.addi %v, %v : i32
        memref.store %w, %m[%k] : memref<4xi32>
      }
    }
  }
  func.return
}
"""


def effects_asked(monkeypatch) -> list[str]:
    """The names of the ops xDSL's `get_effects` is asked about from now on, in order."""
    from xdsl import traits
    from xdsl.transforms import dead_code_elimination

    asked: list[str] = []
    get_effects = traits.get_effects

    def counted(op):
        asked.append(op.name)
        return get_effects(op)

    monkeypatch.setattr(traits, "get_effects", counted)
    monkeypatch.setattr(dead_code_elimination, "get_effects", counted)
    return asked


def test_region_dce_computes_nested_effects_once_per_enclosing_loop(monkeypatch):
    """xdsl_compat.dead_code: `region_dce` asks `would_be_trivially_dead` of each loop, which
    walks the effects of every op nested in it: the innermost store's are computed once for
    itself and once for each of its three loops (O(ops x depth) a round)."""
    from xdsl.transforms import dead_code_elimination

    module = Parser(xdsl_context(), NESTED_LOOPS).parse_module()
    asked = effects_asked(monkeypatch)
    dead_code_elimination.region_dce(module.body)
    assert asked.count("memref.store") >= 4


def test_is_trivially_dead_gathers_every_nested_effect_of_a_loop(monkeypatch):
    """xdsl_compat.dead_code.TriviallyDead: `is_trivially_dead` of a loop without results gathers
    the effects of every op nested in it, though the first store already makes it live: the
    greedy applier asks it of every loop at every visit (O(ops x depth) a walk)."""
    from xdsl.transforms import dead_code_elimination

    module = Parser(xdsl_context(), NESTED_LOOPS).parse_module()
    outer = next(op for op in module.walk() if op.name == "scf.for")
    asked = effects_asked(monkeypatch)
    assert dead_code_elimination.is_trivially_dead(outer) is False
    assert "memref.store" in asked
    assert asked.count("scf.yield") == 3  # the three loops' yields, all after the store


def test_worklists_index_ops_by_their_python_hash():
    """xdsl_compat.worklist_walk.IdentityWorklist: `Worklist` keys its index by the op, and an
    IRDL op's hash is a Python method (`id(self)`): a Python call per lookup."""
    import inspect

    from xdsl.irdl import IRDLOperation
    from xdsl.utils.worklist import Worklist

    assert "return id(self)" in inspect.getsource(IRDLOperation.__hash__)
    assert "if item not in self._map:" in inspect.getsource(Worklist.push)


def test_pattern_walkers_fill_their_worklist_through_nested_generators():
    """xdsl_compat.worklist_walk: `PatternRewriteWalker._populate_worklist` pushes what
    `op.walk(...)` yields (`yield from` through every level of nesting), in a process where
    bitfold has installed nothing."""
    source = subprocess.run(
        [sys.executable, "-c",
         "import inspect; from xdsl.pattern_rewriter import PatternRewriteWalker as W; "
         "print(inspect.getsource(W._populate_worklist)); "
         "from xdsl.ir import Block; print(inspect.getsource(Block.walk))"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert "for sub_op in op.walk(" in source
    assert "yield from op.walk(" in source


def test_greedy_applier_calls_every_pattern_on_every_op():
    """xdsl_compat.pattern_dispatch: `GreedyRewritePatternApplier.match_and_rewrite` erases a dead
    op, folds, then calls its patterns one by one whatever the op's type (the body bitfold's
    dispatching version repeats, with fewer patterns)."""
    import inspect

    from xdsl.pattern_rewriter import GreedyRewritePatternApplier

    source = inspect.getsource(GreedyRewritePatternApplier.match_and_rewrite)
    for line in ("if self.dce_enabled and is_trivially_dead(op):", "folded = Folder(self.ctx).try_fold(op)",
                 "rewriter.replace(op, new_ops=folded_ops, new_results=folded_values)",
                 "for pattern in self.rewrite_patterns:", "pattern.match_and_rewrite(op, rewriter)",
                 "if rewriter.has_done_action:"):
        assert line in source


def test_casts_are_built_through_irdls_generic_builder():
    """xdsl_compat.cast_construction: `UnrealizedConversionCastOp.get` builds through IRDL's
    `build` (its generic argument lists), not `Operation.create`."""
    import inspect

    from xdsl.dialects.builtin import UnrealizedConversionCastOp

    source = inspect.getsource(UnrealizedConversionCastOp.get)
    assert "UnrealizedConversionCastOp.build(" in source and "create(" not in source


def test_live_ins_rebuild_an_ordered_set_at_every_op():
    """xdsl_compat.live_ins: `live_ins_per_block` keeps a block's live-ins in an `OrderedSet` and
    removes each op's results with `difference_update`, which rebuilds the whole set."""
    import inspect

    from ordered_set import OrderedSet
    from xdsl.backend import register_allocator

    assert "res.difference_update(op.results)" in inspect.getsource(register_allocator._live_ins_per_block)
    assert "OrderedSet" in inspect.getsource(register_allocator._live_ins_per_block)
    assert "for" in inspect.getsource(OrderedSet.difference_update)
