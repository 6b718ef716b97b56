"""The bench scripts (bench/*.py) as modules for tests: their kernel cases, models and C columns."""

import importlib.util
from pathlib import Path
from types import ModuleType

from conftest import unavailable

from bitfold.backends.kernel.harness import HarnessError, plugin_path

BENCH = Path(__file__).resolve().parents[1] / "bench"


def bench_module(name: str) -> ModuleType:
    """bench/<name>.py, imported."""
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def counting_bench(name: str) -> ModuleType:
    """bench/<name>.py once the instruction counter is built (skipped without it, failed under CI)."""
    try:
        plugin_path()
    except HarnessError as error:
        unavailable(f"the instruction counter cannot be built: {error}")
    return bench_module(name)
