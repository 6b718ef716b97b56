"""`collect_rarely`: the collector keeps running (memory stays bounded), only less often."""

import gc

from bitfold.garbage_collection import OLDER_THRESHOLDS, YOUNG_THRESHOLD, collect_rarely

CPYTHON_DEFAULT = (700, 10, 10)
"""`gc.get_threshold()` in a fresh CPython 3.11 process"""


def test_collect_rarely_raises_the_thresholds_and_keeps_the_collector_on():
    saved = gc.get_threshold()
    try:
        gc.set_threshold(*CPYTHON_DEFAULT)  # a CLI test run before in this process raised them already
        collect_rarely()
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
        assert gc.isenabled()
        assert YOUNG_THRESHOLD > CPYTHON_DEFAULT[0]
    finally:
        gc.set_threshold(*saved)
