"""QDQ and QCDQ: `onnx.QuantizeLinear`, `onnx.DequantizeLinear` and the integer `onnx.Clip`
between them become `quant.qcast` / `quant.dcast`, with `quant.scast` where ONNX integers
remain (docs/canonical-quant-form.md, "Per source form")."""

from dataclasses import dataclass

from xdsl.dialects.builtin import Float32Type, TensorType, UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.minifloat import is_float_storage
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.constant import ConstantOp, dense_to_numpy
from bitfold.dialects.onnx.elementwise import ClipOp
from bitfold.dialects.onnx.quantization import DequantizeLinearOp, QuantizeLinearOp, saturation_range
from bitfold.dialects.quant import (
    DequantizeCastOp,
    FloatQuantizedType,
    QuantizeCastOp,
    RequantizeOp,
    StorageCastOp,
    UniformQuantizedType,
    element_type,
)
from bitfold.dialects.quant_semantics import clamp, from_storage
from bitfold.dialects.quantized_constants import quantized_constant
from bitfold.passes.onnx_to_quant.negative_scales import has_negative_scale, negated_weights
from bitfold.passes.onnx_to_quant.parameters import (
    checked,
    constant_parameter,
    fail,
    float_element,
    onnx_parameters,
    same_float_type,
    uniform_type,
)
from bitfold.passes.utils.canonical_storage import with_value_range


def onnx_quantized_type(op: OnnxOp, integers: SSAValue, scale: SSAValue, zero_point: SSAValue | None,
                        expressed, axis: int = 1, block_size: int = 0) -> UniformQuantizedType:
    """The uniform type ONNX gives the integer tensor `integers` with constant `scale` and
    `zero_point` (absent: 0): its range is the integer type's, its layout ONNX's `expand`."""
    scale_array = constant_parameter(op, scale, "scale")
    same_float_type(op, scale_array, expressed, "the scale")
    zero_array = None if zero_point is None else constant_parameter(op, zero_point, "zero point")
    parameters = onnx_parameters(op, scale_array, zero_array, integers.type.get_shape(), axis, block_size)
    return uniform_type(op, expressed, parameters, saturation_range(integers.type))


def onnx_float_quantized_type(op: OnnxOp, values: SSAValue, scale: SSAValue, expressed,
                              axis: int, block_size: int) -> FloatQuantizedType:
    """The float-storage type of a float8 / float4 tensor `values` with constant `scale`, per
    tensor or per axis (its zero point, which the onnx op verifies zero, plays no part). f32
    only: ONNX's DequantizeLinear multiplies in f32 whatever the scale's type."""
    if not isinstance(expressed, Float32Type):
        fail(op, f"float8/float4 quantization expressed in {expressed}: only f32 has a quant form")
    scale_array = constant_parameter(op, scale, "scale")
    same_float_type(op, scale_array, expressed, "the scale")
    parameters = onnx_parameters(op, scale_array, None, values.type.get_shape(), axis, block_size)
    if parameters.block_sizes:
        fail(op, "blocked float8/float4 quantization has no quant form")
    storage = values.type.get_element_type()
    return checked(op, FloatQuantizedType.get(storage, expressed, parameters.scales.reshape(-1).tolist(), parameters.axis))


def storage_to_quantized(value: SSAValue, qtype: UniformQuantizedType) -> StorageCastOp:
    """`quant.scast` of an integer tensor to `qtype` elements."""
    return StorageCastOp(value, TensorType(qtype, value.type.get_shape()))


@dataclass
class ClippedIntegers:
    """An integer tensor `source` read through a chain of integer `onnx.Clip`s with constant
    bounds: the values are clamp(source, low, high)."""

    source: SSAValue
    low: int
    high: int

    @staticmethod
    def of(value: SSAValue) -> "ClippedIntegers":
        low, high = saturation_range(value.type)
        while isinstance(clip := value.owner, ClipOp) and all(
            bound is None or isinstance(bound.owner, ConstantOp) for bound in (clip.min, clip.max)
        ):
            if clip.min is not None:
                low = max(low, int(dense_to_numpy(clip.min.owner.value)))
            if clip.max is not None:
                high = min(high, int(dense_to_numpy(clip.max.owner.value)))
            value = clip.input
        return ClippedIntegers(value, low, high)


ONNX_FLOAT_CODES = {"Float32Type": 1, "Float16Type": 10, "Float64Type": 11, "BFloat16Type": 16}
"""ONNX TensorProto data type codes of the float types (QuantizeLinear's `precision`)."""


