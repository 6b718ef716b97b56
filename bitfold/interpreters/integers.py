"""Integer values as the interpreter holds them, and MLIR's two readings of their bits.

A signless `iN` value is a numpy integer of `numpy_dtype(iN)` (int8 for i8, bool for i1,
int64 for index) holding the N-bit pattern read as two's complement. Arithmetic works on
int64 (signed reading) or uint64 (unsigned reading) and wraps the result back to N bits,
which is MLIR's modulo-2^N semantics for addi, subi, muli, shli and the casts."""

import numpy as np
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute

from bitfold.dialects.evaluation import numpy_dtype_of

INDEX_WIDTH = 64


def bit_width(value_type: Attribute) -> int:
    """N of an iN (or index, 64) scalar or tensor type."""
    element = getattr(value_type, "element_type", value_type)
    return INDEX_WIDTH if isinstance(element, IndexType) else element.width.data


def signed(values, width: int) -> np.ndarray:
    """The N-bit patterns read as signed integers, as int64."""
    values = np.asarray(values).astype(np.int64)
    if width == 64:
        return values
    half = np.int64(1 << (width - 1))
    return ((values + half) & np.int64((1 << width) - 1)) - half


def unsigned(values, width: int) -> np.ndarray:
    """The N-bit patterns read as unsigned integers, as uint64."""
    values = np.asarray(values).astype(np.int64).astype(np.uint64)
    return values if width == 64 else values & np.uint64((1 << width) - 1)


def wrap(values, value_type: Attribute) -> np.ndarray:
    """Integer results reduced modulo 2^N, as the interpreter's value of `value_type`."""
    with np.errstate(over="ignore"):
        return signed(values, bit_width(value_type)).astype(numpy_dtype_of(value_type))
