"""The C header of a generated kernel: prototype, workspace size, buffer sizes, shapes and quantization.

For a kernel `void model(const int8_t *input_1, uint8_t *conv_out_0, void *workspace)` the header
defines `MODEL_WORKSPACE_SIZE` (the bytes of the workspace, the last argument, always present;
docs/riscv-abi.md) and `MODEL_WORKSPACE_ALIGNMENT` (the alignment its address needs), and, for
every buffer, macros prefixed `MODEL_<BUFFER>_`:

    RANK, DIM0 .. DIM<rank-1>, SHAPE      the row-major shape (SHAPE is a brace initializer)
    ELEMENTS, BYTES                       elements and bytes of the buffer
    MIN, MAX                              the range of the stored integers (a 4-bit activation
                                          in a uint8_t holds 0..15: sub-byte elements take one
                                          byte each)
    SCALE, ZERO_POINT                     per-tensor quantization: real = SCALE * (q - ZERO_POINT)
    FORMAT                                float storage only: the format ("f8E4M3FN", ...) whose
                                          bit patterns the elements are: real = SCALE * FORMAT(q)
    AXIS, CHANNELS, SCALES, ZERO_POINTS   per-channel quantization along AXIS (SCALES and
                                          ZERO_POINTS are brace initializers of CHANNELS values)

Buffer identifiers are derived from the ONNX names: every run of characters outside
[A-Za-z0-9] becomes one `_` (none at either end, so no identifier is reserved in C or C++),
a name that starts with a digit or is a C keyword gets the prefix `t_`, and one that still
collides with an earlier one or with `workspace` (ignoring case, as the macros are upper case)
gets `_2`, `_3`, ...
"""

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

C_FLOAT = "float"
"""the C type of an f32 buffer (IEEE binary32)"""
C_INTEGER_TYPES = {
    "int8_t": np.dtype(np.int8),
    "uint8_t": np.dtype(np.uint8),
    "int16_t": np.dtype(np.int16),
    "uint16_t": np.dtype(np.uint16),
    "int32_t": np.dtype(np.int32),
    "uint32_t": np.dtype(np.uint32),
}
C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if inline int "
    "long register restrict return short signed sizeof static struct switch typedef union unsigned void "
    "volatile while _Bool _Complex _Imaginary bool true false".split()
)
NOT_IDENTIFIER_CHARACTER = re.compile(r"[^A-Za-z0-9_]")
C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
UINT32_MAX = 2**32 - 1
FLOAT32_MAX = float(np.finfo(np.float32).max)
# Outside this range of magnitudes a float literal reads better in scientific notation.
POSITIONAL_FLOAT_RANGE = (1e-4, 1e7)
WORKSPACE = "workspace"
"""the C name of the workspace parameter"""
WORKSPACE_ALIGNMENT = 8
"""bytes: the largest element an intermediate buffer holds (int64_t on RV64); each buffer starts
at a multiple of its element size in the workspace"""


@dataclass(frozen=True)
class Quantization:
    """real = scale * (q - zero_point), per tensor (scalars) or per channel along `axis` (sequences);
    with a float `storage_format` (MLIR's name, "f8E4M3FN"), real = scale * (the value of q's bits
    in that format), the zero points 0."""

    scale: float | Sequence[float]
    zero_point: int | Sequence[int] = 0
    axis: int | None = None
    storage_format: str | None = None


@dataclass(frozen=True)
class Buffer:
    """One kernel argument: a contiguous row-major array of `c_type` elements."""

    name: str
    """The ONNX name; the C identifier is derived from it."""
    shape: Sequence[int]
    c_type: str
    """The storage type: int8_t, uint8_t, int16_t, uint16_t, int32_t or uint32_t; or `float`
    (C_FLOAT) for a float island's input or output."""
    quantization: Quantization | None = None
    value_range: tuple[int, int] | None = None
    """The integers the elements hold (default: the whole range of `c_type`)."""


