"""The cap on tensor sizes, checked before anything of that size is allocated.

A tensor may hold at most `max_elements` elements and `max_bytes` bytes (elements times the
bytes of its element type, at least one byte each). Defaults: 2^28 elements, 1 GiB. The
environment variable `BITFOLD_MAX_TENSOR_BYTES` (a number of bytes) raises or lowers the byte
cap for a process; `tensor_limits(max_bytes=..., max_elements=...)` sets both for a block of
code (the drivers' `--max-tensor-bytes`, the API's `max_tensor_bytes` parameters).

Checked where data is made, never on a type alone (a type allocates nothing: a function taking
`tensor<1000000000000x1000000000000xf32>` parses, verifies and prints, as in `mlir-opt`): the ONNX
frontend (declared dims of inputs, outputs and inferred values, initializer and external data
sizes), the `.npy` reader (the header's shape), the MLIR parser (dense literals of a splat or of
a huge shape are refused from the type before they are built), the interpreter (every value of
the function it runs, `check_module`, before it runs), and passes that build a constant from a
type (`check_type`: folding data movement of constants, `fold_moved_constants`; a Pad's fill
check, `sink_dequantize`; AveragePool's window counts, `quant_to_integer/pooling`).
"""

import math
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

DEFAULT_MAX_ELEMENTS = 2**28
DEFAULT_MAX_BYTES = 2**30
ENVIRONMENT_VARIABLE = "BITFOLD_MAX_TENSOR_BYTES"


class TensorTooLarge(ValueError):
    """A tensor over the cap; the message names it, its size and the cap, and how to raise it."""


@dataclass(frozen=True)
class TensorLimits:
    max_elements: int
    max_bytes: int

    def exceeds(self, shape: Sequence[int], element_bytes: float) -> bool:
        """Whether a tensor of `shape` (dynamic dimensions, < 0, count as 1) with `element_bytes`
        bytes per element is over the cap."""
        elements = math.prod(max(int(d), 1) for d in shape)
        return elements > self.max_elements or elements * max(element_bytes, 1) > self.max_bytes

    def check(self, shape: Sequence[int], element_bytes: float, what: str) -> None:
        """Raise `TensorTooLarge` if a tensor of `shape` is over the cap (`exceeds`)."""
        if self.exceeds(shape, element_bytes):
            elements = math.prod(max(int(d), 1) for d in shape)
            size = elements * max(element_bytes, 1)
            raise TensorTooLarge(
                f"{what} has {elements:,} elements ({int(size):,} bytes), over the cap of "
                f"{self.max_elements:,} elements / {self.max_bytes:,} bytes "
                f"(raise it with --max-tensor-bytes or {ENVIRONMENT_VARIABLE})"
            )


def _from_environment() -> TensorLimits:
    text = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if not text.isdigit():
        return TensorLimits(DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_BYTES)
    return TensorLimits(max(DEFAULT_MAX_ELEMENTS, int(text)), int(text))


_current: list[TensorLimits] = []


def current_limits() -> TensorLimits:
    """The limits in force: the innermost `tensor_limits` block's, else the environment's."""
    return _current[-1] if _current else _from_environment()


@contextmanager
def tensor_limits(max_bytes: int | None = None, max_elements: int | None = None) -> Iterator[TensorLimits]:
    """Set the cap for the block (None keeps the value in force; a byte cap above the element
    cap raises the element cap with it)."""
    outer = current_limits()
    max_bytes = outer.max_bytes if max_bytes is None else max_bytes
    if max_elements is None:
        max_elements = max(outer.max_elements, max_bytes)
    _current.append(TensorLimits(max_elements, max_bytes))
    try:
        yield _current[-1]
    finally:
        _current.pop()


def check_tensor(shape: Sequence[int], element_bytes: float, what: str) -> None:
    """`current_limits().check(...)`."""
    current_limits().check(shape, element_bytes, what)


def check_type(value_type, what: str) -> None:
    """A tensor, memref or vector type within the cap (other types pass); `what` names the value."""
    from xdsl.dialects.builtin import MemRefType, TensorType, VectorType

    from bitfold.dialects.evaluation import numpy_dtype

    if not isinstance(value_type, TensorType | MemRefType | VectorType):
        return
    try:
        element_bytes = numpy_dtype(value_type.get_element_type()).itemsize
    except ValueError:
        element_bytes = 1
    limits = current_limits()
    if limits.exceeds(value_type.get_shape(), element_bytes):  # the type printed for the message only
        limits.check(value_type.get_shape(), element_bytes, f"{what} ({value_type})")


def check_module(module) -> None:
    """Every tensor, memref or vector value of `module` (an xDSL op: results and block
    arguments) within the cap; `TensorTooLarge` names the first op over it."""
    for op in module.walk():
        arguments = [a for region in op.regions for block in region.blocks for a in block.args]
        for value in (*op.results, *arguments):
            check_type(value.type, f"a value of '{op.name}'")