class QuantizeLinearToCast(RewritePattern):
    """QuantizeLinear(x, s, zp) -> scast(qcast(x) : T) to the ONNX result type, T =
    `!quant.uniform<S:f, s:zp>` with S the result's integer type (per axis / per block as
    ONNX's axis / block_size say). Exact: the default qcast is QuantizeLinear's formula
    (divide in f, round half to even, add zp, saturate to S); the division happens in x's
    type, so the scale (and `precision`, when set) must be that type. A float8 / float4 result
    gives T = `!quant.uniform<F:f32, s>` (`saturate` = 0: the qcast is `non_saturating`; a
    float4 zero point, which onnx's reference adds and so turns -0 into +0, is refused)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeLinearOp, rewriter: PatternRewriter) -> None:
        expressed = float_element(op, op.x)
        if op.int_attr("precision") not in (0, ONNX_FLOAT_CODES.get(type(expressed).__name__)):
            fail(op, f"precision {op.int_attr('precision')} differs from the input type {expressed}")
        attributes = {}
        if is_float_storage(op.y.type.get_element_type()):
            if op.int_attr("saturate") != 1:
                attributes["non_saturating"] = UnitAttr()
            if op.y_zero_point is not None and op.y.type.get_element_type().bitwidth == 4:
                fail(op, "a float4 zero point turns -0 into +0 (onnx's reference adds it): no quant form")
            qtype = onnx_float_quantized_type(op, op.y, op.y_scale, expressed, op.int_attr("axis"), op.int_attr("block_size"))
        else:
            qtype = onnx_quantized_type(op, op.y, op.y_scale, op.y_zero_point, expressed,
                                        op.int_attr("axis"), op.int_attr("block_size"))
        qcast = QuantizeCastOp(op.x, TensorType(qtype, op.x.type.get_shape()), attributes)
        rewriter.replace(op, [qcast, StorageCastOp(qcast.result, op.y.type)])


class DequantizeLinearToCast(RewritePattern):
    """DequantizeLinear(Clip*(i), s, zp) -> dcast(v : T), T = `!quant.uniform<S<lo:hi>:f,
    s:zp>` where [lo, hi] is the integer type's range narrowed by the integer Clips between
    (QCDQ), in canonical storage; v holds i's values in T:
    - i = scast(q) with q of T's grid (scales, zero points, layout): q itself when its range
      lies in [lo, hi], else q's qcast redone to T (clamp(clamp(a)) is one clamp to the
      intersection; R commutes with clamping to integer bounds), else requant(q) to T;
    - i a constant: a constant of the clamped values in T's storage, scast to T;
    - otherwise: scast(i) to the full range, requant to T if the Clips narrow it.
    Exact: dcast computes float(i - zp) * s in f, DequantizeLinear's formula for f32.
    Negative scales (of constant integers) move their sign into the integers
    (`negative_scales`).
    float8 / float4 x: dcast(v : `!quant.uniform<F:f32, s>`), v the qcast's value where x
    is its scast, else scast(x): decode(x) * s in f32, DequantizeLinear's formula."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DequantizeLinearOp, rewriter: PatternRewriter) -> None:
        expressed = float_element(op, op.y)
        if is_float_storage(op.x.type.get_element_type()):
            qtype = onnx_float_quantized_type(op, op.x, op.x_scale, expressed, op.int_attr("axis"), op.int_attr("block_size"))
            quantized_type = TensorType(qtype, op.x.type.get_shape())
            source = op.x.owner
            if isinstance(source, StorageCastOp) and source.input.type == quantized_type:
                rewriter.replace(op, [DequantizeCastOp(source.input, op.y.type)])
            else:
                scast = StorageCastOp(op.x, quantized_type)
                rewriter.replace(op, [scast, DequantizeCastOp(scast.result, op.y.type)])
            return
        clipped = ClippedIntegers.of(op.x)
        if clipped.low >= clipped.high:
            fail(op, f"the Clips before it leave the empty or one-value range [{clipped.low}, {clipped.high}]")
        if has_negative_scale(op):
            new_ops, quantized = negated_weights(op, clipped.source, clipped.low, clipped.high)
        else:
            full = onnx_quantized_type(op, op.x, op.x_scale, op.x_zero_point, expressed,
                                       op.int_attr("axis"), op.int_attr("block_size"))
            new_ops, quantized = _quantized_values(clipped, full, with_value_range(full, clipped.low, clipped.high))
        rewriter.replace(op, [*new_ops, DequantizeCastOp(quantized, op.y.type)])


def _quantized_values(clipped: ClippedIntegers, full: UniformQuantizedType,
                      qtype: UniformQuantizedType) -> tuple[list[Operation], SSAValue]:
    """Ops computing clamp(clipped.source) as a `qtype` tensor (see DequantizeLinearToCast)."""
    source = clipped.source
    shape = source.type.get_shape()
    if isinstance(cast := source.owner, StorageCastOp) and _same_grid(element_type(cast.input.type), qtype):
        previous = element_type(cast.input.type)
        low, high = previous.value_range()
        if clipped.low <= low and high <= clipped.high:
            return [], cast.input
        if isinstance(quantize := cast.input.owner, QuantizeCastOp):
            requantize = QuantizeCastOp(quantize.input, TensorType(qtype, shape), dict(quantize.attributes))
        else:
            requantize = RequantizeOp(cast.input, TensorType(qtype, shape))
        return [requantize], requantize.result
    if isinstance(constant := source.owner, ConstantOp):
        stored = clamp(from_storage(dense_to_numpy(constant.value), full), clipped.low, clipped.high)
        integers, scast = quantized_constant(stored, TensorType(qtype, shape))
        return [integers, scast], scast.result
    scast = storage_to_quantized(source, full)
    if qtype == full:
        return [scast], scast.result
    narrow = RequantizeOp(scast.result, TensorType(qtype, shape))
    return [scast, narrow], narrow.result


def _same_grid(previous, qtype: UniformQuantizedType) -> bool:
    """Whether `previous` is a uniform type with `qtype`'s scales, zero points and layout."""
    return isinstance(previous, UniformQuantizedType) and with_value_range(previous, *qtype.value_range()) == qtype
