"""`quant-requant-to-upstream`: spell every `quant.requant` (a bitfold op upstream MLIR lacks) in ops
mlir-opt-22 knows, so that any stage of bitfold's pipeline can be handed to it.

Where the pair is exact, a requant becomes upstream's own casts through the expressed float type:

    %r = quant.requant %q : tensor<4x!quant.uniform<i8:f32, 5.0e-01>> to tensor<4x!quant.uniform<i16:f32, 1.25e-01>>
      =>
    %x = quant.dcast %q : tensor<4x!quant.uniform<i8:f32, 5.0e-01>> to tensor<4xf32>
    %r = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i16:f32, 1.25e-01>>

Exact means: for every stored input value (all of them are tried; at most EXHAUSTIVE_LIMIT values over
every channel) both readings of the pair give the requant's exact result, with no clamping:
- upstream's (`mlir-opt-22 --lower-quant-ops`): x = (f(q) - f(zp_in)) * s_in, then
  q_out = fptosi(x / s_out + f(zp_out)), every step rounded to the expressed type and the last one
  truncating (so only values landing on an integer survive: s_in / s_out an integer, in practice);
- bitfold's (`quant_semantics.dequantize`, `quantize`).
Per-tensor and per-axis types with an f16, f32 or f64 expressed type qualify; sub-channel, bf16 and
wider ranges do not.

Every other requant (a ratio that rounds, a clamp, an i32 accumulator) becomes lower-quant's integer
form (`LowerRequantize`: the fixed-point multiply and rounding shift bitfold's backends run, within
1 LSB of the exact requant, docs/integer-ir.md) between `quant.scast`s to and from the storage integers:

    %i = quant.scast %q : ... to tensor<4xi32>
    %o = linalg.generic ... ins(%i : tensor<4xi32>) outs(...) { arith ... } -> tensor<4xi8>
    %r = quant.scast %o : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, ...>>

Nothing else changes: ONNX ops (until `onnx-data-movement-to-linalg`) still need mlir-opt-22's
`--allow-unregistered-dialect`, and `!quant.bipolar` has no upstream spelling."""

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import BFloat16Type, ModuleOp, TensorType
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.quant import (
    DequantizeCastOp,
    Granularity,
    QuantizeCastOp,
    QuantizedType,
    RequantizeOp,
    StorageCastOp,
    UniformQuantizedType,
    element_type,
)
from bitfold.dialects.quant_semantics import dequantize, quantize, requantize
from bitfold.passes.lower_quant.requant import LowerRequantize

EXHAUSTIVE_LIMIT = 1 << 18
"""Most (stored value, channel) pairs the exactness check tries; a requant with more is not spelled as casts."""


def _channel_grid(in_type: UniformQuantizedType, out_type: UniformQuantizedType) -> np.ndarray | None:
    """Every stored input value once per channel, shaped so that the types' parameters broadcast
    (the per-axis dimension holds the channels, the last one the values); None if not checkable."""
    types = (in_type, out_type)
    if any(t.kind == Granularity.SUB_CHANNEL or isinstance(t.expressed_type, BFloat16Type) for t in types):
        return None
    axes = {t.axis for t in types if t.kind == Granularity.PER_AXIS}
    if len(axes) > 1:
        return None
    channels = max(len(t.scale_values()) for t in types)
    low, high = in_type.value_range()
    if (high - low + 1) * channels > EXHAUSTIVE_LIMIT:
        return None
    axis = axes.pop() if axes else 0
    shape = [1] * axis + [channels, high - low + 1]
    return np.broadcast_to(np.arange(low, high + 1, dtype=np.int64), shape)


def upstream_casts_are_exact(op: RequantizeOp) -> bool:
    """Whether `dcast` + `qcast` through the expressed type computes `op` exactly, as upstream lowers
    the pair and as bitfold executes it (module docstring)."""
    in_type, out_type = element_type(op.input.type), element_type(op.result.type)
    grid = _channel_grid(in_type, out_type)
    if grid is None:
        return False
    want = requantize(grid, in_type, out_type, op.rounding_mode, op.adds_zero_point_first).astype(np.int64)
    dtype = numpy_dtype(in_type.expressed_type)
    in_scale, in_zero_point = (p.astype(dtype) for p in in_type.parameter_arrays(grid.shape))
    out_scale, out_zero_point = (p.astype(dtype) for p in out_type.parameter_arrays(grid.shape))
    with np.errstate(all="ignore"):
        upstream = (grid.astype(dtype) - in_zero_point) * in_scale / out_scale + out_zero_point
    low, high = out_type.value_range()
    if not (np.all(np.isfinite(upstream)) and np.all((low <= upstream) & (upstream < high + 1))):
        return False  # upstream's fptosi would need a clamp it does not do
    ours = quantize(dequantize(grid, in_type), out_type).astype(np.int64)
    return bool(np.array_equal(np.trunc(upstream).astype(np.int64), want) and np.array_equal(ours, want))


class SpellRequantizeUpstream(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: RequantizeOp, rewriter: PatternRewriter):
        if not isinstance(op.input.type, TensorType):
            return
        if upstream_casts_are_exact(op):
            dequantized = DequantizeCastOp(op.input, QuantizedType.cast_to_expressed_type(op.input.type))
            rewriter.replace(op, [dequantized, QuantizeCastOp(dequantized.result, op.result.type)])
            return
        self._integer_form(op, rewriter)

    @staticmethod
    def _integer_form(op: RequantizeOp, rewriter: PatternRewriter) -> None:
        """lower-quant's integer requantization between storage casts (module docstring)."""
        source, result_type = op.input, op.result.type
        uses = [(use.operation, use.index) for use in op.result.uses]
        if not uses:
            rewriter.erase(op)
            return
        stored = StorageCastOp(source, QuantizedType.cast_to_storage_type(source.type))
        rewriter.insert(stored, InsertPoint.before(op))
        LowerRequantize().match_and_rewrite(op, rewriter)
        user, index = uses[0]
        lowered = user.operands[index]
        generic = lowered.owner
        generic.operands = [stored.result if operand is source else operand for operand in generic.operands]
        restored = StorageCastOp(lowered, result_type)
        rewriter.insert(restored, InsertPoint.after(generic))
        lowered.replace_uses_with_if(restored.result, lambda use: use.operation is not restored)


@dataclass(frozen=True)
class QuantRequantToUpstreamPass(ModulePass):
    """Spell every `quant.requant` in ops mlir-opt-22 knows: upstream's dcast + qcast where that pair
    is exact, lower-quant's integer form between storage casts elsewhere (module docstring)."""

    name = "quant-requant-to-upstream"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(SpellRequantizeUpstream(), apply_recursively=False).rewrite_module(op)
