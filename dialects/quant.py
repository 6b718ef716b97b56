"""The quant dialect: quantized types and the casts between them, text-compatible with MLIR's.

Types (upstream syntax and printing, `mlir/lib/Dialect/Quant/IR/TypeParser.cpp`):

    !quant.uniform<i8:f32, 0.1:-3>                      per tensor, zero point optional (0)
    !quant.uniform<i8<-8:7>:f32, 0.5>                   storage range narrower than i8: 4-bit
    !quant.uniform<u8:f32:1, {0.1:128, 0.2:120}>        per axis (axis 1)
    !quant.uniform<i4:f32:{0:1, 1:32}, {{0.5:1, ...}}>  sub-channel (blocked): axis:block pairs,
                                                        a nested scale[:zero point] literal
    !quant.any<i8:f32>                                  storage chosen, scale not yet (expressed type optional)
    !quant.calibrated<f32<-1.0:1.0>>                    calibration statistics: the observed [min, max]

The casts take ranked tensors (dimensions may be dynamic, `?`: per-axis and per-block checks skip
them), unranked tensors (`tensor<*x...>`, not for sub-channel types) and scalars, as upstream.
`!quant.any` and `!quant.calibrated` carry no scale: casts to and from them verify and print, but
executing one is an error.

A stored integer `q` stands for the real value `(q - zero_point) * scale`. Storage is `iN`
(signed) or `uN` (unsigned), 1 <= N <= 32, with an optional inclusive range `<min:max>`; the
range is how a bit width below the storage width appears (QCDQ's Clip, QONNX's bit width).
In a sub-channel type, axes not listed have one block spanning the whole dimension, and the
scales literal has the tensor's rank with `dim / block` entries along each axis.

Float storage (upstream's syntax since its quant storage type interface, newer than LLVM 22):

    !quant.uniform<f8E4M3FN:f32, 0.5>                   per tensor, storage f8E4M3FN, f8E4M3FNUZ,
    !quant.uniform<f8E5M2:f32:1, {0.5, 0.25}>           f8E5M2, f8E5M2FNUZ or f4E2M1FN; per axis

A stored value is a float of the storage format, standing for `value * scale`; there is no
zero point (a zero one may be written, as upstream prints none). qcast rounds `x / scale` to
the nearest value of the format, half to even, saturating at its largest finite value
(`bitfold.dialects.minifloat.encode`); dcast is `decode(q) * scale`. `FloatQuantizedType` is
its own class, so passes that handle `UniformQuantizedType` (integer storage) never see it;
it shares the name `quant.uniform`, which parses to it when the storage is a float type
(`UniformQuantizedType.new` hands the parameters over). mlir-opt-22 reads none of these
(its parser takes integer storage only); QONNX FloatQuant formats that no MLIR type names
stay `qonnx.FloatQuant` ops (their rounding is qonnx's float algorithm, not a storage cast).

Beyond upstream (what ONNX and QONNX need; upstream `mlir-opt` does not know these):
- `!quant.bipolar<f32, 0.5>` / `!quant.bipolar<f32:1, {0.5, 0.25}>`: values in {-scale, +scale}
  (QONNX `BipolarQuant`, 1-bit signed `Quant`): q = +1 where x >= 0 (-0.0 included), else -1.
  Storage is `i1`; bit `b` stands for `2b - 1`.
- `quant.qcast` takes optional attributes `rounding` (a `RoundingMode`, default half to even)
  and `zero_point_first` (QONNX's order: round `x / scale + zero_point`; ONNX rounds `x / scale`
  and then adds the zero point). Without them it prints exactly as upstream.
- `quant.requant`: integer rescale from one uniform type to another (QONNX `Trunc`, the output
  rescale of every integer op).

Deliberate differences from upstream `mlir-opt`: zero points must lie in the storage range and
NaN scales are rejected (upstream accepts both); sub-channel zero points print as their value
(upstream prints the storage bits as signed, so u8's 200 shows as -56 and i1's -1 vanishes);
a sub-channel scale with no decimal spelling prints as the hex bits of its double (upstream
prints the expressed type's bits, which its parser misreads); the scale-shape diagnostic names
the scales' actual size (upstream repeats the expected size); a one-value storage range is
illegal as upstream has it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from enum import StrEnum
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatData,
    IntAttr,
    IntegerType,
    NoneAttr,
    ReducedPrecisionFloatType,
    Signedness,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import HasCanonicalizationPatternsTrait, Pure
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from bitfold.dialects.evaluation import NumpyEvaluable
from bitfold.dialects.float_literal import (
    DOUBLE,
    FLOAT_FORMATS,
    FloatFormat,
    format_float,
    round_to_format,
)
from bitfold.dialects.minifloat import FLOAT_STORAGE_TYPES
from bitfold.dialects.xdsl_compat.hex_float import parse_float_or_hex_bits

MAX_STORAGE_BITS = 32
"""Widest storage type (`QuantizedType::MaxStorageBits` upstream)."""


def integer_range(width: int, signed: bool) -> tuple[int, int]:
    """Inclusive value range of a `width`-bit two's complement (signed) or unsigned integer."""
    if signed:
        return -(1 << (width - 1)), (1 << (width - 1)) - 1
    return 0, (1 << width) - 1


# ----------------------------------------------------------------------------------------
# Rounding
# ----------------------------------------------------------------------------------------


class RoundingMode(StrEnum):
    """How a real value becomes an integer. QONNX names: ROUND and HALF_EVEN are
    `half_to_even`, HALF_UP `half_away_from_zero`, HALF_DOWN `half_toward_zero`,
    UP `away_from_zero`, DOWN and ROUND_TO_ZERO `toward_zero`, CEIL, FLOOR."""

    HALF_TO_EVEN = "half_to_even"
    HALF_AWAY_FROM_ZERO = "half_away_from_zero"
    HALF_TOWARD_ZERO = "half_toward_zero"
    AWAY_FROM_ZERO = "away_from_zero"
    TOWARD_ZERO = "toward_zero"
    CEIL = "ceil"
    FLOOR = "floor"


# ----------------------------------------------------------------------------------------
# Types
# ----------------------------------------------------------------------------------------


class Granularity(StrEnum):
    """How many (scale, zero point) pairs a uniform type holds, and where they apply."""

    PER_TENSOR = "per_tensor"
    PER_AXIS = "per_axis"
    SUB_CHANNEL = "sub_channel"


EXPRESSED_TYPE_NAMES = {Float16Type: "f16", BFloat16Type: "bf16", Float32Type: "f32", Float64Type: "f64"}
"""Float types a quantized type may express, with their MLIR spelling."""


def _float_type_name(expressed: Attribute) -> str | None:
    return EXPRESSED_TYPE_NAMES.get(type(expressed))


def expressed_format(expressed: Attribute) -> FloatFormat | None:
    """The IEEE format of an expressed float type, None for other types."""
    name = _float_type_name(expressed)
    return None if name is None else FLOAT_FORMATS[name]


