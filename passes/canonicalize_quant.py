"""`canonicalize-quant`: the quant dialect's canonicalization plus the quant-level rewrites
that leave every float compute op between dcasts and qcasts."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.transforms.dead_code_elimination import region_dce

from bitfold.dialects.quant import Quant
from bitfold.passes.quant_propagation.fold_moved_constants import FoldMovedQuantizedConstant
from bitfold.passes.quant_propagation.fold_recurrent_parameters import FoldRecurrentParameters
from bitfold.passes.quant_propagation.hoist_quantize import HOIST_QUANTIZE_PATTERNS
from bitfold.passes.quant_propagation.sink_dequantize import SINK_DEQUANTIZE_PATTERNS


def quant_canonicalization_patterns() -> list:
    """The canonicalization patterns the quant dialect's ops declare (their traits)."""
    return [
        pattern
        for op_type in Quant.operations
        for trait in op_type.get_traits_of_type(HasCanonicalizationPatternsTrait)
        for pattern in trait.get_patterns(op_type)
    ]


@dataclass(frozen=True)
class CanonicalizeQuantPass(ModulePass):
    """Rewrite to a fixpoint, then remove dead pure ops; every rewrite is exact (the IR
    computes bit-identical results):

    - `qcast(dcast(y)) -> y` when the round trip is exact, `scast(scast(x)) -> x`, and every
      qcast / requant / scast of a constant folded into a constant (the quant dialect's
      canonicalization); this collapses two identical back-to-back fake quantizations into
      one. `dcast(qcast(x))` itself is never folded.
    - Dequantization moves down through data-movement ops, `op(dcast(q)) -> dcast(op'(q))`,
      for Reshape, Flatten, Squeeze, Unsqueeze, Transpose, MaxPool, Pad, Resize (nearest),
      DepthToSpace, SpaceToDepth, Slice, Gather, Split and Concat
      (`quant_propagation.sink_dequantize`: the conditions and why
      each is exact). `op'` runs on the stored integers; on quantized constants it folds into
      a constant (`quant_propagation.fold_moved_constants`: a transposed weight).
    - An LSTM's / GRU's W, R, B, P computed from constants alone (Brevitas' per-gate dequantized
      weights, concatenated) become float constants, evaluated by the ops' numpy references
      (`quant_propagation.fold_recurrent_parameters`).

    - Quantization of a graph input moves up through the data movement before it,
      `qcast(op(x)) -> op'(qcast'(x))` (`quant_propagation.hoist_quantize`: a float NHWC
      input transposed to NCHW then quantized becomes integer from the argument on).

    Direction: dcast moves down; qcast moves up only towards a graph input. Moving dcast down needs nothing but the
    dcast (no single-use condition, no change to values other users read), and it leaves a
    data-movement op between Q and DQ fully integer: `qcast(dcast(op'(q)))` folds when the
    types agree. Float compute ops (Conv, Gemm, Add, ...) then read dcast results directly
    and, in QDQ / QCDQ / QONNX form, feed the qcast of their output: the dcast -> op -> qcast
    regions `quant-to-integer` matches. A data-movement op between a compute op and its qcast
    (compute -> Reshape -> qcast) is left where it is."""

    name = "canonicalize-quant"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [
            *quant_canonicalization_patterns(),
            *SINK_DEQUANTIZE_PATTERNS,
            *HOIST_QUANTIZE_PATTERNS,
            FoldMovedQuantizedConstant(),
            FoldRecurrentParameters(),
        ]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns), post_walk_func=region_dce).rewrite_module(op)
