"""QOp: onnxruntime's integer operators (QLinearConv, QLinearMatMul, QGemm, QLinearAdd,
QLinearMul, QLinearAveragePool, QLinearGlobalAveragePool, QLinearConcat, QLinearSoftmax) become
a region dcast -> float `onnx.*` op -> qcast (docs/canonical-quant-form.md, "Per source form").

Not bit-exact: onnxruntime accumulates in integers and requantizes in float32, the float op
accumulates dequantized values; near a rounding tie the two can differ by one LSB of the
output. ConvInteger and MatMulInteger are kept: their int32 result is their exact meaning,
and their inputs already are ONNX integers (scast of quantized values)."""

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType, f32, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.contrib import (
    QGemmOp,
    QLinearAddOp,
    QLinearAveragePoolOp,
    QLinearConcatOp,
    QLinearGlobalAveragePoolOp,
    QLinearMulOp,
    QLinearSoftmaxOp,
)
from bitfold.dialects.onnx.elementwise import AddOp, MulOp
from bitfold.dialects.onnx.nn import AveragePoolOp, ConvOp, GemmOp, GlobalAveragePoolOp, MatMulOp, SoftmaxOp
from bitfold.dialects.onnx.quantization import QLinearConvOp, QLinearMatMulOp
from bitfold.dialects.onnx.shape import ConcatOp
from bitfold.dialects.quant import DequantizeCastOp, QuantizeCastOp, StorageCastOp
from bitfold.passes.onnx_to_quant.parameters import Parameters, constant_parameter, fail, uniform_type
from bitfold.passes.onnx_to_quant.qdq import onnx_quantized_type, storage_to_quantized

INT32_RANGE = (-(2**31), 2**31 - 1)
"""The range of an int32 bias."""


class FloatRegion:
    """The ops of one QOp's replacement, built in order: dequantized inputs, the float op,
    the quantized result."""

    def __init__(self, op: OnnxOp):
        self.op = op
        self.ops: list[Operation] = []

    def dequantized(self, value: SSAValue, scale: SSAValue, zero_point: SSAValue | None, axis: int = 0) -> SSAValue:
        """dcast(scast(value)) with the ONNX quantization (scale, zero point; per `axis` when
        the scale has several elements) of the integer tensor `value`."""
        qtype = onnx_quantized_type(self.op, value, scale, zero_point, f32, axis)
        return self._dequantize(storage_to_quantized(value, qtype))

    def dequantized_bias(self, bias: SSAValue, scales: np.ndarray, axis: int) -> SSAValue:
        """dcast(scast(bias)) of an int32 bias as `!quant.uniform<i32:f32, s>`, s the product
        of the operands' scales (per `axis` when they are per channel)."""
        if scales.size > 1:
            parameters = Parameters(scales.reshape(-1), np.zeros(scales.size, np.int64), axis)
        else:
            parameters = Parameters(scales.reshape(()), np.zeros((), np.int64))
        qtype = uniform_type(self.op, f32, parameters, INT32_RANGE)
        return self._dequantize(storage_to_quantized(bias, qtype))

    def _dequantize(self, scast: StorageCastOp) -> SSAValue:
        dcast = DequantizeCastOp(scast.result, TensorType(f32, scast.result.type.get_shape()))
        self.ops += [scast, dcast]
        return dcast.result

    def float_op(self, op_class: type[IRDLOperation], operands: Sequence[SSAValue | Sequence[SSAValue]],
                 result: SSAValue, attributes: dict[str, Attribute] | None = None) -> SSAValue:
        """The float op computing `result`'s shape in f32; the QOp's attributes that
        `op_class` defines are copied, `attributes` added; it keeps the node's location."""
        defined = op_class.get_irdl_definition().attributes
        copied = {name: value for name, value in self.op.attributes.items() if name in defined}
        float_op = op_class.build(operands=operands, result_types=[TensorType(f32, result.type.get_shape())],
                                  attributes={**copied, **(attributes or {})})
        float_op.location = self.op.location
        self.ops.append(float_op)
        return float_op.results[0]

    def quantized(self, value: SSAValue, scale: SSAValue, zero_point: SSAValue | None, result: SSAValue) -> list[Operation]:
        """The region's ops, ending in scast(qcast(value)) to `result`'s ONNX integer type."""
        qtype = onnx_quantized_type(self.op, result, scale, zero_point, f32)
        qcast = QuantizeCastOp(value, TensorType(qtype, result.type.get_shape()))
        return [*self.ops, qcast, StorageCastOp(qcast.result, result.type)]


def scale_product(op: OnnxOp, *scales: SSAValue) -> np.ndarray:
    """The product of constant scales (float64 of their float32 values), as a 1-D array."""
    product = np.ones(1)
    for scale in scales:
        product = product * constant_parameter(op, scale, "scale").astype(np.float64).reshape(-1)
    return product