@dataclass
class Names:
    """C identifiers handed out so far (compared case-insensitively, as macros use upper case)."""

    taken: set[str] = field(default_factory=set)

    def identifier(self, onnx_name: str) -> str:
        base = re.sub("_+", "_", NOT_IDENTIFIER_CHARACTER.sub("_", onnx_name)).strip("_") or "t"
        if base[0].isdigit() or base in C_KEYWORDS:
            base = "t_" + base
        name, suffix = base, 2
        while name.upper() in self.taken:
            name, suffix = f"{base}_{suffix}", suffix + 1
        self.taken.add(name.upper())
        return name


def c_integer(value: int) -> str:
    """A C literal of `value` that keeps its sign and value in any context (macros expand in place)."""
    value = int(value)
    if value == INT32_MIN:
        return "(-2147483647 - 1)"
    if value > INT32_MAX:
        return f"{value}u" if value <= UINT32_MAX else f"{value}ull"
    return f"({value})" if value < 0 else str(value)


def c_float(value: float) -> str:
    """The shortest decimal C float literal that reads back as the same float32."""
    single = np.float32(value)
    low, high = POSITIONAL_FLOAT_RANGE
    if single == 0 or low <= abs(single) < high:
        text = np.format_float_positional(single, unique=True, trim="0")
    else:
        text = np.format_float_scientific(single, unique=True, trim="0")
    return text + "f"


def c_hex_float(value: float) -> str:
    """The exact float32 value as a C99 hexadecimal literal, for the comments."""
    mantissa, _, exponent = float(np.float32(value)).hex().partition("p")
    return mantissa.rstrip("0").rstrip(".") + "p" + exponent + "f"


def brace_list(values: Sequence[str]) -> str:
    return "{" + ", ".join(values) + "}"


def comment_text(text: str) -> str:
    """`text` made safe inside a C block comment (no `*/`, no control characters)."""
    return "".join(c if c.isprintable() else "?" for c in text).replace("*/", "* /")


def check_zero_point(buffer: Buffer, zero_point: int, low: int, high: int) -> int:
    if not low <= zero_point <= high:
        raise ValueError(f"{buffer.name}: zero point {zero_point} is outside [{low}, {high}]")
    return zero_point


def check_scale(buffer: Buffer, scale: float) -> float:
    if not 0 < scale <= FLOAT32_MAX:
        raise ValueError(f"{buffer.name}: scale {scale} is not a positive finite float32")
    return scale


def per_channel(buffer: Buffer, shape: list[int], low: int, high: int) -> tuple[int, list[float], list[int]]:
    """The normalized axis and one scale and zero point a channel (scalars are broadcast)."""
    quantization = buffer.quantization
    axis = quantization.axis + len(shape) if quantization.axis < 0 else quantization.axis
    if not 0 <= axis < len(shape):
        raise ValueError(f"{buffer.name}: quantization axis {quantization.axis} is outside rank {len(shape)}")
    channels = shape[axis]
    if np.size(quantization.scale) not in (1, channels) or np.size(quantization.zero_point) not in (1, channels):
        raise ValueError(f"{buffer.name}: per-channel scales and zero points need {channels} values (axis {axis})")
    scales = np.broadcast_to(np.asarray(quantization.scale, np.float64), (channels,))
    zero_points = np.broadcast_to(np.asarray(quantization.zero_point, np.int64), (channels,))
    return (axis, [check_scale(buffer, float(s)) for s in scales],
            [check_zero_point(buffer, int(z), low, high) for z in zero_points])


def shape_macros(prefix: str, buffer: Buffer, itemsize: int) -> list[str]:
    """RANK, DIM<i>, SHAPE, ELEMENTS and BYTES of a buffer."""
    shape = [int(d) for d in buffer.shape]
    if any(d < 0 for d in shape):
        raise ValueError(f"{buffer.name}: negative dimension in shape {shape}")
    macros = [f"#define {prefix}RANK {len(shape)}"]
    macros += [f"#define {prefix}DIM{position} {c_integer(d)}" for position, d in enumerate(shape)]
    if shape:
        macros.append(f"#define {prefix}SHAPE {brace_list([c_integer(d) for d in shape])}")
    macros.append(f"#define {prefix}ELEMENTS {c_integer(math.prod(shape))}")
    macros.append(f"#define {prefix}BYTES {c_integer(math.prod(shape) * itemsize)}")
    return macros


