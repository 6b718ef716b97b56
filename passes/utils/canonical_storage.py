"""Canonical storage (docs/canonical-quant-form.md, "Types"): the narrowest of i2/i4/i8/i16/
i32 (u2.. when the range has no negatives) holding a quantized value's range."""

from xdsl.dialects.builtin import IntAttr, IntegerType, Signedness

from bitfold.dialects.quant import UniformQuantizedType, integer_range

STORAGE_WIDTHS = (2, 4, 8, 16, 32)
"""The canonical storage widths: every ONNX integer type's, and QONNX bit widths round up."""


def canonical_storage(low: int, high: int) -> tuple[int, bool]:
    """(width, signed) of the narrowest canonical storage holding [low, high]: signed iff
    `low` < 0 (`u8<0:63>` for 6-bit unsigned, `i4<-7:7>` for narrow 4-bit signed)."""
    signed = low < 0
    for width in STORAGE_WIDTHS:
        storage_low, storage_high = integer_range(width, signed)
        if storage_low <= low and high <= storage_high:
            return width, signed
    raise ValueError(f"no storage of at most {STORAGE_WIDTHS[-1]} bits holds [{low}, {high}]")


def with_value_range(qtype: UniformQuantizedType, low: int, high: int) -> UniformQuantizedType:
    """`qtype` (same scales, zero points, layout) holding [low, high], in canonical storage."""
    width, signed = canonical_storage(low, high)
    storage = IntegerType(width, Signedness.SIGNED if signed else Signedness.UNSIGNED)
    return UniformQuantizedType(storage, IntAttr(low), IntAttr(high), *qtype.parameters[3:])
