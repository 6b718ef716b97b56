"""How bitfold ops compute: each op the interpreter runs has one numpy reference, `evaluate`.

An op class that mixes in `NumpyEvaluable` implements `evaluate(operands)`: it receives the
values of its present operands as numpy arrays (in operand order) and returns its results as
numpy arrays (in result order), with exactly the semantics documented on the op. The
interpreter (`bitfold.interpreters.references`) calls it; tests compare it against the formats' oracles.

Values of quantized types are their stored integers (a bipolar value is -1 or +1).
"""

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute, Operation


class NumpyEvaluable:
    """Mixin for ops with a numpy reference implementation."""

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        raise NotImplementedError


def named_operands(op: Operation, operands: Sequence[np.ndarray]) -> dict[str, np.ndarray | None]:
    """Map an IRDL op's operand definition names to the given values; an absent optional
    operand maps to None. `operands` are the values of `op.operands`, in order."""
    by_value = dict(zip(op.operands, operands, strict=True))
    names: dict[str, np.ndarray | None] = {}
    for name, _ in type(op).get_irdl_definition().operands:
        value = getattr(op, name)
        if value is None or isinstance(value, Sequence):
            names[name] = None if not value else [by_value[v] for v in value]
        else:
            names[name] = by_value[value]
    return names


def read_signed(values, width: int) -> np.ndarray:
    """The low `width` bits of each integer read as two's complement, as int64 (MLIR's
    signed reading of an iN pattern; width <= 64). Values held in a numpy integer type whose range
    the signed N-bit range contains are read as they are; int64 values are wrapped by a cast to
    intN where N is a numpy width (integer casts keep the low bits)."""
    values = np.asarray(values)
    kind, bits = values.dtype.kind, values.dtype.itemsize * 8
    if width == 64 or (kind == "i" and bits <= width) or (kind == "u" and bits < width):
        return values.astype(np.int64)
    if width in (8, 16, 32) and kind in "iu":
        return values.astype(f"int{width}").astype(np.int64)
    values = values.astype(np.int64)
    half = np.int64(1 << (width - 1))
    return ((values + half) & np.int64((1 << width) - 1)) - half


def read_unsigned(values, width: int) -> np.ndarray:
    """The low `width` bits of each integer read as unsigned, as uint64 (width <= 64)."""
    values = np.asarray(values).astype(np.int64).astype(np.uint64)
    return values if width == 64 else values & np.uint64((1 << width) - 1)


def storage_dtype(bits: int, signed: bool) -> np.dtype:
    """The narrowest numpy integer dtype holding `bits`-bit signed or unsigned values."""
    for width in (8, 16, 32, 64):
        if bits <= width:
            return np.dtype(f"{'int' if signed else 'uint'}{width}")
    raise ValueError(f"no numpy integer holds {bits} bits")


def numpy_dtype(element: Attribute) -> np.dtype:
    """numpy dtype of an xDSL element type: floats as themselves (bf16 as float32, numpy
    has none; float8 and float4 as ml_dtypes' types, one byte each), iN/siN/uiN as the
    narrowest integer holding N bits (signless iN is signed, i1 is bool), quantized types
    as their storage integers (float storage: its bit patterns as uint8)."""
    from bitfold.dialects.minifloat import is_float_storage, numpy_float_storage_dtype
    from bitfold.dialects.quant import BipolarQuantizedType, FloatQuantizedType, UniformQuantizedType

    floats = {Float16Type: np.float16, BFloat16Type: np.float32, Float32Type: np.float32, Float64Type: np.float64}
    if type(element) in floats:
        return np.dtype(floats[type(element)])
    if is_float_storage(element):
        return numpy_float_storage_dtype(element)
    if isinstance(element, IntegerType):
        width = element.width.data
        if width == 1 and element.signedness.data == Signedness.SIGNLESS:
            return np.dtype(np.bool_)
        return storage_dtype(width, element.signedness.data != Signedness.UNSIGNED)
    if isinstance(element, IndexType):
        return np.dtype(np.int64)
    if isinstance(element, UniformQuantizedType):
        return storage_dtype(element.storage_width, element.is_signed)
    if isinstance(element, BipolarQuantizedType):
        return np.dtype(np.int8)
    if isinstance(element, FloatQuantizedType):
        return np.dtype(np.uint8)
    raise ValueError(f"no numpy dtype for {element}")


def numpy_dtype_of(value_type: Attribute) -> np.dtype:
    """numpy dtype of a tensor's (or a scalar's) element type."""
    return numpy_dtype(value_type.element_type if isinstance(value_type, TensorType) else value_type)
