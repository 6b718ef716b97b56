"""QONNX: `qonnx.Quant`, `qonnx.BipolarQuant`, `qonnx.Trunc` (v2) and `qonnx.Trunc_v1` become
qcast / requant / dcast (docs/canonical-quant-form.md, "Per source form"). Parameters are
float constants broadcast against x: per tensor, or per channel (`(1, C, 1, 1)` is axis 1)."""

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType, UnitAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.qonnx import BipolarQuantOp, QOnnxOp, QuantOp, TruncOp, TruncV1Op, qonnx_int_range
from bitfold.dialects.quant import (
    DequantizeCastOp,
    QuantizeCastOp,
    RequantizeOp,
    RoundingMode,
    StorageCastOp,
)
from bitfold.dialects.quant_semantics import round_quotient, round_with
from bitfold.passes.onnx_to_quant.parameters import (
    Parameters,
    bipolar_type,
    bit_width_operand,
    broadcast_parameters,
    constant_parameter,
    float_element,
    integer_array,
    same_float_type,
    uniform_type,
)


def rounding_attributes(rounding: RoundingMode, zero_points: np.ndarray) -> dict[str, Attribute]:
    """qcast / requant attributes of QONNX's order: the rounding mode unless half to even, and
    `zero_point_first` unless every zero point is 0 (then both orders agree)."""
    attributes: dict[str, Attribute] = {}
    if rounding != RoundingMode.HALF_TO_EVEN:
        attributes["rounding"] = StringAttr(rounding.value)
    if np.any(zero_points != 0):
        attributes["zero_point_first"] = UnitAttr()
    return attributes


def float_parameters(op: QOnnxOp, x: SSAValue, scale: SSAValue, zero_point: SSAValue | None) -> Parameters:
    """The constant scale and (integer) zero point of a QONNX node, laid out against x."""
    expressed = float_element(op, x)
    scale_array = constant_parameter(op, scale, "scale")
    same_float_type(op, scale_array, expressed, "the scale")
    zero_array = np.zeros((), np.int64) if zero_point is None else constant_parameter(op, zero_point, "zero point")
    integer_array(op, zero_array, "zero point")
    return broadcast_parameters(op, scale_array, zero_array, len(x.type.get_shape()))


def fake_quantize(x: SSAValue, qtype, attributes: dict[str, Attribute], result_type) -> list[Operation]:
    """qcast x to `qtype`, dcast back to `result_type`."""
    qcast = QuantizeCastOp(x, TensorType(qtype, x.type.get_shape()), attributes)
    return [qcast, DequantizeCastOp(qcast.result, result_type)]


class QuantToCasts(RewritePattern):
    """Quant(x, s, zp, n) {signed, narrow, rounding_mode} -> dcast(qcast(x) {rounding,
    zero_point_first} : `!quant.uniform<S<lo:hi>:f, s:zp>`), [lo, hi] QONNX's n-bit range,
    S its canonical storage. Exact: Quant's R(clamp(x / s + zp)) is qcast's zero-point-first
    form (R commutes with clamping to integer bounds), and (q - zp) * s is dcast. A 1-bit
    signed Quant is bipolar: qcast to `!quant.bipolar` (zp must be 0)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantOp, rewriter: PatternRewriter) -> None:
        parameters = float_parameters(op, op.x, op.scale, op.zeropt)
        bits, signed = bit_width_operand(op, op.bitwidth, "bitwidth"), op.flag("signed")
        expressed = float_element(op, op.x)
        if bits == 1 and signed:
            qtype, attributes = bipolar_type(op, expressed, parameters), {}
        else:
            value_range = qonnx_int_range(bits, signed, op.flag("narrow"))
            qtype = uniform_type(op, expressed, parameters, value_range)
            attributes = rounding_attributes(op.rounding(), parameters.zero_points)
        rewriter.replace(op, fake_quantize(op.x, qtype, attributes, op.y.type))


class BipolarQuantToCasts(RewritePattern):
    """BipolarQuant(x, s) -> dcast(qcast(x) : `!quant.bipolar<f, s>`). Exact: both take
    +1 where x >= 0 (-0.0 included), else -1, times s."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BipolarQuantOp, rewriter: PatternRewriter) -> None:
        parameters = float_parameters(op, op.x, op.scale, None)
        qtype = bipolar_type(op, float_element(op, op.x), parameters)
        rewriter.replace(op, fake_quantize(op.x, qtype, {}, op.y.type))


