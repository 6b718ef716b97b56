"""Python's cyclic garbage collector tuned for compiling large models.

An IR of a 100-layer model is millions of Python objects (ops, values, uses, attributes) that
live until the compilation ends, and the passes allocate them by the hundred thousand. With the
default thresholds (a young collection every 700 net allocations, older generations every 10 of
those) the collector rescans the surviving IR again and again: about a tenth of the CPU time of
compiling MLPerf Tiny's MobileNet for rv32im (9.3 s against 8.4 s, bench/compile_speed.py).
`collect_rarely` raises the young generation's threshold to
`YOUNG_THRESHOLD` net allocations; memory stays bounded (the collector still runs), and the
compiled code cannot change (collection never affects what the passes compute).
"""

import gc

YOUNG_THRESHOLD = 100_000
"""net allocations between young collections (CPython's default: 700)"""
OLDER_THRESHOLDS = (50, 100)
"""young collections per middle one, middle ones per full one (CPython's default: 10, 10)"""


def collect_rarely() -> None:
    """Set the collector's thresholds for a compiler process (module docstring)."""
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
