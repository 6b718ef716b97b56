"""Read a `.npy` input file safely: the header is checked before any data is allocated.

Accepted: format versions 1.0 and 2.0, a header of at most `MAX_HEADER_BYTES`, real numeric
dtypes only (bool, signed and unsigned integers of 1 to 8 bytes, float16/32/64, either byte
order; no complex, datetime, object, string, structured or sub-array dtypes), a shape within
the tensor cap (`bitfold.dialects.tensor_limits`) and exactly the data bytes the header
promises. Never unpickles. Every failure is one `ArrayFileError` line naming the file.
`.npz` archives (`load_archive`) are read member by member the same way.
"""

import math
import tokenize
import zipfile
from pathlib import Path
from typing import BinaryIO

import numpy as np

from bitfold.dialects.tensor_limits import check_tensor

MAX_HEADER_BYTES = 10_000
"""numpy's own default `max_header_size` for untrusted files."""

_READ_HEADER = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
_REAL_KINDS = {"b": (1,), "i": (1, 2, 4, 8), "u": (1, 2, 4, 8), "f": (2, 4, 8)}
"""dtype kind -> accepted item sizes."""


class ArrayFileError(ValueError):
    """A `.npy` file bitfold will not read."""


def _header(stream, label: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    try:
        version = np.lib.format.read_magic(stream)
        if version not in _READ_HEADER:
            raise ArrayFileError(f"{label}: unsupported .npy format version {version[0]}.{version[1]}")
        return _READ_HEADER[version](stream, max_header_size=MAX_HEADER_BYTES)
    except ArrayFileError:
        raise
    except (ValueError, TypeError, SyntaxError, EOFError, tokenize.TokenError) as error:  # what numpy's header parser raises
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ArrayFileError(f"{label}: not a .npy array file ({message})") from None


def _read_array(stream: BinaryIO, label: str) -> np.ndarray:
    """The array of the `.npy` bytes `stream` holds (see the module docstring)."""
    shape, fortran_order, dtype = _header(stream, label)
    if dtype.fields is not None or dtype.subdtype is not None or dtype.itemsize not in _REAL_KINDS.get(dtype.kind, ()):
        raise ArrayFileError(f"{label}: unsupported element type {dtype} (bool, integers and float16/32/64 only)")
    if any(d < 0 for d in shape):
        raise ArrayFileError(f"{label}: not a .npy array file (negative dimension in shape {shape})")
    check_tensor(shape, dtype.itemsize, label)
    size = math.prod(shape) * dtype.itemsize
    data = stream.read(size + 1)
    if len(data) != size:
        raise ArrayFileError(f"{label}: the header promises {size:,} data bytes, the file holds {'more' if len(data) > size else f'{len(data):,}'}")
    array = np.frombuffer(bytearray(data), dtype=dtype).reshape(shape, order="F" if fortran_order else "C")
    return array.astype(dtype.newbyteorder("="), order="C")


def load_array(path: str | Path, label: str | None = None) -> np.ndarray:
    """The array in the `.npy` file `path` (see the module docstring); `label` names it in
    errors (default: the path)."""
    label = label or str(path)
    try:
        with open(path, "rb") as stream:
            return _read_array(stream, label)
    except OSError as error:
        raise ArrayFileError(f"{label}: {error.strerror}") from None


def load_archive(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays of the `.npz` file `path` by name (numpy's `savez`: one `<name>.npy` member
    each), every member read as `load_array` reads a file."""
    try:
        with zipfile.ZipFile(path) as archive:
            arrays = {}
            for member in archive.infolist():
                if not member.filename.endswith(".npy"):
                    raise ArrayFileError(f"{path}: member '{member.filename[:60]}' is not a .npy array")
                with archive.open(member) as stream:
                    arrays[member.filename.removesuffix(".npy")] = _read_array(stream, f"{path}:{member.filename}")
            return arrays
    except OSError as error:
        raise ArrayFileError(f"{path}: {error.strerror or error}") from None
    except zipfile.BadZipFile as error:
        raise ArrayFileError(f"{path}: not a .npz archive ({error})") from None
