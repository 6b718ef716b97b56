"""conftest's `require_tools` / `unavailable`: a missing tool skips a test locally and fails it under CI."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_tools

TESTS = Path(__file__).resolve().parent

TEST = """
from conftest import require_tools

def test_needs_a_missing_tool():
    require_tools("sh", "bitfold-no-such-tool")
"""


@pytest.mark.parametrize(("ci", "outcome"), [(None, "1 skipped"), ("", "1 skipped"), ("false", "1 skipped"),
                                             ("0", "1 skipped"), ("true", "1 failed"), ("1", "1 failed")])
def test_missing_tool_skips_locally_and_fails_under_ci(tmp_path, monkeypatch, ci, outcome):
    """A test in a fresh directory, importing tests/conftest.py as a module, run by its own pytest."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    (tmp_path / "test_case.py").write_text(TEST)
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True)
    assert outcome in done.stdout, done.stdout
    assert "bitfold-no-such-tool" in done.stdout and "not installed: sh" not in done.stdout


def test_present_tools_pass():
    require_tools(sys.executable, "sh")  # neither skips nor fails


@pytest.mark.parametrize(("ci", "unsupported"), [(None, True), ("true", False)])
def test_lit_requires_skips_locally_and_stops_under_ci(monkeypatch, ci, unsupported):
    """lit.cfg's features: a `// REQUIRES: mlir-opt-22` test is UNSUPPORTED without the tool, and under CI
    the run stops instead (PATH holds only the Python environment's tools here)."""
    bin_dir = Path(sys.executable).parent
    monkeypatch.setenv("PATH", str(bin_dir))
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    test = TESTS / "filecheck" / "passes" / "quant_requant_to_upstream" / "upstream_parses.mlir"
    done = subprocess.run([str(bin_dir / "lit"), "-v", str(test)], capture_output=True, text=True)
    if unsupported:
        assert done.returncode == 0 and "UNSUPPORTED: bitfold :: passes/quant_requant_to_upstream" in done.stdout
    else:
        assert done.returncode != 0 and "fatal: mlir-opt-22 is not installed" in done.stderr
