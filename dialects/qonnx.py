"""The `qonnx` dialect: QONNX's integer quantization ops (`qonnx.custom_op.general`), one op
per node, with qonnx 1.0's reference semantics bit for bit.

The ops follow the conventions of the `onnx.*` ops (`bitfold.dialects.onnx.base`): operands
named after the node's inputs in snake_case, in order; every attribute present (the importer
fills `ATTRIBUTE_DEFAULTS`); the node's name as location; `evaluate` the numpy
reference. Every op computes in the float type of its operands, step by step as qonnx's
reference functions do (float32 for float32 inputs), reusing `quant_semantics`' rounding and
clamping; the formulas below name the float steps in that order.

Shared notation:
- `R` is the node's `rounding_mode` (`ROUNDING_MODES`, case-insensitive; `round_with` gives
  each mode's formula); `round` is half to even.
- `[low, high]` is QONNX's integer range of n bits (`qonnx_int_range`): signed
  [-2^(n-1) + narrow, 2^(n-1) - 1], unsigned [0, 2^n - 1 - narrow]. qonnx computes the bounds
  in the bit width's float type, so above 24 bits with a float32 bit width its bounds are
  rounded; bitfold's are exact.
- scale, zero point and bit widths are float tensors broadcast to x's shape (numpy rules,
  checked by `verify_` on static shapes); bit
  widths must hold one integer in [1, 64] and scales be finite and positive (`verify_` checks
  constant ones, flags 0/1 and rounding mode names; `evaluate` checks run-time bit widths).

Ops and the qonnx classes they reproduce: `qonnx.Quant` (IntQuant, also read as `Quant`),
`qonnx.BipolarQuant`, `qonnx.Trunc_v1` (Trunc of the qonnx domain's opset 1), `qonnx.Trunc`
(opset 2 and later, qonnx's Trunc_v2) and `qonnx.FloatQuant` (minifloat fake quantization).
`op_class_for` maps a node to its op class.
"""

from collections.abc import Mapping, Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import I64, AnyFloat, ContainerType, IntegerAttr, StringAttr, TensorType
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import attr_def, irdl_op_definition, operand_def, result_def
from xdsl.utils.exceptions import InterpretationError, VerifyException

from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.constant import constant_operand
from bitfold.dialects.onnx.quantization_parameters import scale_problem
from bitfold.dialects.quant import RoundingMode, integer_range
from bitfold.dialects.quant_semantics import bipolar_sign, clamp, round_with, scale_and_round

ROUNDING_MODES: dict[str, RoundingMode] = {
    "ROUND": RoundingMode.HALF_TO_EVEN,
    "HALF_EVEN": RoundingMode.HALF_TO_EVEN,
    "HALF_UP": RoundingMode.HALF_AWAY_FROM_ZERO,
    "HALF_DOWN": RoundingMode.HALF_TOWARD_ZERO,
    "UP": RoundingMode.AWAY_FROM_ZERO,
    "DOWN": RoundingMode.TOWARD_ZERO,
    "ROUND_TO_ZERO": RoundingMode.TOWARD_ZERO,
    "CEIL": RoundingMode.CEIL,
    "FLOOR": RoundingMode.FLOOR,
}
"""QONNX rounding mode names (upper case) and the modes they are. ROUND_TO_ZERO is Brevitas'
name for DOWN; qonnx 1.0's `resolve_rounding_mode` rejects it."""


def qonnx_int_range(bit_width: int, signed: bool, narrow: bool) -> tuple[int, int]:
    """QONNX's `min_int` / `max_int`: signed [-2^(n-1) + narrow, 2^(n-1) - 1], unsigned
    [0, 2^n - 1 - narrow] (narrow: 8-bit signed [-127, 127], unsigned [0, 254])."""
    low, high = integer_range(bit_width, signed)
    return (low + narrow, high) if signed else (low, high - narrow)


MAX_BIT_WIDTH = 64
"""Largest bit width bitfold accepts (qonnx's DataType names integers up to INT64/UINT64)."""


