"""The QOp form (onnxruntime's QOperator format): a float Conv or MatMul between quantization
points becomes one integer operator, everything else is QDQ (`bitfold.backends.onnx.qdq`).

    qcast(Conv(dcast(x), dcast(w), dcast(b)?))  ->  QLinearConv(x, s_x, zp_x, w, s_w, zp_w, s_y, zp_y, b)
    qcast(MatMul(dcast(a), dcast(b)))           ->  QLinearMatMul(a, s_a, zp_a, b, s_b, zp_b, s_y, zp_y)

matches where the float op's result has no other use, x / a / b and the result are 8-bit
per-tensor types (Conv weights per tensor or per output channel, axis 0), the qcast rounds as
QuantizeLinear does, and a Conv bias is an int32 type with zero point 0 and scale
fl32(s_x * s_w) (per output channel): the accumulator's scale, which QLinearConv adds it at.
The integer op sums exactly in int32 and requantizes in float32, where DQ -> Conv -> Q sums
the dequantized floats: near a rounding boundary the two can differ by one step (1 LSB)."""

import numpy as np
from xdsl.ir import Operation, SSAValue

from bitfold.backends.onnx.graph import GraphEmitter
from bitfold.backends.onnx.qdq import QdqForm, onnx_order_equivalent
from bitfold.backends.onnx.types import integer_code
from bitfold.dialects.onnx.nn import ConvOp, MatMulOp
from bitfold.dialects.quant import DequantizeCastOp, Granularity, QuantizeCastOp, UniformQuantizedType, element_type


def _dequantized(value: SSAValue | None) -> UniformQuantizedType | None:
    """The uniform type a value is the dcast of, else None."""
    owner = value.owner if value is not None else None
    if not isinstance(owner, DequantizeCastOp):
        return None
    qtype = element_type(owner.input.type)
    return qtype if isinstance(qtype, UniformQuantizedType) else None


def _quantized_source(value: SSAValue) -> SSAValue:
    """The quantized value `value` is the dcast of (`_dequantized` has found one)."""
    assert isinstance(value.owner, DequantizeCastOp)
    return value.owner.input


class QopForm(QdqForm):
    """See the module docstring."""

    name = "QOp"

    def emit(self, emitter: GraphEmitter, op: Operation) -> None:
        if isinstance(op, QuantizeCastOp) and self.fuse(emitter, op):
            return
        super().emit(emitter, op)

    def _held_in(self, emitter: GraphEmitter, value: SSAValue) -> tuple[int, bool]:
        """(bits, signed) of the ONNX tensor holding the quantized value `value` is the dcast
        of (emitted first: the unfused path reads it too)."""
        return self.tensor_container(emitter, emitter.name(_quantized_source(value)))

    def _eight_bit(self, emitter: GraphEmitter, value: SSAValue, per_channel_axis: int | None = None) -> bool:
        """Whether `value` is the dcast of a uniform value held in int8 / uint8, per tensor or
        per `per_channel_axis`."""
        qtype = _dequantized(value)
        if qtype is None or self._held_in(emitter, value)[0] != 8:
            return False
        return qtype.kind == Granularity.PER_TENSOR or (qtype.kind == Granularity.PER_AXIS and qtype.axis == per_channel_axis)

    def _bias_matches(self, emitter: GraphEmitter, bias: SSAValue | None, x: UniformQuantizedType,
                      w: UniformQuantizedType) -> bool:
        """No bias, or an int32 one at the accumulator's scale fl32(s_x * s_w)."""
        if bias is None:
            return True
        qtype = _dequantized(bias)
        if qtype is None or qtype.kind == Granularity.SUB_CHANNEL or not qtype.is_symmetric:
            return False
        if self._held_in(emitter, bias) != (32, True):
            return False
        expected = np.float32(x.scale) * np.array(w.scale_values(), dtype=np.float32)
        actual = np.array(qtype.scale_values(), dtype=np.float32)
        return actual.size in (1, expected.size) and bool(np.all(np.broadcast_to(actual, expected.shape) == expected))

    def fuse(self, emitter: GraphEmitter, qcast: QuantizeCastOp) -> bool:
        """Write `qcast` and the Conv / MatMul it quantizes as one QLinear op where the
        region matches (module docstring); False (nothing written) otherwise."""
        compute = qcast.input.owner
        y = element_type(qcast.result.type)
        if not isinstance(compute, ConvOp | MatMulOp) or not qcast.input.has_one_use():
            return False
        if not (isinstance(y, UniformQuantizedType) and onnx_order_equivalent(qcast, y)):
            return False
        y_container = self.container(y, qcast)
        if y_container[0] != 8 or y.kind != Granularity.PER_TENSOR:
            return False
        if isinstance(compute, ConvOp):
            x, w, bias = compute.x, compute.w, compute.b
            op_type, weight_axis = "QLinearConv", 0
        else:
            x, w, bias = compute.a, compute.b, None
            op_type, weight_axis = "QLinearMatMul", None
        if not (self._eight_bit(emitter, x) and self._eight_bit(emitter, w, weight_axis)):
            return False
        x_type, w_type = _dequantized(x), _dequantized(w)
        if not self._bias_matches(emitter, bias, x_type, w_type):
            return False
        name = emitter.node_name(compute)
        inputs: list[str] = []
        for value, qtype, hint in ((x, x_type, f"{name}_x"), (w, w_type, f"{name}_w")):
            inputs.append(emitter.name(_quantized_source(value)))
            inputs += self.parameters(emitter, qtype, (), qcast, hint, self._held_in(emitter, value))[0]
        inputs += self.parameters(emitter, y, (), qcast, f"{name}_y", y_container)[0]
        if bias is not None:
            inputs.append(emitter.name(bias.owner.input))
        attributes = emitter.attributes(compute)
        (result,) = emitter.builder.node(op_type, inputs, [integer_code(*y_container)], name,
                                         attributes=attributes, output_hints=[qcast.result.name_hint or name])
        emitter.define(qcast.result, result)
        return True
