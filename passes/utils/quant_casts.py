"""The quant casts around a value: which dcast produced it, which qcasts read it, and the
constants behind it, and whether its shape is static. Shared by `canonicalize-quant`'s patterns,
`quant-to-integer` and `verify-quant`."""

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from bitfold.dialects import quant
from bitfold.dialects.onnx.constant import constant_array


def dequantize_source(value: SSAValue) -> quant.DequantizeCastOp | None:
    """The dcast producing `value`, None when another op or a block argument does."""
    owner = value.owner
    return owner if isinstance(owner, quant.DequantizeCastOp) else None


def dequantized_type(value: SSAValue) -> quant.QuantizedType | None:
    """The quantized element type `value` is the dcast of, None when no dcast produces it."""
    source = dequantize_source(value)
    return None if source is None else quant.element_type(source.input.type)


def quantize_users(value: SSAValue) -> list[quant.QuantizeCastOp]:
    """The qcasts reading `value`, in use order."""
    return [use.operation for use in value.uses if isinstance(use.operation, quant.QuantizeCastOp)]


def stored_constant(value: SSAValue) -> np.ndarray | None:
    """The stored integers of a quantized weight in canonical form, `scast` of an
    `onnx.Constant` (`value` is the scast or the dcast of it), else None."""
    source = dequantize_source(value)
    cast = value.owner if source is None else source.input.owner
    if not isinstance(cast, quant.StorageCastOp):
        return None
    return constant_array(cast.input)


def static_shape(value: SSAValue) -> tuple[int, ...] | None:
    """The shape of a ranked tensor value without dynamic dimensions, else None."""
    value_type = value.type
    if not isinstance(value_type, TensorType):
        return None
    shape = tuple(value_type.get_shape())
    return None if any(size < 0 for size in shape) else shape
