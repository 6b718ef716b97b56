"""The float value of integers at a quantized type: `dcast(scast(integers))`, what an op
lowered to integers leaves for its float users (a following `qcast` then becomes a
`quant.requant`; a function result stays this `dcast`)."""

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from bitfold.dialects.quant import DequantizeCastOp, QuantizedType, StorageCastOp


def quantized(rewriter: PatternRewriter, integers: SSAValue, qtype: QuantizedType) -> SSAValue:
    """`integers` (signless storage of `qtype`) reinterpreted as `qtype` (a `quant.scast`)."""
    cast = StorageCastOp(integers, TensorType(qtype, integers.type.get_shape()))
    rewriter.insert(cast)
    return cast.result


def dequantized(rewriter: PatternRewriter, integers: SSAValue, qtype: QuantizedType, float_type: Attribute) -> SSAValue:
    """dcast(scast(integers) : qtype) : float_type."""
    dcast = DequantizeCastOp(quantized(rewriter, integers, qtype), float_type)
    rewriter.insert(dcast)
    return dcast.result