def scale_range_error(scale: float, expressed: Attribute) -> str | None:
    """Upstream's diagnostic for a scale the expressed type cannot hold (NaN included)."""
    fmt = expressed_format(expressed)
    if fmt is None:
        return None
    low, high = fmt.smallest_subnormal, fmt.largest
    if math.isnan(scale):
        return "illegal scale: nan"
    if not low <= scale <= high:
        return f"scale {scale:e} out of expressed type range [{low:e}, {high:e}]"
    return None


def zero_point_range_error(zero_point: int, low: int, high: int) -> str | None:
    """A zero point must be a value of the storage range (upstream does not check this)."""
    if not low <= zero_point <= high:
        return f"illegal zero point: {zero_point} out of storage range [{low}:{high}]"
    return None


class QuantizedType(ParametrizedAttribute, TypeAttribute):
    """Base of the quant dialect's element types: a float type expressed by integers.
    Each subclass declares the parameter `expressed_type: AnyFloat` (declaring it here would
    make it the first parameter of every subclass)."""

    def storage_integer_type(self) -> IntegerType:
        """The signless integer type that `quant.scast` converts to and from."""
        raise NotImplementedError

    def scale_values(self) -> tuple[float, ...]:
        raise NotImplementedError

    def zero_point_values(self) -> tuple[int, ...]:
        raise NotImplementedError

    def value_range(self) -> tuple[int, int]:
        """Inclusive range of the integer values this type stores."""
        raise NotImplementedError

    def largest_offset(self) -> int:
        """max |q - zero_point| over the value range and every zero point: the widest
        centered value integer code computes with (1 for bipolar)."""
        low, high = self.value_range()
        return max(max(abs(low - zp), abs(high - zp)) for zp in self.zero_point_values())

    @staticmethod
    def cast_to_storage_type(quantized: Attribute) -> Attribute:
        """The type `quantized` (a quantized type, or a tensor of one) is stored as: its
        signless storage integer, in a tensor of the same shape for a tensor (upstream's
        `QuantizedType::castToStorageType`)."""
        if isinstance(quantized, TensorType):
            return TensorType(quantized.element_type.storage_integer_type(), quantized.get_shape())
        return quantized.storage_integer_type()

    @staticmethod
    def cast_to_expressed_type(quantized: Attribute) -> Attribute:
        """The type `quantized` (a quantized type, or a tensor of one) dequantizes to: its
        expressed float type, in a tensor of the same shape for a tensor (upstream's
        `QuantizedType::castToExpressedType`)."""
        if isinstance(quantized, TensorType):
            return TensorType(quantized.element_type.expressed_type, quantized.get_shape())
        return quantized.expressed_type


def _parse_scale(parser: AttrParser, expressed: Attribute) -> float:
    """A scale: a double (`_parse_double`) the expressed type can hold."""
    position = parser.pos
    scale = parse_float_or_hex_bits(parser)
    if (error := scale_range_error(scale, expressed)) is not None:
        parser.raise_error(error, position, parser.pos)
    return scale


def _parse_scale_zero_point(parser: AttrParser, expressed: Attribute) -> tuple[float, int]:
    """`scale (':' zero-point)?`"""
    scale = _parse_scale(parser, expressed)
    zero_point = 0
    if parser.parse_optional_punctuation(":") is not None:
        zero_point = parser.parse_integer(allow_boolean=False)
    return scale, zero_point


def _parse_nested_params(
    parser: AttrParser, expressed: Attribute
) -> tuple[list[float], list[int], list[int]]:
    """A brace-nested list of `scale[:zero_point]`, after its `{`; returns scales, zero
    points and the list's shape. All elements must have the same shape."""
    scales: list[float] = []
    zero_points: list[int] = []
    inner_shape: list[int] | None = None
    count = 0

    def parse_element() -> None:
        nonlocal inner_shape, count
        if parser.parse_optional_punctuation("{") is not None:
            sub_scales, sub_zero_points, shape = _parse_nested_params(parser, expressed)
            scales.extend(sub_scales)
            zero_points.extend(sub_zero_points)
        else:
            scale, zero_point = _parse_scale_zero_point(parser, expressed)
            scales.append(scale)
            zero_points.append(zero_point)
            shape = []
        count += 1
        if inner_shape is None:
            inner_shape = shape
        elif inner_shape != shape:
            parser.raise_error("tensor literal is invalid; ranks are not consistent between elements")

    parser.parse_comma_separated_list(parser.Delimiter.NONE, parse_element)
    parser.parse_punctuation("}")
    return scales, zero_points, [count, *(inner_shape or [])]


FLOAT_STORAGE_BY_NAME = {t.name: t for t in FLOAT_STORAGE_TYPES}
"""The float storage types by their MLIR spelling (`f8E4M3FN`, ...)."""


def _parse_storage_spec(parser: AttrParser) -> tuple[IntegerType | ReducedPrecisionFloatType, int, int]:
    """`(i|si|u|ui)N ('<' min ':' max '>')?`: a signed or unsigned storage type and range; or a
    float storage type (`f8E4M3FN`, ...; its range is not used: 0, 0)."""
    position = parser.pos
    spelling = parser.parse_identifier(" for quantized storage type")
    if spelling in FLOAT_STORAGE_BY_NAME:
        return FLOAT_STORAGE_BY_NAME[spelling](), 0, 0
    prefix = spelling.rstrip("0123456789")
    width_text = spelling[len(prefix) :]
    if prefix not in ("i", "si", "u", "ui"):
        parser.raise_error("illegal storage type prefix", position, parser.pos)
    if not width_text:
        parser.raise_error("expected storage type width", position, parser.pos)
    width = int(width_text)
    if not 0 < width <= MAX_STORAGE_BITS:
        parser.raise_error(f"illegal storage type size: {width}", position, parser.pos)
    signed = prefix in ("i", "si")
    low, high = integer_range(width, signed)
    storage = IntegerType(width, Signedness.SIGNED if signed else Signedness.UNSIGNED)
    if parser.parse_optional_punctuation("<") is None:
        return storage, low, high
    min_position = parser.pos
    storage_min = parser.parse_integer(allow_boolean=False)
    parser.parse_punctuation(":")
    max_position = parser.pos
    storage_max = parser.parse_integer(allow_boolean=False)
    parser.parse_punctuation(">")
    if storage_min < low:
        parser.raise_error(f"illegal storage type minimum: {storage_min}", min_position)
    if storage_max > high:
        parser.raise_error(f"illegal storage type maximum: {storage_max}", max_position)
    if storage_min >= storage_max:  # upstream: an empty or one-value range is illegal
        parser.raise_error(
            f"illegal storage min and storage max: ({storage_min}:{storage_max})", position
        )
    return storage, storage_min, storage_max


