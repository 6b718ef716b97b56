"""`quant.qcast` / `quant.dcast` with float storage (`!quant.uniform<f8E4M3FN:f32, s>`, ...) become
a `linalg.generic` each, bit-exact to `minifloat.encode` / `decode` (the casts' references):

qcast, x of f32, format of M mantissa bits, emin = 1 - bias (`bitfold.dialects.minifloat`):
    v = x / s                                                  (divf, as the reference)
    u = bitcast_i32(v); m = u & 0x7FFFFFFF; e = m >> 23 (shrui)
    E = max(e, 1) - 127; sig = (m & 0x7FFFFF) | (e > 0 ? 2^23 : 0)
    k = min(23 - M + max(emin - E, 0), 31)
    n = (sig + (1 << (k - 1)) - 1 + ((sig >> k) & 1)) >> k      (half to even; sig < 2^24: no overflow)
    code = (max(E - emin, 0) << M) + n, then min(code, max_code)   (saturating)
      non_saturating: code > max_code ? overflow : code            (the format's inf or NaN code)
    code |= sign bit where u < 0 (FNUZ formats: only where code != 0 and not their NaN 0x80)
    code = NaN's code where m > 0x7F800000
  integer arithmetic on the bits of the float32 quotient: no float operation but the division.
dcast: x = table[b] * s, table the 2^N exact float32 values of the bit patterns (`decode_table`),
  b zero-extended as the index.
scast of a float-storage `onnx.Constant` (a float island's float8 weights): an `arith.constant`
  of the values' bit patterns as the signless storage integers.
"""

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, Float32Type, IntegerType, TensorType
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.utils.exceptions import PassFailedException

from bitfold.dialects.evaluation import read_signed
from bitfold.dialects.minifloat import (
    F32_BIAS,
    F32_INFINITY,
    F32_MANTISSA_BITS,
    decode_table,
    is_float_storage,
    is_fnuz,
    max_code,
    nan_code,
    overflow_code,
    sign_bit,
)
from bitfold.dialects.onnx.constant import ConstantOp as OnnxConstantOp
from bitfold.dialects.onnx.constant import dense_attr, dense_to_numpy
from bitfold.dialects.quant import (
    DequantizeCastOp,
    FloatQuantizedType,
    QuantizeCastOp,
    QuantizedType,
    StorageCastOp,
    element_type,
)
from bitfold.dialects.table_lookup import read_table
from bitfold.passes.utils.linalg_building import Body
from bitfold.passes.utils.parameter_tables import Parameter, build_elementwise, parameter_table

I32 = IntegerType(32)


def _float_storage(op, container) -> FloatQuantizedType | None:
    qtype = element_type(container)
    if not isinstance(qtype, FloatQuantizedType):
        return None
    if not isinstance(container, TensorType) or not isinstance(qtype.expressed_type, Float32Type):
        raise PassFailedException(f"lower-quant: '{op.name}' with float storage on {container}: only f32 tensors")
    return qtype