def float_buffer_macros(prefix: str, identifier: str, buffer: Buffer, role: str, index: int) -> list[str]:
    """The #define block of a float buffer (a float island's input or output, not quantized)."""
    dims = "".join(f"[{int(d)}]" for d in buffer.shape)
    comment = (f"/* {role} {index}, ONNX name \"{comment_text(buffer.name)}\": float {identifier}{dims}"
               " (IEEE binary32, not quantized: read or written by float code). */")
    return [comment, *shape_macros(prefix, buffer, 4)]


def buffer_macros(prefix: str, identifier: str, buffer: Buffer, role: str, index: int) -> list[str]:
    """The #define block of one buffer, its doc comment first."""
    if buffer.c_type == C_FLOAT:
        return float_buffer_macros(prefix, identifier, buffer, role, index)
    if buffer.c_type not in C_INTEGER_TYPES:
        raise ValueError(f"{buffer.name}: storage type {buffer.c_type!r} is not one of {', '.join(C_INTEGER_TYPES)}")
    dtype = C_INTEGER_TYPES[buffer.c_type]
    shape = [int(d) for d in buffer.shape]
    info = np.iinfo(dtype)
    low, high = buffer.value_range if buffer.value_range is not None else (int(info.min), int(info.max))
    if not info.min <= low <= high <= info.max:
        raise ValueError(f"{buffer.name}: range [{low}, {high}] does not fit {buffer.c_type}")
    bits = (high - low).bit_length()
    width = f"{bits}-bit values, one per {buffer.c_type} element; " if bits < 8 * dtype.itemsize else ""
    dims = "".join(f"[{d}]" for d in shape)
    comment = (f"/* {role} {index}, ONNX name \"{comment_text(buffer.name)}\": {buffer.c_type} {identifier}{dims}"
               f" ({width}elements in [{low}, {high}])")
    macros = shape_macros(prefix, buffer, dtype.itemsize)
    macros.append(f"#define {prefix}MIN {c_integer(low)}")
    macros.append(f"#define {prefix}MAX {c_integer(high)}")
    quantization = buffer.quantization
    if quantization is None:
        return [comment + ". */", *macros]
    if quantization.axis is None:
        if not (np.isscalar(quantization.scale) and np.isscalar(quantization.zero_point)):
            raise ValueError(f"{buffer.name}: per-channel scales or zero points need an axis")
        scale = check_scale(buffer, float(quantization.scale))
        zero_point = check_zero_point(buffer, int(quantization.zero_point), low, high)
        if quantization.storage_format:
            comment += f",\n   {quantization.storage_format} bit patterns, per tensor: real = SCALE * FORMAT(q). */"
        else:
            comment += ",\n   quantized per tensor: real = SCALE * (q - ZERO_POINT). */"
        macros.append(f"#define {prefix}SCALE {c_float(scale)} /* = {c_hex_float(scale)} exactly */")
        macros.append(f"#define {prefix}ZERO_POINT {c_integer(zero_point)}")
        return [comment, *_format_macro(prefix, quantization), *macros]
    axis, scales, zero_points = per_channel(buffer, shape, low, high)
    if quantization.storage_format:
        comment += (f",\n   {quantization.storage_format} bit patterns, per channel along axis {axis}: "
                    "real = SCALES[c] * FORMAT(q). */")
    else:
        comment += f",\n   quantized per channel along axis {axis}: real = SCALES[c] * (q - ZERO_POINTS[c]). */"
    macros.append(f"#define {prefix}AXIS {axis}")
    macros.append(f"#define {prefix}CHANNELS {len(scales)}")
    macros.append(f"/* SCALES exactly: {', '.join(c_hex_float(s) for s in scales)} */")
    macros.append(f"#define {prefix}SCALES {brace_list([c_float(s) for s in scales])}")
    macros.append(f"#define {prefix}ZERO_POINTS {brace_list([c_integer(z) for z in zero_points])}")
    return [comment, *_format_macro(prefix, quantization), *macros]


