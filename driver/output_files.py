"""Files bitfold's tools write: always inside the directory asked for, whole or not at all.

- `safe_file_name(name)` turns a model's value name into one file name: ASCII letters,
  digits, `_` and `-` stay; every other byte of its UTF-8 form (and `.` at the start, so
  `.` and `..` cannot occur) becomes `%XX`, `%` included, so distinct names give distinct
  files and no name holds a `/`. Names whose escaped form exceeds `MAX_NAME_BYTES` are
  refused.
- `write_files(directory, {file name: bytes})` writes each file to a temporary file in
  `directory`, then renames them all into place (`os.replace`): a failure before the
  renames leaves no file; a file is never seen half written.
- `PendingTextOutput` is a text stream (with a byte `buffer`, for binary targets) held in
  memory until `commit()` writes it whole to its path; bitfold-opt's `-o FILE`.
"""

import io
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path

MAX_NAME_BYTES = 200
"""Longest escaped file name accepted (file systems allow 255 bytes; room for suffixes)."""

_KEPT = re.compile(rb"[A-Za-z0-9_-]")


class OutputNameError(ValueError):
    """A name that cannot become a file name (too long once escaped)."""


def safe_file_name(name: str) -> str:
    """`name` escaped to one file name (see the module docstring): `../x` -> `%2E.%2Fx`."""
    escaped = "".join(
        chr(byte) if _KEPT.fullmatch(bytes([byte])) or (byte == ord(".") and index > 0) else f"%{byte:02X}"
        for index, byte in enumerate(name.encode("utf-8", "surrogatepass"))
    )
    if not escaped or len(escaped) > MAX_NAME_BYTES:
        raise OutputNameError(f"output name '{name[:40]}' cannot be a file name ({'empty' if not escaped else 'too long'})")
    return escaped


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_temporary(directory: Path, name: str, data: bytes) -> Path:
    """`data` in a new temporary file of `directory` (removed again if writing fails), with
    the permissions a newly created file gets (0666 less the umask)."""
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".partial")
    try:
        os.fchmod(descriptor, 0o666 & ~_umask())
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
    except BaseException:
        os.unlink(temporary)
        raise
    return Path(temporary)


def write_files(directory: str | Path, files: Mapping[str, bytes]) -> list[Path]:
    """Write `files` ({file name: contents}; names without `/`, as `safe_file_name` gives)
    into `directory` (created if missing), all or none; returns the paths written."""
    directory = Path(directory)
    for name in files:
        if not name or "/" in name or name in (".", ".."):
            raise OutputNameError(f"'{name}' is not a file name")
    directory.mkdir(parents=True, exist_ok=True)
    temporaries: list[Path] = []
    try:
        for name, data in files.items():
            temporaries.append(_write_temporary(directory, name, data))
    except BaseException:
        for temporary in temporaries:
            temporary.unlink(missing_ok=True)
        raise
    targets = [directory / name for name in files]
    for temporary, target in zip(temporaries, targets, strict=True):
        os.replace(temporary, target)
    return targets


def write_file(path: str | Path, data: bytes) -> Path:
    """Write one file whole or not at all (see `write_files`)."""
    path = Path(path)
    return write_files(path.parent, {path.name: data})[0]


class _KeptBytes(io.BytesIO):
    """A BytesIO that keeps its contents when closed."""

    contents = b""

    def close(self) -> None:
        if not self.closed:
            self.contents = self.getvalue()
        super().close()


class PendingTextOutput(io.TextIOWrapper):
    """A UTF-8 text stream to `path`, held in memory: nothing reaches `path` until `commit()`
    (after the stream may have been closed), which writes it whole."""

    def __init__(self, path: str | Path):
        self._bytes = _KeptBytes()
        super().__init__(self._bytes, encoding="utf-8", newline="")
        self.path = Path(path)

    def commit(self) -> None:
        if not self.closed:
            self.flush()
        write_file(self.path, self._bytes.getvalue() if not self._bytes.closed else self._bytes.contents)
