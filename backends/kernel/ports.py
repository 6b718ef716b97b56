"""The ports of a kernel (docs/riscv-abi.md): each argument and result of the generated function, its
shape and the quantized type its buffer holds, and the conversions between a model's values and the
buffer's elements. A port's quantized type is the `quant.type` entry quant-to-integer's integer-io
records in the function's argument and result attributes (`passes/quant_to_integer/integer_io.py`).
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import DictionaryAttr, Float32Type, IntegerType

from bitfold.backends.kernel.harness.main_program import c_type as element_c_type
from bitfold.backends.kernel.header import C_FLOAT, Buffer, Quantization
from bitfold.dialects.evaluation import read_unsigned, storage_dtype
from bitfold.dialects.quant import BipolarQuantizedType, FloatQuantizedType, Granularity, QuantizedType
from bitfold.dialects.quant_semantics import dequantize, from_storage, quantize, to_storage
from bitfold.dialects.quant_type_attribute import recorded_quant_type


def buffer_values(q: np.ndarray, port: "Port") -> np.ndarray:
    """Quantized values `q` as the function's buffer holds them: a bipolar value as its bit
    b = (q + 1) / 2 (`quant.scast`'s storage), any other as the stored integer (a float port's
    values as float32)."""
    if port.qtype is None:
        return np.asarray(q, dtype=np.float32)
    if isinstance(port.qtype, BipolarQuantizedType):
        q = to_storage(q, port.qtype)
    return q.astype(port.dtype)


def buffer_bytes(values: np.ndarray, port: "Port") -> np.ndarray:
    """The interpreter's signless storage integers of `port` as the buffer holds them: an unsigned
    sub-byte value zero-extended in its byte (docs/riscv-abi.md), others as they are."""
    if port.qtype is None:
        return values.astype(np.float32)
    width = port.qtype.storage_integer_type().width.data
    if not port.signed and width < 8:
        values = read_unsigned(values, width)
    return values.astype(port.dtype)


def _quantized_values(buffer: np.ndarray, port: "Port") -> np.ndarray:
    """The inverse of `buffer_values`."""
    return from_storage(buffer, port.qtype) if isinstance(port.qtype, BipolarQuantizedType) else buffer


@dataclass(frozen=True)
class Port:
    """One argument or result of the compiled function: its name, shape and quantized type
    (None: an f32 buffer of a float island, docs/float-islands.md); `model_integers` when the
    source model itself takes or returns these storage integers (an ONNX uint8 / int8 graph
    input or output), not floats."""

    name: str
    shape: tuple[int, ...]
    qtype: QuantizedType | None
    model_integers: bool = False

    @property
    def signed(self) -> bool:
        return self.qtype is not None and not isinstance(self.qtype, BipolarQuantizedType) and self.qtype.is_signed

    @property
    def dtype(self) -> np.dtype:
        """The buffer's element: the storage integer, sub-byte values one per byte; float32."""
        if self.qtype is None:
            return np.dtype(np.float32)
        return storage_dtype(self.qtype.storage_integer_type().width.data, self.signed)

    @property
    def c_type(self) -> str:
        return element_c_type(self.dtype)

    def quantize(self, values: np.ndarray) -> np.ndarray:
        """A model input quantized by the port's type (`quant.qcast`; a float port's values as
        they are)."""
        return values if self.qtype is None else quantize(values, self.qtype)

    def dequantize(self, values: np.ndarray) -> np.ndarray:
        """A function output as the model's real values (`quant.dcast`; a float port's as they
        are)."""
        return values if self.qtype is None else dequantize(_quantized_values(values, self), self.qtype)

    def buffer(self) -> Buffer:
        qtype = self.qtype
        if qtype is None:
            return Buffer(self.name, self.shape, C_FLOAT)
        if isinstance(qtype, BipolarQuantizedType):
            return Buffer(self.name, self.shape, self.c_type, None, (0, 1))
        scales, zero_points = qtype.scale_values(), qtype.zero_point_values()
        storage_format = qtype.storage_type.name if isinstance(qtype, FloatQuantizedType) else None
        if qtype.kind == Granularity.PER_TENSOR:
            quantization = Quantization(scales[0], zero_points[0], storage_format=storage_format)
        elif qtype.kind == Granularity.PER_AXIS:
            quantization = Quantization(scales, zero_points, qtype.axis, storage_format)
        else:
            quantization = None  # sub-channel tables have no header form yet
        return Buffer(self.name, self.shape, self.c_type, quantization, qtype.value_range())


def ports(names: Sequence[str], types, attrs, source_types) -> list[Port]:
    ports = []
    entries = attrs if attrs is not None else [DictionaryAttr({})] * len(types)  # no attributes: float ports
    for name, value_type, entry, source_type in zip(names, types, entries, source_types, strict=True):
        qtype = recorded_quant_type(entry)
        assert qtype is not None or value_type.element_type == Float32Type()
        integers = isinstance(getattr(source_type, "element_type", source_type), IntegerType)
        ports.append(Port(name, tuple(value_type.get_shape()), qtype, integers))
    return ports