def _storage_errors(storage: IntegerType, storage_min: int, storage_max: int) -> Iterator[str]:
    """Upstream's diagnostics for a storage type and range (`iN<min:max>`, `uN<min:max>`)."""
    width = storage.width.data
    if not 0 < width <= MAX_STORAGE_BITS:
        yield f"illegal storage type size: {width}"
        return
    if storage.signedness.data == Signedness.SIGNLESS:
        yield "storage type must be signed (iN) or unsigned (uN), got signless"
    low, high = integer_range(width, storage.signedness.data != Signedness.UNSIGNED)
    if storage_min < low:
        yield f"illegal storage type minimum: {storage_min}"
    if storage_max > high:
        yield f"illegal storage type maximum: {storage_max}"
    if storage_min >= storage_max:  # upstream: an empty or one-value range is illegal
        yield f"illegal storage min and storage max: ({storage_min}:{storage_max})"


def _storage_spec_text(storage: IntegerType, storage_min: int, storage_max: int) -> str:
    """`iN` / `uN`, with `<min:max>` where the range is narrower than the type's (as upstream prints)."""
    signed = storage.signedness.data != Signedness.UNSIGNED
    text = f"{'i' if signed else 'u'}{storage.width.data}"
    if (storage_min, storage_max) == integer_range(storage.width.data, signed):
        return text
    return f"{text}<{storage_min}:{storage_max}>"


def _parse_expressed_type(parser: AttrParser) -> AnyFloat:
    position = parser.pos
    expressed = parser.parse_type()
    if _float_type_name(expressed) is None:
        parser.raise_error("expressed type must be floating point", position, parser.pos)
    return expressed  # pyright: ignore[reportReturnType]


def _print_scale_zero_point(printer: Printer, scale: float, zero_point: int, fmt: FloatFormat):
    printer.print_string(format_float(scale, fmt))
    if zero_point != 0:
        printer.print_string(f":{zero_point}")


def _scale_format(granularity: Granularity, expressed: Attribute) -> FloatFormat:
    """Upstream holds per-tensor and per-axis scales as doubles, sub-channel scales in the
    expressed type."""
    if granularity == Granularity.SUB_CHANNEL:
        return expressed_format(expressed) or DOUBLE
    return DOUBLE


def _ints(values: Sequence[int]) -> ArrayAttr[IntAttr]:
    return ArrayAttr(IntAttr(v) for v in values)