def bit_width_problem(value: np.ndarray, name: str) -> str | None:
    """What is wrong with a bit width operand's value, or None: qonnx requires one integer
    (`int(bitwidth) == bitwidth`); bitfold also requires it finite and in [1, MAX_BIT_WIDTH]."""
    if value.size != 1:
        return f"'{name}' must hold one value, got {value.size}"
    bits = float(value.flat[0])
    if not (np.isfinite(bits) and bits.is_integer() and 1 <= bits <= MAX_BIT_WIDTH):
        return f"'{name}' must be an integer in [1, {MAX_BIT_WIDTH}], got {bits}"
    return None


def _bit_width(op: OnnxOp, value: np.ndarray, name: str) -> int:
    """The bit width a (run-time) bit width operand holds."""
    if problem := bit_width_problem(value, name):
        raise InterpretationError(f"{op.node_name}: {problem}")
    return int(value.flat[0])


class QOnnxOp(OnnxOp):
    """Base of `qonnx.*` ops: checks of the attributes' values. `ATTRIBUTE_DEFAULTS` are
    QONNX's (`get_nodeattr_types`)."""

    FLAG_ATTRIBUTES: ClassVar[tuple[str, ...]] = ()
    """Attributes that are 0 or 1."""
    BIT_WIDTH_OPERANDS: ClassVar[tuple[str, ...]] = ()
    """Operands holding a bit width (`bit_width_problem`), checked where they are constants."""
    SCALE_OPERANDS: ClassVar[tuple[str, ...]] = ("scale",)
    """Operands holding scales (`scale_problem`), checked where they are constants."""

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Attribute | None], attributes: Mapping[str, Attribute]) -> list[Attribute]:
        """x's type (the first operand's): every QONNX op returns a float tensor like it
        (onnx has no schemas for this domain; the importer asks the op)."""
        return [operand_types[0]]

    def rounding(self) -> RoundingMode:
        """The `rounding_mode` attribute as a rounding mode."""
        return ROUNDING_MODES[self.string_attr("rounding_mode").upper()]

    def flag(self, name: str) -> bool:
        return self.int_attr(name) == 1

    def _verify_broadcast(self) -> None:
        """Every parameter operand (scale, zero point, bit widths) of static shape broadcasts to
        x's static shape, numpy's rule, as qonnx's executor needs (it raises otherwise)."""
        x_type = self.operands[0].type
        if not isinstance(x_type, TensorType) or not x_type.has_static_shape():
            return
        x_shape = tuple(x_type.get_shape())
        for (name, _), value in zip(type(self).get_irdl_definition().operands[1:], self.operands[1:], strict=True):
            if not isinstance(value.type, TensorType) or not value.type.has_static_shape():
                continue
            shape = tuple(value.type.get_shape())
            try:
                fits = np.broadcast_shapes(x_shape, shape) == x_shape
            except ValueError:
                fits = False
            if not fits:
                raise VerifyException(f"'{name}' of shape {list(shape)} does not broadcast to x's shape {list(x_shape)}")

    def verify_(self) -> None:
        x_type, y_type = self.operands[0].type, self.results[0].type
        if isinstance(x_type, ContainerType) and isinstance(y_type, ContainerType) and (
            x_type.get_element_type() != y_type.get_element_type() or not isinstance(x_type.get_element_type(), AnyFloat)
        ):
            raise VerifyException(f"the result must be a float tensor like x's ({x_type}), got {y_type}")
        for name, problem in [*((n, bit_width_problem) for n in self.BIT_WIDTH_OPERANDS),
                              *((n, scale_problem) for n in self.SCALE_OPERANDS)]:
            value = constant_operand(getattr(self, name))
            if value is not None and (message := problem(value, name)):
                raise VerifyException(message)
        self._verify_broadcast()
        for name in self.FLAG_ATTRIBUTES:
            if self.int_attr(name) not in (0, 1):
                raise VerifyException(f"'{name}' must be 0 or 1, got {self.int_attr(name)}")
        if "rounding_mode" in self.ATTRIBUTE_DEFAULTS:
            mode = self.string_attr("rounding_mode")
            if mode.upper() not in ROUNDING_MODES:
                raise VerifyException(
                    f"unknown rounding_mode '{mode}' (expected one of {', '.join(ROUNDING_MODES)})"
                )


