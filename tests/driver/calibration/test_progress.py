"""The calibration progress line: drawn in place with samples per second on a terminal, nothing
otherwise."""

import io

from bitfold.calibration.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_shows_samples_and_rate():
    stream = _Terminal()
    progress = Progress(10, stream=stream)
    progress.update(4)
    progress.update(6)
    progress.close()
    lines = stream.getvalue().split("\r")
    assert "4/10 samples" in lines[1] and "10/10 samples" in lines[2]
    assert "samples/s" in lines[2] and stream.getvalue().endswith("\n")


def test_quiet_when_not_a_terminal():
    stream = io.StringIO()
    progress = Progress(10, stream=stream)
    progress.update(10)
    progress.close()
    assert stream.getvalue() == ""