def emit_encode(body: Body, v, qtype: FloatQuantizedType, saturate: bool = True):
    """The module docstring's qcast formula on the f32 value v, as a storage integer."""
    semantics = qtype.semantics
    mantissa_bits, emin = semantics.mantissa_bits, 1 - semantics.exponent_bias

    def c(value: int):
        return body.constant(value, I32)

    def op(kind, a, b):
        return body.emit(kind(a, b))

    u = body.emit(arith.BitcastOp(v, I32))
    magnitude = op(arith.AndIOp, u, c(0x7FFFFFFF))
    field = op(arith.ShRUIOp, magnitude, c(F32_MANTISSA_BITS))
    exponent = op(arith.SubiOp, op(arith.MaxSIOp, field, c(1)), c(F32_BIAS))
    implicit = body.emit(arith.SelectOp(body.emit(arith.CmpiOp(field, c(0), "sgt")), c(1 << F32_MANTISSA_BITS), c(0)))
    significand = op(arith.OrIOp, op(arith.AndIOp, magnitude, c((1 << F32_MANTISSA_BITS) - 1)), implicit)
    below = op(arith.MaxSIOp, op(arith.SubiOp, c(emin), exponent), c(0))
    shift = op(arith.MinSIOp, op(arith.AddiOp, below, c(F32_MANTISSA_BITS - mantissa_bits)), c(31))
    half_less_one = op(arith.SubiOp, op(arith.ShLIOp, c(1), op(arith.SubiOp, shift, c(1))), c(1))
    odd = op(arith.AndIOp, op(arith.ShRUIOp, significand, shift), c(1))
    rounded = op(arith.ShRUIOp, op(arith.AddiOp, op(arith.AddiOp, significand, half_less_one), odd), shift)
    binade = op(arith.ShLIOp, op(arith.MaxSIOp, op(arith.SubiOp, exponent, c(emin)), c(0)), c(mantissa_bits))
    code = op(arith.AddiOp, binade, rounded)
    if saturate:
        code = op(arith.MinSIOp, code, c(max_code(semantics)))
    else:
        beyond = body.emit(arith.CmpiOp(code, c(max_code(semantics)), "sgt"))
        code = body.emit(arith.SelectOp(beyond, c(overflow_code(semantics, False)), code))
    negative = body.emit(arith.CmpiOp(u, c(0), "slt"))
    signed = body.emit(arith.SelectOp(negative, op(arith.OrIOp, code, c(sign_bit(semantics))), code))
    if is_fnuz(semantics):  # no -0; a non-saturating overflow is the one NaN, 0x80, already
        unsigned = body.emit(arith.CmpiOp(code, c(0), "eq"))
        if not saturate:
            unsigned = op(arith.OrIOp, unsigned, body.emit(arith.CmpiOp(code, c(sign_bit(semantics)), "eq")))
        signed = body.emit(arith.SelectOp(unsigned, code, signed))
    nan = body.emit(arith.SelectOp(negative, c(int(nan_code(semantics, np.array(True)))), c(int(nan_code(semantics, np.array(False))))))
    code = body.emit(arith.SelectOp(body.emit(arith.CmpiOp(magnitude, c(F32_INFINITY), "ugt")), nan, signed))
    return body.emit(arith.TruncIOp(code, qtype.storage_integer_type()))


class LowerQuantizeToFloatStorage(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeCastOp, rewriter: PatternRewriter):
        if (qtype := _float_storage(op, op.result.type)) is None:
            return
        f32 = Float32Type()
        scales = parameter_table(qtype, qtype.scale_values()).astype(np.float32)

        def build(body: Body):
            quotient = body.emit(arith.DivfOp(body.values["input"], body.values["scale"]))
            return emit_encode(body, quotient, qtype, op.saturates)

        lowered = build_elementwise(rewriter, op.input, f32, qtype, {"scale": Parameter(scales, f32)},
                                    QuantizedType.cast_to_storage_type(op.result.type), build)
        rewriter.replace(op, [], [lowered])


class LowerDequantizeFromFloatStorage(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DequantizeCastOp, rewriter: PatternRewriter):
        if (qtype := _float_storage(op, op.input.type)) is None:
            return
        f32, storage = Float32Type(), qtype.storage_integer_type()
        values = decode_table(qtype.semantics)
        table = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(TensorType(f32, [values.size]), values.tolist()))
        rewriter.insert(table)
        scales = parameter_table(qtype, qtype.scale_values()).astype(np.float32)

        def build(body: Body):
            decoded = read_table(body.emit, table.result, body.emit(arith.ExtUIOp(body.values["input"], I32)))
            return body.emit(arith.MulfOp(decoded, body.values["scale"]))

        result = TensorType(f32, op.input.type.get_shape())
        lowered = build_elementwise(rewriter, op.input, storage, qtype, {"scale": Parameter(scales, f32)}, result, build)
        rewriter.replace(op, [], [lowered])


class LowerStoredFloatConstant(RewritePattern):
    """scast of an `onnx.Constant` of a float storage type -> `arith.constant` of its bit
    patterns (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: StorageCastOp, rewriter: PatternRewriter):
        stored = op.input.owner
        if not isinstance(stored, OnnxConstantOp) or not is_float_storage(element_type(op.input.type)):
            return
        quantized, _ = op.quantized_and_integer()
        storage = element_type(quantized).storage_integer_type()
        bits = read_signed(dense_to_numpy(stored.value).view(np.uint8), storage.width.data)  # as iN holds them
        rewriter.replace(op, arith.ConstantOp(dense_attr(bits, storage)))
        if not stored.results[0].uses:
            rewriter.erase(stored)


FLOAT_STORAGE_PATTERNS = (LowerQuantizeToFloatStorage(), LowerDequantizeFromFloatStorage(), LowerStoredFloatConstant())
