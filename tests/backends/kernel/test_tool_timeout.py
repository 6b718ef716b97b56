"""The external tools' time limit (`harness.toolchain.tool_timeout`): `time_limit` sets it, 0
removes it, and the default is `TOOL_TIMEOUT_SECONDS` scaled up by the load per core, never below."""

import os

from bitfold.backends.kernel.harness.toolchain import TOOL_TIMEOUT_SECONDS, time_limit, tool_timeout


def test_time_limit_sets_and_removes_the_limit():
    with time_limit(7.5):
        assert tool_timeout() == 7.5
        with time_limit(0):
            assert tool_timeout() is None
        assert tool_timeout() == 7.5


def test_default_scales_with_the_load_per_core(monkeypatch):
    cores = os.cpu_count() or 1
    monkeypatch.setattr(os, "getloadavg", lambda: (3.0 * cores, 0.0, 0.0))
    assert tool_timeout() == 3 * TOOL_TIMEOUT_SECONDS
    monkeypatch.setattr(os, "getloadavg", lambda: (0.1, 0.0, 0.0))
    assert tool_timeout() == TOOL_TIMEOUT_SECONDS
