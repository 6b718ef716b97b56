"""Whether a layer runs as a float island (docs/float-islands.md): after `quant-to-integer` its code
computes on f32, i.e. an op other than the quant casts has an f32 operand or result (an f32 scalar,
or a tensor or memref of f32), the op itself or any op nested in it.

The quant casts are left out: `quant.dcast` of an integer layer's accumulator into a following
island, and `quant.qcast` of a graph input, stand at the integer layer's place (their code is
counted with it) but are no float computation of that layer."""

from collections.abc import Iterable

from xdsl.dialects.builtin import Float32Type, ShapedType
from xdsl.ir import Attribute, Operation

from bitfold.dialects.quant import DequantizeCastOp, QuantizeCastOp, StorageCastOp

QUANT_CASTS = (DequantizeCastOp, QuantizeCastOp, StorageCastOp)


def _is_f32(type_: Attribute) -> bool:
    element = type_.get_element_type() if isinstance(type_, ShapedType) else type_
    return isinstance(element, Float32Type)


def computes_in_float(ops: Iterable[Operation]) -> bool:
    """True where one of `ops` (or an op nested in them) other than a quant cast reads or makes f32."""
    return any(
        not isinstance(op, QUANT_CASTS) and any(_is_f32(v.type) for v in (*op.operands, *op.results))
        for top in ops for op in top.walk()
    )
