"""Integer values as the interpreter holds them, and MLIR's two readings of their bits.

A signless `iN` value is a numpy integer of `numpy_dtype(iN)` (int8 for i8, bool for i1,
int64 for index) holding the N-bit pattern read as two's complement. Arithmetic works on
int64 (signed reading) or uint64 (unsigned reading) and wraps the result back to N bits,
which is MLIR's modulo-2^N semantics for addi, subi, muli, shli and the casts."""

import numpy as np
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute

from bitfold.dialects.evaluation import numpy_dtype_of, read_signed

INDEX_WIDTH = 64


def bit_width(value_type: Attribute) -> int:
    """N of an iN (or index, 64) scalar or tensor type."""
    element = getattr(value_type, "element_type", value_type)
    return INDEX_WIDTH if isinstance(element, IndexType) else element.width.data


def wrap(values, value_type: Attribute) -> np.ndarray:
    """Integer results reduced modulo 2^N, as the interpreter's value of `value_type`."""
    with np.errstate(over="ignore"):
        return read_signed(values, bit_width(value_type)).astype(numpy_dtype_of(value_type))