@irdl_op_definition
class QuantOp(QOnnxOp):
    """QONNX IntQuant (`Quant`): fake-quantize x to n = `bitwidth` bits, QONNX order (zero
    point before rounding, clamp before rounding):

        y = (R(clamp(x / scale + zeropt, low, high)) - zeropt) * scale

    Signed with n = 1 is bipolar, whatever `narrow`:
        y = ((+1 if x / scale + zeropt >= 0 else -1) - zeropt) * scale

    Clamping first equals `quant.qcast {zero_point_first}` (R then clamp) since the bounds
    are integers; with an integer zeropt in [low, high] this is qcast to
    `!quant.uniform<iN<low:high>:f32, scale:zeropt>` then dcast, and the bipolar form with
    zeropt = 0 is qcast to `!quant.bipolar` then dcast."""

    name = "qonnx.Quant"
    x = operand_def()
    scale = operand_def()
    zeropt = operand_def()
    bitwidth = operand_def()
    y = result_def()
    signed = attr_def(IntegerAttr[I64])
    narrow = attr_def(IntegerAttr[I64])
    rounding_mode = attr_def(StringAttr)

    ATTRIBUTE_DEFAULTS: ClassVar[dict[str, Attribute]] = {
        "signed": IntegerAttr(1, 64),
        "narrow": IntegerAttr(0, 64),
        "rounding_mode": StringAttr("ROUND"),
    }
    FLAG_ATTRIBUTES: ClassVar[tuple[str, ...]] = ("signed", "narrow")
    BIT_WIDTH_OPERANDS: ClassVar[tuple[str, ...]] = ("bitwidth",)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        x, scale, zeropt, bitwidth = operands
        bits, signed = _bit_width(self, bitwidth, "bitwidth"), self.flag("signed")
        if bits == 1 and signed:
            grid = bipolar_sign(x / scale + zeropt)
        else:
            low, high = qonnx_int_range(bits, signed, self.flag("narrow"))
            grid = scale_and_round(x, scale, zeropt, low, high, self.rounding(), zero_point_first=True)
        return (self.result_array((grid - zeropt) * scale),)


@irdl_op_definition
class BipolarQuantOp(QOnnxOp):
    """QONNX BipolarQuant: y = (+1 if x >= 0 else -1) * scale (NaN gives -scale).

    The sign is that of x, not of x / scale: the two differ only where a negative x / scale
    underflows to -0.0, which `quant.qcast` to `!quant.bipolar` sends to +1."""

    name = "qonnx.BipolarQuant"
    x = operand_def()
    scale = operand_def()
    y = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        x, scale = operands
        return (self.result_array(bipolar_sign(x) * scale),)


@irdl_op_definition
class TruncV1Op(QOnnxOp):
    """QONNX Trunc, opset 1 (qonnx's `trunc_v1`): drop the low in - out bits of an integer,
    with k = input_bit_width - output_bit_width:

        y = (R(round(x / scale + zeropt) / 2^k) - zeropt) * scale

    No clamp, and the output keeps the input's scale and zero point (so y is not x's value
    truncated; opset 2 fixes both). Operands: QONNX's `in_bitwidth`, `out_bitwidth`."""

    name = "qonnx.Trunc_v1"
    x = operand_def()
    scale = operand_def()
    zeropt = operand_def()
    input_bit_width = operand_def()
    output_bit_width = operand_def()
    y = result_def()
    rounding_mode = attr_def(StringAttr)

    ATTRIBUTE_DEFAULTS: ClassVar[dict[str, Attribute]] = {"rounding_mode": StringAttr("FLOOR")}
    BIT_WIDTH_OPERANDS: ClassVar[tuple[str, ...]] = ("input_bit_width", "output_bit_width")

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        x, scale, zeropt, input_bit_width, output_bit_width = operands
        _bit_width(self, input_bit_width, "input_bit_width")
        _bit_width(self, output_bit_width, "output_bit_width")
        integer = round_with(x / scale + zeropt, RoundingMode.HALF_TO_EVEN)
        truncated = round_with(integer / 2.0 ** (input_bit_width - output_bit_width), self.rounding())
        return (self.result_array((truncated - zeropt) * scale),)


