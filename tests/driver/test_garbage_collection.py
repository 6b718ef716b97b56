"""`collect_rarely`: the collector keeps running (memory stays bounded), only less often."""

import gc

from bitfold.garbage_collection import OLDER_THRESHOLDS, YOUNG_THRESHOLD, collect_rarely


def test_collect_rarely_raises_the_thresholds_and_keeps_the_collector_on():
    saved = gc.get_threshold()
    try:
        collect_rarely()
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
        assert gc.isenabled()
        assert YOUNG_THRESHOLD > saved[0]
    finally:
        gc.set_threshold(*saved)
