"""`lower-quant`: quant casts on tensors become arith / math in `linalg.generic`s, and every
quantized type becomes its signless storage integer type.

- `casts`: qcast (divide, round in the op's mode, zero point in the op's order, clamp,
  fptosi), dcast (extend, subtract, sitofp, multiply), scast (a no-op or a reinterpreting
  `builtin.unrealized_conversion_cast` to `uiN` / `siN`); bit-exact to `quant_semantics`.
- `requant`: the integer-only fixed-point rescale of `bitfold.passes.utils.requantization`.
- `float_storage`: qcast / dcast with float storage (f8E4M3FN, ...).
The generic each of them builds is `passes.utils.parameter_tables.build_elementwise`
(per-axis and sub-channel parameters as constant tables read through broadcasting / floordiv
indexing maps).
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriteWalker,
    TypeConversionPattern,
)

from bitfold.dialects.quant import QuantizedType
from bitfold.passes.lower_quant.casts import LOWER_CAST_PATTERNS
from bitfold.passes.lower_quant.float_storage import FLOAT_STORAGE_PATTERNS
from bitfold.passes.lower_quant.requant import LowerRequantize


def storage_types(attr: Attribute) -> Attribute:
    """`attr` with every quantized type in it (nested in parameters, arrays and dictionaries) made
    its signless storage integer type; `attr` itself when it holds none."""
    if isinstance(attr, QuantizedType):
        return attr.storage_integer_type()
    if isinstance(attr, ParametrizedAttribute):
        parameters = [storage_types(p) for p in attr.parameters]
        changed = any(new is not old for new, old in zip(parameters, attr.parameters))
        return type(attr).new(parameters) if changed else attr
    if isinstance(attr, ArrayAttr):
        elements = tuple(storage_types(e) for e in attr)
        return ArrayAttr(elements) if any(new is not old for new, old in zip(elements, attr)) else attr
    if isinstance(attr, DictionaryAttr):
        entries = {k: storage_types(v) for k, v in attr.data.items()}
        return DictionaryAttr(entries) if any(entries[k] is not v for k, v in attr.data.items()) else attr
    return attr


class QuantToStorageType(TypeConversionPattern):
    """Every quantized type, wherever it appears (values, block arguments, function types,
    nested in tensors), becomes its signless storage integer type (`storage_types`: isinstance
    tests where xDSL's own recursion (`recursive=True`) runs its slow generic `isa` twice per
    attribute, and its `attr_type_rewrite_pattern` formats every other attribute, weight tensors
    included, into an exception message it then drops)."""

    def convert_type(self, typ: Attribute) -> Attribute | None:
        converted = storage_types(typ)
        return None if converted is typ else converted


@dataclass(frozen=True)
class LowerQuantPass(ModulePass):
    """Lower `quant.qcast`, `quant.dcast`, `quant.scast` and `quant.requant` on tensors to
    arith, math, linalg and tensor ops; afterwards no quant op or type remains (a scalar
    cast, or a requant whose fixed-point form does not fit i64, fails the pass with one
    line). qcast, dcast and scast compute bit-identical results; requant computes
    `requantization.requantize_fixed_point`, within 1 LSB of the exact `quant.requant`
    (2 LSB for `away_from_zero` with `zero_point_first`: see `requantization`)."""

    name = "lower-quant"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier([*FLOAT_STORAGE_PATTERNS, *LOWER_CAST_PATTERNS, LowerRequantize()])
        # Users first: each pattern reads its operand's quantized type before the producer
        # is lowered.
        PatternRewriteWalker(patterns, apply_recursively=False, walk_reverse=True).rewrite_module(op)
        PatternRewriteWalker(QuantToStorageType(recursive=False)).rewrite_module(op)