@irdl_op_definition
class TruncOp(QOnnxOp):
    """QONNX Trunc, opset 2 (qonnx's `trunc_v2`): rescale an integer to `output_scale` by a
    power of two and clamp it to `output_bit_width` bits (`signed`, `narrow`):

        q = round(x / scale + zeropt)
        t = 2^round(log2(output_scale / scale))                       (trunc_scale)
        y = (R(clamp(q / t, low, high)) - zeropt / t) * output_scale

    `input_bit_width` is not used. When zeropt / t is an integer and output_scale = scale * t,
    this is `quant.requant {zero_point_first}` from `!quant.uniform<..., scale:zeropt>` to
    `!quant.uniform<iN<low:high>, output_scale:zeropt/t>` between a qcast (round) and a dcast.
    Operands: QONNX's `in_bitwidth`, `out_scale`, `out_bitwidth`."""

    name = "qonnx.Trunc"
    x = operand_def()
    scale = operand_def()
    zeropt = operand_def()
    input_bit_width = operand_def()
    output_scale = operand_def()
    output_bit_width = operand_def()
    y = result_def()
    rounding_mode = attr_def(StringAttr)
    narrow = attr_def(IntegerAttr[I64])
    signed = attr_def(IntegerAttr[I64])

    ATTRIBUTE_DEFAULTS: ClassVar[dict[str, Attribute]] = {
        "rounding_mode": StringAttr("FLOOR"),
        "narrow": IntegerAttr(0, 64),
        "signed": IntegerAttr(1, 64),
    }
    FLAG_ATTRIBUTES: ClassVar[tuple[str, ...]] = ("narrow", "signed")
    BIT_WIDTH_OPERANDS: ClassVar[tuple[str, ...]] = ("output_bit_width",)
    SCALE_OPERANDS: ClassVar[tuple[str, ...]] = ("scale", "output_scale")

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        x, scale, zeropt, _, output_scale, output_bit_width = operands
        bits = _bit_width(self, output_bit_width, "output_bit_width")
        low, high = qonnx_int_range(bits, self.flag("signed"), self.flag("narrow"))
        integer = round_with(x / scale + zeropt, RoundingMode.HALF_TO_EVEN)
        trunc_scale = 2 ** round_with(np.log2(output_scale / scale), RoundingMode.HALF_TO_EVEN)
        truncated = round_with(clamp(integer / trunc_scale, low, high), self.rounding())
        return (self.result_array((truncated - zeropt / trunc_scale) * output_scale),)