@irdl_attr_definition
class UniformQuantizedType(QuantizedType):
    """`!quant.uniform`: affine quantization, real = (q - zero_point) * scale, per tensor,
    per axis or per block. See the module docstring for the syntax."""

    name = "quant.uniform"

    storage_type: IntegerType
    """`iN` (signedness SIGNED) or `uN` (UNSIGNED)."""
    storage_min: IntAttr
    storage_max: IntAttr
    expressed_type: AnyFloat
    granularity: StringAttr
    axes: ArrayAttr[IntAttr]
    """Empty per tensor, the quantized dimension per axis, the blocked dimensions per block."""
    block_sizes: ArrayAttr[IntAttr]
    """Sub-channel only, one per entry of `axes`."""
    params_shape: ArrayAttr[IntAttr]
    """Shape of the scale/zero point table: [] per tensor, [n] per axis, rank-d sub-channel."""
    scales: ArrayAttr[FloatData]
    zero_points: ArrayAttr[IntAttr]

    @staticmethod
    def get(
        bits: int,
        signed: bool,
        expressed: AnyFloat,
        scales: float | Sequence[float] | np.ndarray,
        zero_points: int | Sequence[int] | np.ndarray = 0,
        *,
        axis: int | None = None,
        block_sizes: dict[int, int] | None = None,
        storage_range: tuple[int, int] | None = None,
    ) -> UniformQuantizedType:
        """Build a uniform type: a scalar scale for per tensor, a 1-D list with `axis` for per
        axis, an array of the tensor's rank with `block_sizes` ({axis: block}) for sub-channel.
        A scalar zero point is broadcast to every scale."""
        scale_array = np.asarray(scales, dtype=np.float64)
        zero_array = np.broadcast_to(np.asarray(zero_points, dtype=np.int64), scale_array.shape)
        if block_sizes is not None:
            granularity, axes, blocks = Granularity.SUB_CHANNEL, list(block_sizes), list(block_sizes.values())
            fmt = _scale_format(granularity, expressed)
            scale_array = np.vectorize(lambda s: round_to_format(s, fmt), otypes=[float])(scale_array)
        elif axis is not None:
            granularity, axes, blocks = Granularity.PER_AXIS, [axis], []
        else:
            granularity, axes, blocks = Granularity.PER_TENSOR, [], []
        low, high = storage_range or integer_range(bits, signed)
        return UniformQuantizedType(
            IntegerType(bits, Signedness.SIGNED if signed else Signedness.UNSIGNED),
            IntAttr(low),
            IntAttr(high),
            expressed,
            StringAttr(granularity.value),
            _ints(axes),
            _ints(blocks),
            _ints(scale_array.shape),
            ArrayAttr(FloatData(float(s)) for s in scale_array.flat),
            _ints([int(z) for z in zero_array.flat]),
        )

    # -- properties -------------------------------------------------------------------

    @property
    def kind(self) -> Granularity:
        return Granularity(self.granularity.data)

    @property
    def storage_width(self) -> int:
        return self.storage_type.width.data

    @property
    def is_signed(self) -> bool:
        return self.storage_type.signedness.data != Signedness.UNSIGNED

    def storage_integer_type(self) -> IntegerType:
        return IntegerType(self.storage_width)

    def value_range(self) -> tuple[int, int]:
        return self.storage_min.data, self.storage_max.data

    def has_storage_bounds(self) -> bool:
        """Whether the range differs from the full storage type's (upstream prints it then)."""
        return self.value_range() != integer_range(self.storage_width, self.is_signed)

    @property
    def bit_width(self) -> int:
        """Fewest bits whose signed (if the range holds negatives) or unsigned range holds the
        storage range: 4 for `i8<-8:7>` and `i8<-7:7>`, 4 for `u8<0:15>`, 8 for `i8`."""
        low, high = self.value_range()
        signed = low < 0
        bits = 1
        while not (integer_range(bits, signed)[0] <= low and high <= integer_range(bits, signed)[1]):
            bits += 1
        return bits

    @property
    def is_narrow_range(self) -> bool:
        """QONNX's `narrow`: signed [-(2^(n-1)-1), 2^(n-1)-1] or unsigned [0, 2^n-2] for n = bit_width."""
        low, high = self.value_range()
        full_low, full_high = integer_range(self.bit_width, low < 0)
        return (low, high) == ((full_low + 1, full_high) if low < 0 else (0, full_high - 1))

    def scale_values(self) -> tuple[float, ...]:
        return tuple(s.data for s in self.scales)

    def zero_point_values(self) -> tuple[int, ...]:
        return tuple(z.data for z in self.zero_points)

    @property
    def scale(self) -> float:
        """The scale of a per-tensor type."""
        assert self.kind == Granularity.PER_TENSOR
        return self.scales.data[0].data

    @property
    def zero_point(self) -> int:
        """The zero point of a per-tensor type."""
        assert self.kind == Granularity.PER_TENSOR
        return self.zero_points.data[0].data

    @property
    def axis(self) -> int:
        """The quantized dimension of a per-axis type."""
        assert self.kind == Granularity.PER_AXIS
        return self.axes.data[0].data

    def block_size_info(self) -> dict[int, int]:
        """{axis: block size} of a sub-channel type."""
        return {a.data: b.data for a, b in zip(self.axes, self.block_sizes, strict=True)}

    @property
    def is_symmetric(self) -> bool:
        """Every zero point is 0 (signed symmetric scheme)."""
        return all(z == 0 for z in self.zero_point_values())

    @property
    def has_power_of_two_scales(self) -> bool:
        """Every scale is an exact power of two (rescales become shifts)."""
        return all(math.frexp(s)[0] == 0.5 for s in self.scale_values())

    def parameter_arrays(self, shape: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """(scales, zero points) as float64 / int64 arrays broadcastable to a tensor of
        `shape`: shape () per tensor, size n at the axis per axis, and per block the table
        repeated `block` times along each blocked axis (so the arrays have `shape`)."""
        table_shape = [d.data for d in self.params_shape]
        scales = np.array(self.scale_values(), dtype=np.float64).reshape(table_shape)
        zero_points = np.array(self.zero_point_values(), dtype=np.int64).reshape(table_shape)
        if self.kind == Granularity.PER_AXIS:
            broadcast = _axis_broadcast_shape(len(shape), self.axis, table_shape[0])
            return scales.reshape(broadcast), zero_points.reshape(broadcast)
        if self.kind == Granularity.SUB_CHANNEL:
            for dim, size in enumerate(shape):
                repeat = size // table_shape[dim]
                scales = np.repeat(scales, repeat, axis=dim)
                zero_points = np.repeat(zero_points, repeat, axis=dim)
        return scales, zero_points

    # -- verification -----------------------------------------------------------------

    def verify(self) -> None:
        for error in self._parameter_errors():
            raise VerifyException(error)

    def _parameter_errors(self):
        storage_errors = list(_storage_errors(self.storage_type, *self.value_range()))
        yield from storage_errors
        if storage_errors[:1] == [f"illegal storage type size: {self.storage_width}"]:
            return
        storage_min, storage_max = self.value_range()
        if _float_type_name(self.expressed_type) is None:
            yield "expressed type must be floating point"
            return
        if self.granularity.data not in Granularity.__members__.values():
            yield f"unknown granularity {self.granularity.data}"
            return
        count = math.prod(d.data for d in self.params_shape)
        if len(self.scales) != count or len(self.zero_points) != count:
            yield (
                f"illegal number of scales and zeroPoints: {len(self.scales)}, "
                f"{len(self.zero_points)}"
            )
        for scale in self.scale_values():
            if (error := scale_range_error(scale, self.expressed_type)) is not None:
                yield error
        for zero_point in self.zero_point_values():
            if (error := zero_point_range_error(zero_point, storage_min, storage_max)) is not None:
                yield error
        for axis in self.axes:
            if axis.data < 0:
                yield f"illegal quantized dimension: {axis.data}"
        for block in self.block_sizes:
            if block.data <= 0:
                yield f"illegal block size: {block.data}"
        kind = self.kind
        if kind == Granularity.PER_TENSOR and (self.axes.data or len(self.params_shape) != 0):
            yield "per-tensor quantization takes one scale and no axis"
        if kind == Granularity.PER_AXIS and (len(self.axes) != 1 or len(self.params_shape) != 1):
            yield "per-axis quantization takes one axis and a list of scales"
        if kind != Granularity.SUB_CHANNEL and self.block_sizes.data:
            yield "only sub-channel quantization takes block sizes"
        if kind == Granularity.SUB_CHANNEL and len(self.axes) != len(self.block_sizes):
            yield (
                f"number of quantized dimensions and block sizes ({len(self.axes)} vs "
                f"{len(self.block_sizes)}) does not match"
            )

    # -- syntax -----------------------------------------------------------------------

    @classmethod
    def new(cls, params: Sequence[Attribute]) -> UniformQuantizedType:
        """As xDSL builds an attribute from parsed parameters; parameters with float storage
        (`!quant.uniform<f8E4M3FN:...>`) make a `FloatQuantizedType` instead (the module docstring)."""
        if params and isinstance(params[0], FLOAT_STORAGE_TYPES):
            storage, _, _, expressed, _, axes, _, _, scales, _ = params
            return FloatQuantizedType(storage, expressed, axes, scales)  # pyright: ignore[reportReturnType]
        return super().new(params)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            storage, storage_min, storage_max = _parse_storage_spec(parser)
            parser.parse_punctuation(":")
            expressed = _parse_expressed_type(parser)
            granularity, axes, blocks = Granularity.PER_TENSOR, [], []
            if parser.parse_optional_punctuation(":") is not None:
                if parser.parse_optional_punctuation("{") is not None:
                    granularity = Granularity.SUB_CHANNEL
                    if parser.parse_optional_punctuation("}") is None:

                        def parse_axis_block() -> None:
                            position = parser.pos
                            axis = parser.parse_integer(allow_boolean=False)
                            if axis < 0:
                                parser.raise_error(f"illegal quantized dimension: {axis}", position)
                            parser.parse_punctuation(":")
                            position = parser.pos
                            block = parser.parse_integer(allow_boolean=False)
                            if block <= 0:
                                parser.raise_error(f"illegal block size: {block}", position)
                            axes.append(axis)
                            blocks.append(block)

                        parser.parse_comma_separated_list(parser.Delimiter.NONE, parse_axis_block)
                        parser.parse_punctuation("}")
                else:
                    granularity = Granularity.PER_AXIS
                    position = parser.pos
                    axis = parser.parse_integer(allow_boolean=False)
                    if axis < 0:
                        parser.raise_error(f"illegal quantized dimension: {axis}", position)
                    axes.append(axis)
            parser.parse_punctuation(",")
            position = parser.pos
            if granularity == Granularity.PER_TENSOR:
                scale, zero_point = _parse_scale_zero_point(parser, expressed)
                scales, zero_points, shape = [scale], [zero_point], []
            else:
                parser.parse_punctuation("{")
                scales, zero_points, shape = _parse_nested_params(parser, expressed)
                if granularity == Granularity.PER_AXIS and len(shape) != 1:
                    parser.raise_error("per-axis scales must be a flat list", position, parser.pos)
            if isinstance(storage, FLOAT_STORAGE_TYPES):
                if granularity == Granularity.SUB_CHANNEL:
                    parser.raise_error(f"{storage.name} storage is per tensor or per axis", position, parser.pos)
                if any(zero_points):
                    parser.raise_error(f"{storage.name} storage takes no zero point", position, parser.pos)
                zero_points = [0] * len(zero_points)
            for zero_point in zero_points:
                if (error := zero_point_range_error(zero_point, storage_min, storage_max)) is not None:
                    parser.raise_error(error, position, parser.pos)
        if granularity == Granularity.SUB_CHANNEL:
            fmt = _scale_format(granularity, expressed)
            scales = [round_to_format(s, fmt) for s in scales]
        return [
            storage,
            IntAttr(storage_min),
            IntAttr(storage_max),
            expressed,
            StringAttr(granularity.value),
            _ints(axes),
            _ints(blocks),
            _ints(shape),
            ArrayAttr(FloatData(s) for s in scales),
            _ints(zero_points),
        ]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{_storage_spec_text(self.storage_type, *self.value_range())}:")
        printer.print_attribute(self.expressed_type)
        kind = self.kind
        fmt = _scale_format(kind, self.expressed_type)
        pairs = list(zip(self.scale_values(), self.zero_point_values(), strict=True))
        if kind == Granularity.PER_TENSOR:
            printer.print_string(", ")
            _print_scale_zero_point(printer, *pairs[0], fmt)
        elif kind == Granularity.PER_AXIS:
            printer.print_string(f":{self.axis}, {{")
            for index, (scale, zero_point) in enumerate(pairs):
                if index:
                    printer.print_string(",")
                _print_scale_zero_point(printer, scale, zero_point, fmt)
            printer.print_string("}")
        else:
            blocks = ", ".join(f"{a}:{b}" for a, b in self.block_size_info().items())
            printer.print_string(f":{{{blocks}}}, ")
            _print_nested(printer, pairs, [d.data for d in self.params_shape], fmt)
        printer.print_string(">")


def _axis_broadcast_shape(rank: int, axis: int, size: int) -> list[int]:
    """Shape of a per-axis parameter vector broadcast against a rank-`rank` tensor."""
    broadcast = [1] * rank
    broadcast[axis] = size
    return broadcast


def _print_nested(printer: Printer, pairs: list[tuple[float, int]], shape: list[int], fmt: FloatFormat):
    """Print a row-major table of (scale, zero point) as upstream's brace-nested literal."""
    if not shape:
        _print_scale_zero_point(printer, *pairs[0], fmt)
        return
    printer.print_string("{")
    stride = len(pairs) // shape[0] if shape[0] else 0
    for index in range(shape[0]):
        if index:
            printer.print_string(", ")
        chunk = pairs[index * stride : (index + 1) * stride]
        if len(shape) == 1:
            _print_scale_zero_point(printer, *chunk[0], fmt)
        else:
            _print_nested(printer, chunk, shape[1:], fmt)
    printer.print_string("}")


class ScaleOnlyQuantizedType(QuantizedType):
    """What the quantized types without a zero point share (`BipolarQuantizedType`,
    `FloatQuantizedType`): scales per tensor or along one axis (`axes` empty or [axis], `scales`
    one per channel), zero points all 0, printed as `..., s>` or `...:axis, {s0,s1}>`. Each
    subclass declares `expressed_type`, `axes: ArrayAttr[IntAttr]` and `scales: ArrayAttr[FloatData]`
    (declared here, they would come first in every subclass)."""

    @property
    def kind(self) -> Granularity:
        return Granularity.PER_AXIS if self.axes.data else Granularity.PER_TENSOR

    @property
    def axis(self) -> int:
        assert self.kind == Granularity.PER_AXIS
        return self.axes.data[0].data

    def parameter_arrays(self, shape: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """(scales, zero points) as float64 / int64 arrays broadcastable to `shape` (zero
        points are all 0): shape () per tensor, size n at the axis per axis."""
        scales = np.array(self.scale_values(), dtype=np.float64)
        if self.kind == Granularity.PER_AXIS:
            scales = scales.reshape(_axis_broadcast_shape(len(shape), self.axis, scales.size))
        else:
            scales = scales.reshape(())
        return scales, np.zeros_like(scales, dtype=np.int64)

    def scale_values(self) -> tuple[float, ...]:
        return tuple(s.data for s in self.scales)

    def zero_point_values(self) -> tuple[int, ...]:
        return (0,) * len(self.scales)

    def _verify_scales(self, what: str) -> None:
        """The expressed type, the axis and the scales (`what` names the kind in the axis error)."""
        if _float_type_name(self.expressed_type) is None:
            raise VerifyException("expressed type must be floating point")
        if len(self.axes) > 1:
            raise VerifyException(f"{what} quantization takes at most one axis")
        if self.kind == Granularity.PER_TENSOR and len(self.scales) != 1:
            raise VerifyException("per-tensor quantization takes one scale and no axis")
        for axis in self.axes:
            if axis.data < 0:
                raise VerifyException(f"illegal quantized dimension: {axis.data}")
        for scale in self.scale_values():
            if (error := scale_range_error(scale, self.expressed_type)) is not None:
                raise VerifyException(error)

    def _print_scales(self, printer: Printer) -> None:
        """The expressed type and the scales up to the closing `>`."""
        printer.print_attribute(self.expressed_type)
        texts = [format_float(s) for s in self.scale_values()]
        if self.kind == Granularity.PER_AXIS:
            printer.print_string(f":{self.axis}, {{{','.join(texts)}}}>")
        else:
            printer.print_string(f", {texts[0]}>")


@irdl_attr_definition
class BipolarQuantizedType(ScaleOnlyQuantizedType):
    """`!quant.bipolar<f32, 0.5>` (per tensor) or `!quant.bipolar<f32:1, {0.5,0.25}>` (per
    axis): the real value is `+scale` or `-scale`, what QONNX `BipolarQuant` and 1-bit signed
    `Quant` produce: `q = +1 if x >= 0 else -1`, the sign of x itself as QONNX takes it (a
    tiny negative x whose x / scale underflows to -0.0 is still -1). Storage is `i1`, bit `b` standing
    for `2b - 1`, so no zero point exists. A bitfold extension; upstream MLIR lacks it."""

    name = "quant.bipolar"

    expressed_type: AnyFloat
    axes: ArrayAttr[IntAttr]
    """Empty per tensor, [axis] per axis."""
    scales: ArrayAttr[FloatData]

    STORAGE_BITS: ClassVar[int] = 1

    @staticmethod
    def get(expressed: AnyFloat, scales: float | Sequence[float], axis: int | None = None):
        values = [scales] if isinstance(scales, (int, float)) else list(scales)
        return BipolarQuantizedType(
            expressed, _ints([] if axis is None else [axis]), ArrayAttr(FloatData(float(s)) for s in values)
        )

    def storage_integer_type(self) -> IntegerType:
        return IntegerType(self.STORAGE_BITS)

    def value_range(self) -> tuple[int, int]:
        return -1, 1

    def verify(self) -> None:
        self._verify_scales("bipolar")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            expressed = _parse_expressed_type(parser)
            axes: list[int] = []
            if parser.parse_optional_punctuation(":") is not None:
                position = parser.pos
                axes.append(parser.parse_integer(allow_boolean=False))
                if axes[0] < 0:
                    parser.raise_error(f"illegal quantized dimension: {axes[0]}", position)
            parser.parse_punctuation(",")
            if axes:
                scales = parser.parse_comma_separated_list(
                    parser.Delimiter.BRACES, lambda: _parse_scale(parser, expressed)
                )
            else:
                scales = [_parse_scale(parser, expressed)]
        return [expressed, _ints(axes), ArrayAttr(FloatData(s) for s in scales)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        self._print_scales(printer)


@irdl_attr_definition
class FloatQuantizedType(ScaleOnlyQuantizedType):
    """`!quant.uniform<f8E4M3FN:f32, 0.5>` (per tensor) or `!quant.uniform<f8E5M2:f32:1,
    {0.5,0.25}>` (per axis): a value of the float storage format standing for
    `value * scale` (the module docstring). Values are held as the storage format's bit
    patterns (`storage_integer_type`: i8, or i4 for f4E2M1FN); `quant.scast` converts to
    those or to the float storage type itself. Not registered under its own name: it
    shares `quant.uniform` with `UniformQuantizedType`, which builds it from parsed text."""

    name = "quant.uniform"

    storage_type: Attribute
    """One of `bitfold.dialects.minifloat.FLOAT_STORAGE_TYPES`."""
    expressed_type: AnyFloat
    axes: ArrayAttr[IntAttr]
    """Empty per tensor, [axis] per axis."""
    scales: ArrayAttr[FloatData]

    @staticmethod
    def get(storage: ReducedPrecisionFloatType, expressed: AnyFloat, scales: float | Sequence[float],
            axis: int | None = None) -> FloatQuantizedType:
        values = [scales] if isinstance(scales, (int, float)) else [float(s) for s in scales]
        return FloatQuantizedType(storage, expressed, _ints([] if axis is None else [axis]),
                                  ArrayAttr(FloatData(float(s)) for s in values))

    @property
    def semantics(self):
        """The storage format (`xdsl.dialects.builtin.FloatSemantics`)."""
        return self.storage_type.SEMANTICS  # pyright: ignore[reportAttributeAccessIssue]

    @property
    def storage_width(self) -> int:
        return self.semantics.bitwidth

    @property
    def is_signed(self) -> bool:
        """The bit patterns read as numbers are unsigned (0 .. 2^N - 1: table indices)."""
        return False

    def storage_integer_type(self) -> IntegerType:
        return IntegerType(self.storage_width)

    def value_range(self) -> tuple[int, int]:
        """The bit patterns' range (read unsigned)."""
        return 0, (1 << self.storage_width) - 1

    def largest_offset(self) -> int:
        raise NotImplementedError("float storage has no integer offset")

    def verify(self) -> None:
        if not isinstance(self.storage_type, FLOAT_STORAGE_TYPES):
            raise VerifyException(f"illegal float storage type: {self.storage_type}")
        self._verify_scales("float storage")

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.storage_type.name}:")  # pyright: ignore[reportAttributeAccessIssue]
        self._print_scales(printer)


@irdl_attr_definition
class AnyQuantizedType(ParametrizedAttribute, TypeAttribute):
    """`!quant.any<i8:f32>`, `!quant.any<i8<-8:7>>`: upstream's quantized type whose storage is chosen
    but whose scale and zero point are not yet (a placeholder a quantization tool refines). The
    expressed type is optional. No value can be computed from it: bitfold's passes leave it alone and
    executing a cast to or from it is an error."""

    name = "quant.any"

    storage_type: IntegerType
    storage_min: IntAttr
    storage_max: IntAttr
    expressed_type: AnyFloat | NoneAttr

    @staticmethod
    def get(bits: int, signed: bool, expressed: AnyFloat | None = None,
            storage_range: tuple[int, int] | None = None) -> AnyQuantizedType:
        low, high = storage_range or integer_range(bits, signed)
        storage = IntegerType(bits, Signedness.SIGNED if signed else Signedness.UNSIGNED)
        return AnyQuantizedType(storage, IntAttr(low), IntAttr(high), expressed or NoneAttr())

    def storage_integer_type(self) -> IntegerType:
        return IntegerType(self.storage_type.width.data)

    def value_range(self) -> tuple[int, int]:
        return self.storage_min.data, self.storage_max.data

    def verify(self) -> None:
        for error in _storage_errors(self.storage_type, *self.value_range()):
            raise VerifyException(error)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            storage, storage_min, storage_max = _parse_storage_spec(parser)
            expressed = NoneAttr()
            if parser.parse_optional_punctuation(":") is not None:
                expressed = _parse_expressed_type(parser)
        return [storage, IntAttr(storage_min), IntAttr(storage_max), expressed]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{_storage_spec_text(self.storage_type, *self.value_range())}")
        if not isinstance(self.expressed_type, NoneAttr):
            printer.print_string(":")
            printer.print_attribute(self.expressed_type)
        printer.print_string(">")


@irdl_attr_definition
class CalibratedQuantizedType(ParametrizedAttribute, TypeAttribute):
    """`!quant.calibrated<f32<-1.0:1.0>>`: upstream's calibration statistics, the observed range
    [min, max] (doubles, min < max) of a value of the expressed float type, before a scale and zero
    point are chosen from it. Printed as upstream prints doubles (`-1.000000e+00`). No value can be
    computed from it: executing a cast to or from it is an error.

        CalibratedQuantizedType.get(-1.0, 1.0)            # f32 by default
        t.min, t.max, t.expressed_type                     # -1.0, 1.0, f32
    """

    name = "quant.calibrated"

    expressed_type: AnyFloat
    minimum: FloatData
    maximum: FloatData

    @staticmethod
    def get(minimum: float, maximum: float, expressed: AnyFloat | None = None) -> CalibratedQuantizedType:
        return CalibratedQuantizedType(expressed or Float32Type(), FloatData(float(minimum)), FloatData(float(maximum)))

    @property
    def min(self) -> float:
        return self.minimum.data

    @property
    def max(self) -> float:
        return self.maximum.data

    def verify(self) -> None:
        if _float_type_name(self.expressed_type) is None:
            raise VerifyException("expecting float expressed type")
        if not self.min < self.max:  # NaN included
            raise VerifyException(f"illegal min and max: ({format_float(self.min)}:{format_float(self.max)})")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            position = parser.pos
            expressed = parser.parse_type()
            if _float_type_name(expressed) is None:
                parser.raise_error("expecting float expressed type", position, parser.pos)
            with parser.in_angle_brackets():
                minimum = parse_float_or_hex_bits(parser)
                parser.parse_punctuation(":")
                maximum = parse_float_or_hex_bits(parser)
            if not minimum < maximum:
                parser.raise_error(f"illegal min and max: ({format_float(minimum)}:{format_float(maximum)})",
                                   position, parser.pos)
        return [expressed, FloatData(minimum), FloatData(maximum)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_attribute(self.expressed_type)
        printer.print_string(f"<{format_float(self.min)}:{format_float(self.max)}>>")


UNRESOLVED_QUANTIZED_TYPES = (AnyQuantizedType, CalibratedQuantizedType)
"""Upstream's quantized types without a scale: the casts accept them, nothing computes with them."""

QUANTIZED_TYPES = (QuantizedType, *UNRESOLVED_QUANTIZED_TYPES)
"""Element types the casts accept on their quantized side."""


# ----------------------------------------------------------------------------------------
# Ops
# ----------------------------------------------------------------------------------------


def element_type(container: Attribute) -> Attribute:
    """The element type of a tensor (ranked or not), or the type itself for a scalar."""
    return container.element_type if isinstance(container, TensorType | UnrankedTensorType) else container


UNRANKED = "*"
"""`_shape_of` an unranked tensor (`tensor<*x...>`)."""


def _shape_of(container: Attribute) -> tuple[int, ...] | str | None:
    """Shape of a ranked tensor (`DYNAMIC_INDEX` for a `?` dimension), UNRANKED, or None for a scalar."""
    if isinstance(container, UnrankedTensorType):
        return UNRANKED
    return tuple(container.get_shape()) if isinstance(container, TensorType) else None


def verify_quantized_container(quantized: QuantizedType, container: Attribute) -> None:
    """Check per-axis and sub-channel parameters against the tensor that holds them
    (upstream's `verifyPerAxisQuantization` / `verifySubChannelQuantization`, same words)."""
    kind = getattr(quantized, "kind", Granularity.PER_TENSOR)
    if kind == Granularity.PER_TENSOR:
        return
    shape = _shape_of(container)
    if shape is None:
        raise VerifyException("scalar types may not use per-axis quantization")
    if shape == UNRANKED:
        if kind == Granularity.SUB_CHANNEL:
            raise VerifyException("tensor containing the sub-channel quantized type must be ranked")
        return  # per axis: nothing to check against (as upstream)
    rank = len(shape)
    if kind == Granularity.PER_AXIS:
        axis = quantized.axis
        if axis >= rank:
            raise VerifyException("quantized dimension must be less than tensor rank")
        if shape[axis] != DYNAMIC_INDEX and shape[axis] != len(quantized.scale_values()):
            raise VerifyException("quantized dimension size does not match number of scales")
        return
    assert isinstance(quantized, UniformQuantizedType)
    blocks = quantized.block_size_info()
    for axis, block in blocks.items():
        if axis >= rank:
            raise VerifyException(f"quantized dimension {axis} must be less than tensor rank {rank}")
        if shape[axis] != DYNAMIC_INDEX and shape[axis] % block != 0:
            raise VerifyException(
                f"tensor dimension size {shape[axis]} at axis {axis} must be divisible by the "
                f"corresponding block size {block}"
            )
    table_shape = [d.data for d in quantized.params_shape]
    if len(table_shape) != rank:
        raise VerifyException(
            f"Rank of scales {len(table_shape)} must match the rank of the tensor {rank}"
        )
    for axis, size in enumerate(shape):
        if size == DYNAMIC_INDEX:
            continue
        expected = size // blocks.get(axis, size)
        if table_shape[axis] != expected:
            raise VerifyException(
                f"dimension size {table_shape[axis]} of scales tensor at axis {axis} should "
                f"match (tensor dimension at axis / block sizes at axis) = {expected}"
            )


def _verify_same_shape(input_type: Attribute, result_type: Attribute) -> None:
    if _shape_of(input_type) != _shape_of(result_type):
        raise VerifyException(
            "failed to verify that input and result are both scalars or both tensors with "
            "matching shape"
        )


def _verify_element(value_type: Attribute, role: str, constraint: str, accepted: type | tuple) -> None:
    if not isinstance(element_type(value_type), accepted):
        raise VerifyException(f"{role} must be scalar or tensor of {constraint}, but got '{value_type}'")


class CastOpBase(IRDLOperation, NumpyEvaluable):
    """Shared shape of the quant casts: one operand, one result, upstream assembly; each
    evaluates with its function in `quant_semantics` (imported on use: it imports this
    module)."""

    input = operand_def()
    result = result_def()

    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input_value, result_type: Attribute, attributes: dict[str, Attribute] | None = None):
        super().__init__(operands=[input_value], result_types=[result_type], attributes=attributes)


class RoundingCastOpBase(CastOpBase):
    """The casts that round (qcast, requant): an optional `rounding` mode (half to even when
    absent) and `zero_point_first` (QONNX's order: the zero point is added before rounding)."""

    rounding = opt_attr_def(StringAttr)
    zero_point_first = opt_attr_def(UnitAttr)

    @property
    def rounding_mode(self) -> RoundingMode:
        return RoundingMode.HALF_TO_EVEN if self.rounding is None else RoundingMode(self.rounding.data)

    @property
    def adds_zero_point_first(self) -> bool:
        return self.zero_point_first is not None

    def _verify_rounding(self) -> None:
        if self.rounding is not None and self.rounding.data not in RoundingMode.__members__.values():
            modes = ", ".join(m.value for m in RoundingMode)
            raise VerifyException(f"unknown rounding mode '{self.rounding.data}' (expected one of {modes})")


class QuantizeCastCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls):
        from bitfold.dialects.canonicalization_patterns.quant import FoldQuantizeOfConstant, FoldQuantizeOfDequantize

        return (FoldQuantizeOfDequantize(), FoldQuantizeOfConstant())


def storage_types_match(quantized: Attribute, integer: Attribute) -> bool:
    """Whether `integer` holds `quantized`'s stored values bit for bit: the signless storage
    type, or the same width with the quantized type's signedness (a calibrated type has no
    storage); for float storage, also the float storage type itself."""
    if isinstance(quantized, CalibratedQuantizedType):
        return False
    if isinstance(quantized, FloatQuantizedType) and integer == quantized.storage_type:
        return True
    if not isinstance(integer, IntegerType):
        return False
    storage = quantized.storage_integer_type()
    if integer == storage:
        return True
    if integer.width != storage.width or not isinstance(quantized, UniformQuantizedType | AnyQuantizedType):
        return False
    return integer.signedness == quantized.storage_type.signedness


def executable(quantized: Attribute) -> QuantizedType:
    """`quantized`, which a cast's evaluation computes with; a type without a scale is an error."""
    if isinstance(quantized, UNRESOLVED_QUANTIZED_TYPES):
        raise DiagnosticException(f"{quantized} has no scale and zero point: no value can be computed with it")
    return quantized


class StorageCastCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls):
        from bitfold.dialects.canonicalization_patterns.quant import FoldStorageCastOfConstant, FoldStorageCastPair

        return (FoldStorageCastPair(), FoldStorageCastOfConstant())


