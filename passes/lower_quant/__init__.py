"""`lower-quant`: quant casts on tensors become arith / math in `linalg.generic`s, and every
quantized type becomes its signless storage integer type.

- `casts`: qcast (divide, round in the op's mode, zero point in the op's order, clamp,
  fptosi), dcast (extend, subtract, sitofp, multiply), scast (a no-op or a reinterpreting
  `builtin.unrealized_conversion_cast` to `uiN` / `siN`); bit-exact to `quant_semantics`.
- `requant`: the integer-only fixed-point rescale of `bitfold.passes.requantization`.
- `elementwise`: the generic each of them builds (per-axis and sub-channel parameters as
  constant tables read through broadcasting / floordiv indexing maps).
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriteWalker,
    TypeConversionPattern,
    attr_type_rewrite_pattern,
)

from bitfold.dialects.quant import QuantizedType
from bitfold.passes.lower_quant.casts import LOWER_CAST_PATTERNS
from bitfold.passes.lower_quant.float_storage import FLOAT_STORAGE_PATTERNS
from bitfold.passes.lower_quant.requant import LowerRequantize


class QuantToStorageType(TypeConversionPattern):
    """Every quantized type, wherever it appears (values, block arguments, function types,
    nested in tensors), becomes its signless storage integer type."""

    @attr_type_rewrite_pattern
    def convert_type(self, typ: QuantizedType) -> IntegerType:
        return typ.storage_integer_type()


@dataclass(frozen=True)
class LowerQuantPass(ModulePass):
    """Lower `quant.qcast`, `quant.dcast`, `quant.scast` and `quant.requant` on tensors to
    arith, math, linalg and tensor ops; afterwards no quant op or type remains (a scalar
    cast, or a requant whose fixed-point form does not fit i64, fails the pass with one
    line). qcast, dcast and scast compute bit-identical results; requant computes
    `requantization.requantize_fixed_point`, within 1 LSB of the exact `quant.requant`."""

    name = "lower-quant"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier([*FLOAT_STORAGE_PATTERNS, *LOWER_CAST_PATTERNS, LowerRequantize()])
        # Users first: each pattern reads its operand's quantized type before the producer
        # is lowered.
        PatternRewriteWalker(patterns, apply_recursively=False, walk_reverse=True).rewrite_module(op)
        PatternRewriteWalker(QuantToStorageType(recursive=True)).rewrite_module(op)