class QLinearConvToFloat(RewritePattern):
    """QLinearConv(x, sx, zx, w, sw, zw, sy, zy, b) -> scast(qcast(Conv(dq(x), dq(w),
    dq(b)))) with dq(b) at scale sx * sw (int32, per output channel where sw is)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QLinearConvOp, rewriter: PatternRewriter) -> None:
        region = FloatRegion(op)
        x = region.dequantized(op.x, op.x_scale, op.x_zero_point)
        w = region.dequantized(op.w, op.w_scale, op.w_zero_point, axis=0)
        b = [] if op.b is None else [region.dequantized_bias(op.b, scale_product(op, op.x_scale, op.w_scale), 0)]
        y = region.float_op(ConvOp, [x, w, b], op.y)
        rewriter.replace(op, region.quantized(y, op.y_scale, op.y_zero_point, op.y))


class QLinearMatMulToFloat(RewritePattern):
    """QLinearMatMul(a, sa, za, b, sb, zb, sy, zy) -> scast(qcast(MatMul(dq(a), dq(b)))),
    a per row (axis -2) and b per column (axis -1) where their scales have several elements."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QLinearMatMulOp, rewriter: PatternRewriter) -> None:
        region = FloatRegion(op)
        a = region.dequantized(op.a, op.a_scale, op.a_zero_point, axis=-2)
        b = region.dequantized(op.b, op.b_scale, op.b_zero_point, axis=-1)
        y = region.float_op(MatMulOp, [a, b], op.y)
        rewriter.replace(op, region.quantized(y, op.y_scale, op.y_zero_point, op.y))


class QGemmToFloat(RewritePattern):
    """QGemm(a, sa, za, b, sb, zb, c, sy, zy) {alpha, transA, transB} -> scast(qcast(
    Gemm(dq(a), dq(b), dq(c)) {alpha, beta = 1})) with dq(c) at scale alpha * sa * sb (int32,
    per column of B' where sb is); without sy the float Gemm is the result."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QGemmOp, rewriter: PatternRewriter) -> None:
        region = FloatRegion(op)
        a = region.dequantized(op.a, op.a_scale, op.a_zero_point)
        b = region.dequantized(op.b, op.b_scale, op.b_zero_point, axis=1 - op.int_attr("transB"))
        c = []
        if op.c is not None:
            alpha = np.float64(op.float_attr("alpha"))
            c = [region.dequantized_bias(op.c, alpha * scale_product(op, op.a_scale, op.b_scale), -1 % len(op.c.type.get_shape()))]
        y = region.float_op(GemmOp, [a, b, c], op.y, {"beta": FloatAttr(1.0, f32)})
        if op.y_scale is None:
            rewriter.replace(op, region.ops, [y])
        else:
            rewriter.replace(op, region.quantized(y, op.y_scale, op.y_zero_point, op.y))


class QLinearBinaryToFloat(RewritePattern):
    """QLinearAdd / QLinearMul(a, sa, za, b, sb, zb, sc, zc) -> scast(qcast(Add / Mul(dq(a),
    dq(b))))."""

    FLOAT_OPS = {QLinearAddOp: AddOp, QLinearMulOp: MulOp}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (float_class := self.FLOAT_OPS.get(type(op))) is None:
            return
        region = FloatRegion(op)
        a = region.dequantized(op.a, op.a_scale, op.a_zero_point)
        b = region.dequantized(op.b, op.b_scale, op.b_zero_point)
        c = region.float_op(float_class, [a, b], op.c)
        rewriter.replace(op, region.quantized(c, op.c_scale, op.c_zero_point, op.c))


class QLinearPoolToFloat(RewritePattern):
    """QLinearAveragePool / QLinearGlobalAveragePool(x, sx, zx, sy, zy) -> scast(qcast(
    AveragePool / GlobalAveragePool(dq(x)))) with the pooling attributes; channels_last
    (not an ONNX layout) fails."""

    FLOAT_OPS = {QLinearAveragePoolOp: AveragePoolOp, QLinearGlobalAveragePoolOp: GlobalAveragePoolOp}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (float_class := self.FLOAT_OPS.get(type(op))) is None:
            return
        if op.int_attr("channels_last"):
            fail(op, "channels_last pooling has no float ONNX op")
        region = FloatRegion(op)
        x = region.dequantized(op.x, op.x_scale, op.x_zero_point)
        y = region.float_op(float_class, [x], op.y)
        rewriter.replace(op, region.quantized(y, op.y_scale, op.y_zero_point, op.y))


class QLinearSoftmaxToFloat(RewritePattern):
    """QLinearSoftmax(x, sx, zx, sy, zy) {axis, opset} -> scast(qcast(Softmax(dq(x)) {axis})),
    along one axis: opset >= 13's `axis`, or below 13 an `axis` that is the last one (older
    opsets flatten the dimensions from `axis` on). onnxruntime multiplies by floor(1 / sy)
    where the qcast divides by sy: the same where 1 / sy is an integer (quantize_static's
    1/256); it sums float32 exponentials, the float op float64 ones (one LSB near ties)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QLinearSoftmaxOp, rewriter: PatternRewriter) -> None:
        rank = len(op.x.type.get_shape())
        opset = op.int_attr("opset")
        axis = op.int_attr("axis")
        if opset < 13 and axis % rank != rank - 1:
            fail(op, f"opset {opset} Softmax over the dimensions from axis {axis} on: only the last axis is supported")
        region = FloatRegion(op)
        x = region.dequantized(op.x, op.x_scale, op.x_zero_point)
        y = region.float_op(SoftmaxOp, [x], op.y, {"axis": IntegerAttr(axis % rank, i64)})
        rewriter.replace(op, region.quantized(y, op.y_scale, op.y_zero_point, op.y))


class QLinearConcatToFloat(RewritePattern):
    """QLinearConcat(sy, zy, (x_i, s_i, z_i)...) {axis} -> scast(qcast(Concat(dq(x_i)...)))."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QLinearConcatOp, rewriter: PatternRewriter) -> None:
        region = FloatRegion(op)
        triples = list(op.inputs)
        inputs = [region.dequantized(*triples[i : i + 3]) for i in range(0, len(triples), 3)]
        y = region.float_op(ConcatOp, [inputs], op.y)
        rewriter.replace(op, region.quantized(y, op.y_scale, op.y_zero_point, op.y))