class RequantizeCanonicalization(HasCanonicalizationPatternsTrait):
    @classmethod
    def get_canonicalization_patterns(cls):
        from bitfold.dialects.canonicalization_patterns.quant import FoldRequantizeOfConstant

        return (FoldRequantizeOfConstant(),)


@irdl_op_definition
class QuantizeCastOp(RoundingCastOpBase):
    """`quant.qcast`: float to quantized.

        q = clamp(R(x / scale) + zero_point, storage_min, storage_max)      (ONNX, default)
        q = clamp(R(x / scale + zero_point), storage_min, storage_max)      (zero_point_first)

    R is `rounding` (default half to even); `x / scale` is computed in the expressed type
    (ONNX QuantizeLinear's reference divides in float32). Per axis and per block, scale and
    zero point are those of the element's channel or block. Bipolar: q = +1 if x >= 0 else -1.
    Float storage: q = encode(x / scale), to nearest (half to even), saturating; with
    `non_saturating` (ONNX QuantizeLinear's saturate = 0; float storage only) a value beyond the
    largest finite one (infinities included) becomes the format's overflow value instead: +-inf
    in f8E5M2, NaN in f8E4M3FN and the FNUZ formats (`minifloat.encode`, ONNX's Cast tables).
    """

    name = "quant.qcast"
    traits = traits_def(Pure(), QuantizeCastCanonicalization())
    non_saturating = opt_attr_def(UnitAttr)

    @property
    def saturates(self) -> bool:
        return self.non_saturating is None

    def verify_(self) -> None:
        source, target = self.input.type, self.result.type
        _verify_element(source, "operand #0", "floating-point", tuple(EXPRESSED_TYPE_NAMES))
        _verify_element(target, "result #0", "quantized type", QUANTIZED_TYPES)
        _verify_same_shape(source, target)
        quantized = element_type(target)
        if quantized.expressed_type != element_type(source):
            raise VerifyException("expressed type in quantized type expected to match float type")
        verify_quantized_container(quantized, target)
        self._verify_rounding()
        if isinstance(quantized, FloatQuantizedType) and (self.rounding is not None or self.adds_zero_point_first):
            raise VerifyException("a cast to float storage rounds half to even and takes no zero point")
        if not self.saturates and not isinstance(quantized, FloatQuantizedType):
            raise VerifyException("'non_saturating' applies to float storage only (integer storage always clamps)")

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        from bitfold.dialects.quant_semantics import quantize

        (x,) = operands
        quantized = executable(element_type(self.result.type))
        return (quantize(x, quantized, self.rounding_mode, self.adds_zero_point_first, self.saturates),)