def _format_macro(prefix: str, quantization: Quantization) -> list[str]:
    return [f'#define {prefix}FORMAT "{quantization.storage_format}"'] if quantization.storage_format else []


def c_header(
    symbol: str, inputs: Sequence[Buffer], outputs: Sequence[Buffer], workspace_size: int, calls: Sequence[str] = ()
) -> str:
    """The header of kernel `symbol(const in0 *, ..., out0 *, ..., void *workspace)`: include
    guard, <stdint.h>, the workspace's size and alignment, the macros of every buffer (see the
    module docstring) and the prototype; `calls`: the libgcc routines the kernel calls (soft
    float), which the comment tells the caller to link."""
    if not C_IDENTIFIER.fullmatch(symbol) or symbol in C_KEYWORDS:
        raise ValueError(f"kernel symbol {symbol!r} is not a C identifier")
    if workspace_size < 0:
        raise ValueError(f"workspace size {workspace_size} is negative")
    names = Names({symbol.upper(), WORKSPACE.upper()})
    upper = symbol.upper()
    guard = f"BITFOLD_{upper}_H"
    identifiers = [names.identifier(buffer.name) for buffer in (*inputs, *outputs)]
    parameters = [f"const {buffer.c_type} *{name}" for buffer, name in zip(inputs, identifiers)]
    parameters += [f"{buffer.c_type} *{name}" for buffer, name in zip(outputs, identifiers[len(inputs):])]
    parameters.append(f"void *{WORKSPACE}")
    lines = [
        f"/* Interface of the bitfold-generated kernel {symbol}.",
        " *",
        f" * {symbol} reads its inputs and writes its outputs through pointers to contiguous row-major",
        " * arrays, one element per C element (sub-byte values too). A quantized buffer holds q with",
        " * real = scale * (q - zero_point).",
        " *",
        f" * The last argument is the workspace: {upper}_WORKSPACE_SIZE bytes (possibly 0) the caller",
        f" * provides, aligned to {upper}_WORKSPACE_ALIGNMENT bytes, for the intermediate results. Its",
        " * contents need no initialization and mean nothing after the call. The kernel has no static",
        " * data but its constants (no .data, no .bss) and keeps no state between calls: it is reentrant,",
        " * and calls on different workspaces may run at the same time. Buffers must not overlap the",
        " * workspace or one another (inputs may share memory with other inputs).",
        *(
            [" *", f" * {symbol} calls libgcc's soft-float routines {', '.join(sorted(calls))}: link with libgcc",
             " * (gcc links it by default; with -nostdlib add -lgcc)."]
            if calls else []
        ),
        " */",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        "#include <stdint.h>",
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
    ]
    lines += [
        f"/* Bytes of the workspace {symbol} takes as its last argument (alignment: {upper}_WORKSPACE_ALIGNMENT). */",
        f"#define {upper}_WORKSPACE_SIZE {c_integer(workspace_size)}",
        f"#define {upper}_WORKSPACE_ALIGNMENT {WORKSPACE_ALIGNMENT}",
        "",
    ]
    buffers = [("Input", index, buffer) for index, buffer in enumerate(inputs)]
    buffers += [("Output", index, buffer) for index, buffer in enumerate(outputs)]
    for (role, index, buffer), name in zip(buffers, identifiers):
        lines += buffer_macros(f"{upper}_{name.upper()}_", name, buffer, role, index)
        lines.append("")
    lines.append(f"/* {symbol}({', '.join([*identifiers, WORKSPACE])}): inputs first, then outputs, then the workspace. */")
    lines.append(f"void {symbol}({', '.join(parameters)});")
    lines += ["", "#ifdef __cplusplus", "}", "#endif", "", f"#endif /* {guard} */", ""]
    return "\n".join(lines)
