"""Built ONNX models saved to files once per process, for the tools that read a path (the bench's
fixture sets, `load_module`): `saved(name, build)` writes `build()` to `<name>.onnx` in a temporary
directory that goes when the process ends."""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Callable
from pathlib import Path

import onnx


@functools.cache
def _directory() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="bitfold-models-")


def saved(name: str, build: Callable[[], onnx.ModelProto]) -> Path:
    """The model `build()` saved as `<name>.onnx` (once per process)."""
    path = Path(_directory().name) / f"{name}.onnx"
    if not path.exists():
        onnx.save(build(), path)
    return path