def any_sign_range(bits: int) -> tuple[int, int]:
    """Every `bits`-bit integer, signed or unsigned: a Trunc's input type (Trunc neither
    states its input's signedness nor clamps it)."""
    return qonnx_int_range(bits, True, False)[0], qonnx_int_range(bits, False, False)[1]


def truncation(op: QOnnxOp, in_bits: int, t: np.ndarray | int, grid_range: tuple[int, int],
               out_scale: np.ndarray, out_zero_point: np.ndarray | None) -> list[Operation]:
    """x -> qcast to T_in (s, zp, `any_sign_range(in_bits)`) -> requant to T_grid (s * t,
    zp / t, `grid_range`) [-> scast pair reading the integers as T_out (out_scale,
    out_zero_point, default zp / t) when that differs] -> dcast, t a power of two. Exact:
    qcast (half to even, zero point first) is Trunc's round(x / s + zp); requant's
    clamp(R((q - zp) / t + zp / t)) is Trunc's R(clamp(q / t)) (exact in float: t is a power
    of two); dcast is Trunc's final (q - zp_out) * s_out."""
    x, scale, zeropt = op.operands[:3]
    expressed, rank, shape = float_element(op, x), len(x.type.get_shape()), x.type.get_shape()
    inputs = float_parameters(op, x, scale, zeropt)
    in_type = uniform_type(op, expressed, inputs, any_sign_range(in_bits))
    grid_scale = constant_parameter(op, scale, "scale").astype(np.float64) * t
    grid_zero_point = integer_array(op, constant_parameter(op, zeropt, "zero point") / t, "output zero point (zeropt / 2^k)")
    grid_type = uniform_type(op, expressed, broadcast_parameters(op, grid_scale, grid_zero_point, rank), grid_range)
    out_zero_point = grid_zero_point if out_zero_point is None else out_zero_point
    out_type = uniform_type(op, expressed, broadcast_parameters(op, out_scale, out_zero_point, rank), grid_range)
    qcast = QuantizeCastOp(x, TensorType(in_type, shape), rounding_attributes(RoundingMode.HALF_TO_EVEN, inputs.zero_points))
    requant = RequantizeOp(qcast.result, TensorType(grid_type, shape), rounding_attributes(op.rounding(), grid_zero_point))
    ops: list[Operation] = [qcast, requant]
    if out_type != grid_type:
        integers = StorageCastOp(requant.result, TensorType(grid_type.storage_integer_type(), shape))
        ops += [integers, StorageCastOp(integers.result, TensorType(out_type, shape))]
    return [*ops, DequantizeCastOp(ops[-1].results[0], op.y.type)]


class TruncToRequant(RewritePattern):
    """Trunc v2(x, s, zp, n_in, s_out, n_out) {signed, narrow, rounding_mode}: `truncation`
    with t = 2^round(log2(s_out / s)) (QONNX's trunc_scale, computed as QONNX does) and the
    grid range QONNX's n_out-bit range. Fails when zp / t is not an integer."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TruncOp, rewriter: PatternRewriter) -> None:
        scale = constant_parameter(op, op.scale, "scale")
        out_scale = constant_parameter(op, op.output_scale, "output scale")
        t = 2 ** round_with(np.log2(out_scale / scale), RoundingMode.HALF_TO_EVEN)
        in_bits = bit_width_operand(op, op.input_bit_width, "input_bit_width")
        out_range = qonnx_int_range(bit_width_operand(op, op.output_bit_width, "output_bit_width"),
                                    op.flag("signed"), op.flag("narrow"))
        rewriter.replace(op, truncation(op, in_bits, t, out_range, out_scale, None))


class TruncV1ToRequant(RewritePattern):
    """Trunc v1(x, s, zp, n_in, n_out) {rounding_mode}: `truncation` with t = 2^(n_in - n_out),
    no clamp (the grid range is the image R([lo, hi] / t) of the input range) and the output
    read with the input's scale and zero point, as v1 does. Fails when zp / t is not an
    integer."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TruncV1Op, rewriter: PatternRewriter) -> None:
        in_bits = bit_width_operand(op, op.input_bit_width, "input_bit_width")
        t = 2 ** (in_bits - bit_width_operand(op, op.output_bit_width, "output_bit_width"))
        low, high = (int(v) for v in round_quotient(np.array(any_sign_range(in_bits), dtype=object), t, op.rounding()))
        scale, zeropt = constant_parameter(op, op.scale, "scale"), constant_parameter(op, op.zeropt, "zero point")
        rewriter.replace(op, truncation(op, in_bits, t, (low, high), scale, integer_array(op, zeropt, "zero point")))