def minifloat_max(exponent_bits: np.ndarray, mantissa_bits: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """QONNX's `compute_max_val`: (sum of 2^-i for i = 0..M) * 2^(2^E - 1 - B), in the
    operands' float type (all exponents integer: exact below 2^24)."""
    exponent = 2.0 ** exponent_bits - 1.0 - bias
    mantissa = np.sum(2.0 ** np.arange(0, -1.0 * mantissa_bits - 1.0, -1.0))
    return mantissa * 2 ** exponent


@irdl_op_definition
class FloatQuantOp(QOnnxOp):
    """QONNX FloatQuant: fake-quantize x / scale to a minifloat of E = `exponent_bitwidth`,
    M = `mantissa_bitwidth`, bias B = `exponent_bias` (any widths, not only float8), as
    qonnx's `float_quant` computes it, step by step in x's float type:

        v = x / scale
        u = 2^max(floor(log2(|v| + tiny)) - M, 1 - B - M)      (tiny: the type's smallest normal)
        q = u * R(v / u)
        m = min(minifloat_max(E, M, B), max_val)
        y = clamp(q, -m, m) * scale                             (saturation = 1)
        y = clamp(q, -m, m), then +-inf where q was beyond +-m (has_inf), else NaN there and
            where q was infinite (has_nan), times scale       (saturation = 0)

    Subnormals are always represented (the 2^(1 - B - M) floor), whatever `has_subnormal`;
    `has_inf` and `has_nan` matter only without saturation, which needs one of them. The
    binade comes from the float type's log2, as in qonnx: where |v| lies within its last
    ulps below a power of two, log2 may round up to the integer and the coarser step be
    taken (float32: from 2^8 up); the reference reproduces that by computing the same way.
    A NaN x gives NaN."""

    name = "qonnx.FloatQuant"
    x = operand_def()
    scale = operand_def()
    exponent_bitwidth = operand_def()
    mantissa_bitwidth = operand_def()
    exponent_bias = operand_def()
    max_val = operand_def()
    y = result_def()
    has_inf = attr_def(IntegerAttr[I64])
    has_nan = attr_def(IntegerAttr[I64])
    has_subnormal = attr_def(IntegerAttr[I64])
    saturation = attr_def(IntegerAttr[I64])
    rounding_mode = attr_def(StringAttr)

    ATTRIBUTE_DEFAULTS: ClassVar[dict[str, Attribute]] = {
        "has_inf": IntegerAttr(0, 64),
        "has_nan": IntegerAttr(0, 64),
        "has_subnormal": IntegerAttr(0, 64),
        "saturation": IntegerAttr(1, 64),
        "rounding_mode": StringAttr("ROUND"),
    }
    FLAG_ATTRIBUTES: ClassVar[tuple[str, ...]] = ("has_inf", "has_nan", "has_subnormal", "saturation")

    def verify_(self) -> None:
        super().verify_()
        if not self.flag("saturation") and not (self.flag("has_inf") or self.flag("has_nan")):
            raise VerifyException("without saturation, 'has_inf' or 'has_nan' must be 1 (qonnx raises otherwise)")
        for name in ("exponent_bitwidth", "mantissa_bitwidth", "exponent_bias", "max_val"):
            value = constant_operand(getattr(self, name))
            if value is not None and (value.size != 1 or not np.isfinite(value).all()):
                raise VerifyException(f"'{name}' must hold one finite value, got {value.flatten()[:8].tolist()}")
        for name in ("exponent_bitwidth", "mantissa_bitwidth"):
            value = constant_operand(getattr(self, name))
            if value is not None and not (float(value.flat[0]).is_integer() and 0 <= value.flat[0] <= 23):
                raise VerifyException(f"'{name}' must be an integer in [0, 23], got {value.flat[0]}")

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        x, scale, exponent_bits, mantissa_bits, bias, max_val = operands
        v = x / scale
        tiny = np.finfo(v.dtype).tiny
        step = np.exp2(np.maximum(np.floor(np.log2(np.abs(v) + tiny)) - mantissa_bits, 1.0 - bias - mantissa_bits))
        q = step * round_with(v / step, self.rounding())
        largest = np.minimum(minifloat_max(exponent_bits, mantissa_bits, bias), max_val)
        y = np.clip(q, -largest, largest)
        if not self.flag("saturation"):
            beyond = (q > largest) | (q < -largest)
            if self.flag("has_inf"):
                y = np.where(q > largest, np.inf, np.where(q < -largest, -np.inf, y))
            else:
                y = np.where(beyond | np.isinf(q), np.nan, y)
        return (self.result_array(y * scale),)


_OP_CLASSES: dict[str, type[QOnnxOp]] = {"Quant": QuantOp, "IntQuant": QuantOp, "BipolarQuant": BipolarQuantOp,
                                         "FloatQuant": FloatQuantOp}
"""The op types whose class does not depend on the version (Trunc does)."""


def op_class_for(op_type: str, version: int) -> type[QOnnxOp] | None:
    """The op class of a node of the qonnx domain (`qonnx.custom_op.general`, or its aliases)
    whose opset version there is `version`, with qonnx's "since version" rule: Trunc is
    `TruncV1Op` at version 1 and `TruncOp` from 2 on. None for any other op type (MultiThreshold,
    ...) or a version below 1: the importer reports those unsupported."""
    if version < 1:
        return None
    if op_type == "Trunc":
        return TruncV1Op if version == 1 else TruncOp
    return _OP_CLASSES.get(op_type)


QOnnx = Dialect("qonnx", [QuantOp, BipolarQuantOp, TruncV1Op, TruncOp, FloatQuantOp], [])