@irdl_op_definition
class DequantizeCastOp(CastOpBase):
    """`quant.dcast`: quantized to float, x = (q - zero_point) * scale, computed in the
    expressed type (ONNX DequantizeLinear's reference). Bipolar: x = q * scale. Float
    storage: x = decode(q) * scale.
    Never folded with a preceding qcast: dcast(qcast(x)) is the quantization a model asks for."""

    name = "quant.dcast"
    traits = traits_def(Pure())

    def verify_(self) -> None:
        source, target = self.input.type, self.result.type
        _verify_element(source, "operand #0", "quantized type", QUANTIZED_TYPES)
        _verify_element(target, "result #0", "floating-point", tuple(EXPRESSED_TYPE_NAMES))
        _verify_same_shape(source, target)
        quantized = element_type(source)
        if quantized.expressed_type != element_type(target):
            raise VerifyException("expressed type in quantized type expected to match float type")
        verify_quantized_container(quantized, source)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        from bitfold.dialects.quant_semantics import dequantize

        (q,) = operands
        return (dequantize(q, executable(element_type(self.input.type))),)


@irdl_op_definition
class StorageCastOp(CastOpBase):
    """`quant.scast`: reinterpret quantized values as their storage integers or back; no
    value changes. The integer type is upstream's signless `iN`, or (a bitfold extension, for
    IR imported from ONNX, whose uint8 is `ui8`) the `uiN` of an unsigned or `siN` of a
    signed quantized type of the same width."""

    name = "quant.scast"
    traits = traits_def(Pure(), StorageCastCanonicalization())

    def quantized_and_integer(self) -> tuple[Attribute, Attribute]:
        source = element_type(self.input.type)
        if isinstance(source, QUANTIZED_TYPES):
            return self.input.type, self.result.type
        return self.result.type, self.input.type

    def verify_(self) -> None:
        source, target = self.input.type, self.result.type
        _verify_same_shape(source, target)
        quantized_container, integer_container = self.quantized_and_integer()
        quantized, integer = element_type(quantized_container), element_type(integer_container)
        if not isinstance(quantized, QUANTIZED_TYPES) or not isinstance(integer, (IntegerType, *FLOAT_STORAGE_TYPES)):
            raise VerifyException(
                "'quant.scast' converts between a quantized type and an integer type, got "
                f"'{source}' to '{target}'"
            )
        if not storage_types_match(quantized, integer):
            raise VerifyException("storage type in quantized type expected to match integer type")
        verify_quantized_container(quantized, quantized_container)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        from bitfold.dialects.quant_semantics import from_storage, to_storage

        (value,) = operands
        source, target = element_type(self.input.type), element_type(self.result.type)
        if isinstance(source, QUANTIZED_TYPES):
            return (to_storage(value, executable(source), target),)
        return (from_storage(value, executable(target)),)


