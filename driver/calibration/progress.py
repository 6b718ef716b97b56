"""A one-line progress bar for long calibration runs: samples done, of how many, and samples per
second, redrawn in place on a terminal; nothing at all when the stream is not a terminal."""

import sys
import time
from typing import TextIO

BAR_WIDTH = 30


class Progress:
    """`update(n)` after each `n` samples, `close()` at the end (a newline, on a terminal only)."""

    def __init__(self, total: int, label: str = "calibration", stream: TextIO | None = None):
        self.total, self.label, self.done = total, label, 0
        self.stream = stream if stream is not None else sys.stderr
        self.shown = self.stream.isatty()
        self.start = time.perf_counter()

    def update(self, count: int) -> None:
        self.done += count
        if not self.shown:
            return
        elapsed = max(time.perf_counter() - self.start, 1e-9)
        filled = BAR_WIDTH * self.done // max(self.total, 1)
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] "
                          f"{self.done}/{self.total} samples, {self.done / elapsed:.1f} samples/s")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
