"""R(v) for a float `v` in a `lower-quant` body: each `RoundingMode` as math ops, with the
formula `quant_semantics.round_with` evaluates (QONNX's), so results agree bit for bit:

    half_to_even         roundeven(v)
    half_away_from_zero  copysign(floor(|v| + 0.5), v)
    half_toward_zero     copysign(ceil(|v| - 0.5), v)
    away_from_zero       copysign(ceil(|v|), v)
    toward_zero          trunc(v)
    ceil, floor          ceil(v), floor(v)

(`round_with` multiplies by sign(v) where this copies v's sign: they differ only for v = +-0
and NaN, and +-0 converts to the same integer.)"""

from xdsl.dialects import arith, math
from xdsl.ir import SSAValue

from bitfold.dialects.quant import RoundingMode
from bitfold.passes.utils.parameter_tables import Body

_DIRECT = {
    RoundingMode.HALF_TO_EVEN: math.RoundEvenOp,
    RoundingMode.TOWARD_ZERO: math.TruncOp,
    RoundingMode.CEIL: math.CeilOp,
    RoundingMode.FLOOR: math.FloorOp,
}


def emit_float_rounding(body: Body, value: SSAValue, mode: RoundingMode) -> SSAValue:
    """R(value), an integer-valued float of value's type."""
    if mode in _DIRECT:
        return body.emit(_DIRECT[mode](value))
    magnitude = body.emit(math.AbsFOp(value))
    if mode == RoundingMode.AWAY_FROM_ZERO:
        rounded = body.emit(math.CeilOp(magnitude))
    else:
        half = body.constant(0.5, value.type)
        if mode == RoundingMode.HALF_AWAY_FROM_ZERO:
            rounded = body.emit(math.FloorOp(body.emit(arith.AddfOp(magnitude, half))))
        else:
            rounded = body.emit(math.CeilOp(body.emit(arith.SubfOp(magnitude, half))))
    return body.emit(math.CopySignOp(rounded, value))
