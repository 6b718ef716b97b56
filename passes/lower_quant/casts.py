"""`quant.qcast`, `quant.dcast`, `quant.scast` on tensors become integer / float arith in a
`linalg.generic` (`passes.utils.parameter_tables`), bit-exact to `quant_semantics.quantize`, `dequantize`,
`to_storage` / `from_storage`. N is the storage width, W the working integer width: 32 when
N <= 16 (every |q - zp| < 2^17 fits), else 64.

qcast, x of float type F (uniform):
    v = x / s                                        (divf, in F, as the reference)
    ONNX order:        r = clamp_F(R(v), L - zp, H - zp); i = fptosi_W(r) + zp
    zero_point_first:  r = R(clamp_F(v + zp, L, H));      i = fptosi_W(r)
    q = trunci_N(clamp(i, L, H))
  [L, H] is the storage range. The float clamp (maxnumf / minnumf with the bounds rounded
  to F) keeps fptosi defined: +-inf clamp to the bounds, and NaN, which maxnumf drops for the
  other operand, becomes the lower bound, so q = L (onnxruntime's QuantizeLinear on x86 gives
  L for NaN too; `quant_semantics.quantize`). The integer clamp (maxsi / minsi) is emitted only
  when a bound is not exact in F (i32 storage in f32), and then makes the result exact.
qcast to bipolar: q = (x >= 0) as an i1 (cmpf oge: NaN gives 0, which stands for -1).
dcast: x = sitofp_F(ext_W(q) - zp) * s (extsi for signed storage, extui for unsigned), W = 32 where
  q and q - zp lie in i32 for every value and zero point (an i32 accumulator, so rv32 needs no i64), else 64;
  bipolar: x = select(q, s, -s).
scast: the value itself (storage is already the signless iN), an `onnx.Constant`'s as an
  `arith.constant` (the stored weights of a float island's dcast); to or from `uiN` / `siN`, a
  `builtin.unrealized_conversion_cast`.
qcast / dcast with float storage (f8E4M3FN, ...): `float_storage.py`.
"""

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType, TensorType, UnrealizedConversionCastOp
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.utils.exceptions import PassFailedException

from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.onnx.constant import ConstantOp as OnnxConstantOp
from bitfold.dialects.quant import (
    BipolarQuantizedType,
    DequantizeCastOp,
    QuantizeCastOp,
    QuantizedType,
    StorageCastOp,
    element_type,
)
from bitfold.passes.lower_quant.rounding import emit_float_rounding
from bitfold.passes.utils.parameter_tables import Body, Parameter, build_elementwise, parameter_table


def working_type(qtype: QuantizedType) -> IntegerType:
    """iW holding q - zp and the qcast grid without overflow."""
    return IntegerType(32 if qtype.storage_integer_type().width.data <= 16 else 64)


def dcast_working_type(qtype: QuantizedType) -> IntegerType:
    """i32 where every stored value q and q - zp lies in [-2^31, 2^31) (sitofp of i32 and of i64
    round the same integer once, alike), else i64; i32 for storage of 16 bits or less."""
    low, high = qtype.value_range()
    values = [low, high, *(v - zp for zp in qtype.zero_point_values() for v in (low, high))]
    return IntegerType(32 if all(-(2**31) <= v < 2**31 for v in values) else 64)


def checked_tensor(op, container) -> TensorType:
    if not isinstance(container, TensorType):
        raise PassFailedException(f"lower-quant: '{op.name}' on a scalar is not supported, only tensors")
    return container


def _float_bounds(low: np.ndarray, high: np.ndarray, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray, bool]:
    """The bounds in the float type (within its finite range) and whether both are exact."""
    finite = float(np.finfo(dtype).max)
    low_f = np.maximum(low, -finite).astype(dtype)
    high_f = np.minimum(high, finite).astype(dtype)
    exact = bool(np.all(low_f.astype(np.float64) == low) and np.all(high_f.astype(np.float64) == high))
    return low_f, high_f, exact


def _emit_clamp(body: Body, value, low, high, max_op, min_op):
    return body.emit(min_op(body.emit(max_op(value, low)), high))