@irdl_op_definition
class RequantizeOp(RoundingCastOpBase):
    """`quant.requant`: rescale integers from one uniform type to another, exactly:

        q_out = clamp(R((q_in - zp_in) * s_in / s_out) + zp_out, min_out, max_out)
        q_out = clamp(R((q_in - zp_in) * s_in / s_out + zp_out), min_out, max_out)   (zero_point_first)

    with real (not float) arithmetic on the exact values of the double scales, R the
    `rounding` mode (default half to even), per channel where either type is per axis.
    QONNX `Trunc` is the zero_point_first form with s_out / s_in a power of two; an integer
    op's output rescale is the default form. A bitfold extension; upstream MLIR lacks it."""

    name = "quant.requant"
    traits = traits_def(Pure(), RequantizeCanonicalization())

    def verify_(self) -> None:
        source, target = self.input.type, self.result.type
        _verify_element(source, "operand #0", "uniform quantized type", UniformQuantizedType)
        _verify_element(target, "result #0", "uniform quantized type", UniformQuantizedType)
        _verify_same_shape(source, target)
        if element_type(source).expressed_type != element_type(target).expressed_type:
            raise VerifyException("input and result quantized types must have the same expressed type")
        verify_quantized_container(element_type(source), source)
        verify_quantized_container(element_type(target), target)
        self._verify_rounding()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        from bitfold.dialects.quant_semantics import requantize

        (q,) = operands
        in_type, out_type = element_type(self.input.type), element_type(self.result.type)
        return (requantize(q, in_type, out_type, self.rounding_mode, self.adds_zero_point_first),)


Quant = Dialect(
    "quant",
    [QuantizeCastOp, DequantizeCastOp, StorageCastOp, RequantizeOp],
    [UniformQuantizedType, BipolarQuantizedType, AnyQuantizedType, CalibratedQuantizedType],
)
