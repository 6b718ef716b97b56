"""What a float op's operands are, seen from integer code, and the way back to float.

An operand of a float op in a quantized region is `quant.dcast` of a quantized value q. Its
real value is `c * s`, where c, the *centered* value, is `q - zp` (uniform) or `q` in {-1, +1}
(bipolar), and s the scale of q's channel. Integer code computes with centered values; a
constant's are computed here, once, and a dynamic value's storage integers are read with the
extension its signedness needs."""

from dataclasses import dataclass
from fractions import Fraction
from functools import partial

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from bitfold.dialects.quant import (
    BipolarQuantizedType,
    DequantizeCastOp,
    FloatQuantizedType,
    Granularity,
    QuantizedType,
    StorageCastOp,
    UniformQuantizedType,
    element_type,
)
from bitfold.passes.utils import pass_failure
from bitfold.passes.utils.linalg_building import I32, Body
from bitfold.passes.utils.quant_casts import stored_constant

PASS = "quant-to-integer"
INT32_MAX = (1 << 31) - 1


fail = partial(pass_failure.fail, PASS)
"""`fail(op, message)`: stop the pass with one line naming the op and its ONNX node."""


@dataclass(frozen=True)
class Quantized:
    """A quantized operand: the quantized SSA value, its element type, and its stored values
    when it is a constant (`scast` of an `onnx.Constant`)."""

    value: SSAValue
    qtype: QuantizedType
    stored: np.ndarray | None

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.value.type.get_shape())

    def centered(self) -> np.ndarray:
        """The constant's centered values (int64), zero points subtracted per channel."""
        assert self.stored is not None
        _, zero_points = self.qtype.parameter_arrays(self.shape)
        return self.stored.astype(np.int64) - zero_points

    def scales(self) -> np.ndarray:
        """The scales as a float64 array broadcastable to the operand's shape."""
        return self.qtype.parameter_arrays(self.shape)[0]


def quantized_operand(op: Operation, value: SSAValue) -> Quantized:
    """The quantized value behind `value`, an operand of `op` that must be a `quant.dcast`."""
    dcast = value.owner
    if not isinstance(dcast, DequantizeCastOp):
        raise fail(op, f"operand {_index_of(op, value)} is float, not dequantized: float arithmetic cannot become integer")
    q = dcast.input
    qtype = element_type(q.type)
    if not isinstance(q.type, TensorType):
        raise fail(op, "scalar quantized operands are not supported, only tensors")
    if isinstance(qtype, FloatQuantizedType):
        index = _index_of(op, value)
        raise fail(op, f"operand {index} has float storage ({qtype}): its bits are no integers to compute on")
    stored = None
    if (integers := stored_constant(q)) is not None:
        (stored,) = q.owner.evaluate([integers])
    return Quantized(q, qtype, stored)


def _index_of(op: Operation, value: SSAValue) -> int:
    return next(i for i, operand in enumerate(op.operands) if operand == value)


def per_tensor(op: Operation, operand: Quantized, role: str) -> UniformQuantizedType:
    """The operand's type, which must be uniform per tensor."""
    qtype = operand.qtype
    if not isinstance(qtype, UniformQuantizedType) or qtype.kind != Granularity.PER_TENSOR:
        raise fail(op, f"{role} must be quantized per tensor (uniform), got {qtype}")
    return qtype


def storage_value(rewriter: PatternRewriter, operand: Quantized) -> SSAValue:
    """The operand's signless storage integers (a `quant.scast`)."""
    storage = TensorType(operand.qtype.storage_integer_type(), operand.shape)
    cast = StorageCastOp(operand.value, storage)
    rewriter.insert(cast)
    return cast.result


def widened(body: Body, stored: SSAValue, qtype: QuantizedType) -> SSAValue:
    """A stored value in a generic body as the i32 number it stands for: extsi / extui by
    the type's signedness (nothing for i32 storage). Bipolar bits are not numbers: callers
    map them first."""
    if isinstance(qtype, BipolarQuantizedType):
        raise ValueError("bipolar storage bits need 2b - 1, not an extension")
    if qtype.storage_width == 32:
        return stored
    return body.emit((arith.ExtSIOp if qtype.is_signed else arith.ExtUIOp)(stored, I32))


def narrowest_signed(values: np.ndarray) -> IntegerType:
    """The narrowest of i8 / i16 / i32 holding every value."""
    low, high = int(values.min(initial=0)), int(values.max(initial=0))
    for width in (8, 16, 32):
        if -(1 << (width - 1)) <= low and high < 1 << (width - 1):
            return IntegerType(width)
    raise ValueError(f"values in [{low}, {high}] do not fit i32")


def exact(value) -> Fraction:
    """The exact rational value of an int, a Fraction or a float of any precision."""
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    return Fraction(float(value))


GRID_LIMIT = 2**62
"""|R_even(v / s)| beyond this saturates in `round_to_grid`: far beyond any accumulator (i32)."""


def round_to_grid(values: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """R_even(values / scales) exactly (the doubles' exact values), as an int64 array: a real
    value (a float bias, or an integer bias at another scale) on an accumulator's grid.
    Saturated to +-GRID_LIMIT (a value on a tiny scale, such as Brevitas' weights at a scale
    clamped to 1e-30): every caller checks its integers against i32 and refuses such a one (the
    op stays a float island), and sums of two saturated values still fit int64."""
    quotient = np.frompyfunc(lambda v, s: max(-GRID_LIMIT, min(GRID_LIMIT, round(exact(v) / exact(s)))), 2, 1)
    return np.asarray(quotient(values, scales), dtype=object).astype(np.int64)


def accumulator_type(scales: np.ndarray, axis: int | None, expressed, bound: int) -> UniformQuantizedType:
    """`!quant.uniform<i32<-bound:bound>:f?, S>` (per tensor) or per axis `axis` with the
    scales S: an i32 accumulator whose values are known to lie within +-bound."""
    flat = np.asarray(scales, dtype=np.float64).reshape(-1)
    storage_range = (-bound, bound)
    if axis is None or np.all(flat == flat[0]):
        return UniformQuantizedType.get(32, True, expressed, float(flat[0]), storage_range=storage_range)
    return UniformQuantizedType.get(32, True, expressed, flat, axis=axis, storage_range=storage_range)


def check_i32(op: Operation, bound: int, what: str) -> None:
    """Fail unless |values| <= `bound` fits an i32 accumulator."""
    if bound > INT32_MAX:
        raise fail(op, f"{what} can reach {bound}, beyond an i32 accumulator (2^31 - 1): not supported")