class LowerQuantizeCast(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeCastOp, rewriter: PatternRewriter):
        result = checked_tensor(op, op.result.type)
        qtype, float_type = result.element_type, element_type(op.input.type)
        storage = qtype.storage_integer_type()
        if isinstance(qtype, BipolarQuantizedType):
            zero = Parameter(np.zeros(()), float_type)
            build = lambda body: body.emit(arith.CmpfOp(body.values["input"], body.values["zero"], "oge"))
            lowered = build_elementwise(rewriter, op.input, float_type, qtype, {"zero": zero}, QuantizedType.cast_to_storage_type(result), build)
            rewriter.replace(op, [], [lowered])
            return
        rounding, first = op.rounding_mode, op.adds_zero_point_first
        dtype, wide = numpy_dtype(float_type), working_type(qtype)
        scales = parameter_table(qtype, qtype.scale_values())
        zero_points = parameter_table(qtype, qtype.zero_point_values())
        low, high = qtype.value_range()
        offset = 0 if first else zero_points
        low_f, high_f, exact = _float_bounds(low - offset, high - offset, dtype)
        parameters = {
            "scale": Parameter(scales.astype(dtype), float_type),
            "low_f": Parameter(low_f, float_type),
            "high_f": Parameter(high_f, float_type),
        }
        if not exact:
            parameters["low"], parameters["high"] = Parameter(np.asarray(low), wide), Parameter(np.asarray(high), wide)
        if np.any(zero_points != 0):
            parameters["zero_point"] = Parameter(zero_points.astype(dtype) if first else zero_points, float_type if first else wide)

        def build(body: Body):
            v = body.emit(arith.DivfOp(body.values["input"], body.values["scale"]))
            if first and "zero_point" in body.values:
                v = body.emit(arith.AddfOp(v, body.values["zero_point"]))
            if first:
                v = _emit_clamp(body, v, body.values["low_f"], body.values["high_f"], arith.MaxnumfOp, arith.MinnumfOp)
            v = emit_float_rounding(body, v, rounding)
            if not first:
                v = _emit_clamp(body, v, body.values["low_f"], body.values["high_f"], arith.MaxnumfOp, arith.MinnumfOp)
            i = body.emit(arith.FPToSIOp(v, wide))
            if not first and "zero_point" in body.values:
                i = body.emit(arith.AddiOp(i, body.values["zero_point"]))
            if not exact:
                i = _emit_clamp(body, i, body.values["low"], body.values["high"], arith.MaxSIOp, arith.MinSIOp)
            return body.emit(arith.TruncIOp(i, storage)) if storage.width != wide.width else i

        lowered = build_elementwise(rewriter, op.input, float_type, qtype, parameters, QuantizedType.cast_to_storage_type(result), build)
        rewriter.replace(op, [], [lowered])


class LowerDequantizeCast(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DequantizeCastOp, rewriter: PatternRewriter):
        source = checked_tensor(op, op.input.type)
        qtype, float_type = source.element_type, element_type(op.result.type)
        storage, dtype = qtype.storage_integer_type(), numpy_dtype(float_type)
        scales = parameter_table(qtype, qtype.scale_values()).astype(dtype)
        parameters = {"scale": Parameter(scales, float_type)}
        if isinstance(qtype, BipolarQuantizedType):
            parameters["negated_scale"] = Parameter(-scales, float_type)
            build = lambda body: body.emit(
                arith.SelectOp(body.values["input"], body.values["scale"], body.values["negated_scale"])
            )
        else:
            wide = dcast_working_type(qtype)
            zero_points = parameter_table(qtype, qtype.zero_point_values())
            if np.any(zero_points != 0):
                parameters["zero_point"] = Parameter(zero_points, wide)
            extend = arith.ExtSIOp if qtype.is_signed else arith.ExtUIOp

            def build(body: Body):
                i = body.values["input"]
                if storage.width != wide.width:
                    i = body.emit(extend(i, wide))
                if "zero_point" in body.values:
                    i = body.emit(arith.SubiOp(i, body.values["zero_point"]))
                return body.emit(arith.MulfOp(body.emit(arith.SIToFPOp(i, float_type)), body.values["scale"]))

        result = TensorType(float_type, source.get_shape())
        lowered = build_elementwise(rewriter, op.input, storage, qtype, parameters, result, build)
        rewriter.replace(op, [], [lowered])


class LowerStorageCast(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: StorageCastOp, rewriter: PatternRewriter):
        quantized, integer = op.quantized_and_integer()
        if element_type(integer) == element_type(quantized).storage_integer_type():
            stored = op.input.owner
            if isinstance(stored, OnnxConstantOp) and isinstance(stored.value, DenseIntOrFPElementsAttr):
                rewriter.replace(op, arith.ConstantOp(stored.value))  # stored weights a float island reads
                if not stored.results[0].uses:
                    rewriter.erase(stored)
                return
            rewriter.replace(op, [], [op.input])
            return
        lowered_type = QuantizedType.cast_to_storage_type(quantized)
        result_type = lowered_type if quantized is op.result.type else op.result.type
        rewriter.replace(op, UnrealizedConversionCastOp.get([op.input], [result_type]))


LOWER_CAST_PATTERNS = (LowerQuantizeCast(), LowerDequantizeCast(), LowerStorageCast())
