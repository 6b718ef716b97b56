"""Shared fixtures: the upstream MLIR oracle and a runner for bitfold's command-line tools; the one way a
test says it needs an external tool (`require_tools`) or something that could not be built (`unavailable`)."""

import os
import shutil
import subprocess
from typing import NoReturn

import pytest

from bitfold.garbage_collection import collect_rarely

pytest_plugins = ["models.fixtures"]  # the test-model recipes (tests/models/)

MLIR_OPT = "mlir-opt-22"


def pytest_configure(config):
    """Each test process compiles models by the dozen, as `bitfold-compile` does one: the cyclic garbage
    collector tuned the same way (bitfold.garbage_collection: fewer rescans of the surviving IR)."""
    collect_rarely()


def in_ci() -> bool:
    """Whether the tests run under CI (`CI` set to anything but empty, `0` or `false`): CI installs every
    tool scripts/setup.sh lists, so there a missing one is a failure, never a silent skip."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def unavailable(reason: str) -> NoReturn:
    """Skip the calling test for `reason`; under CI fail it instead."""
    if in_ci():
        pytest.fail(f"{reason} (CI installs it: scripts/setup.sh)")
    pytest.skip(reason)


def require_tools(*tools: str) -> None:
    """Skip the calling test (fail it under CI) where one of `tools` is not on PATH."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        unavailable(f"not installed: {', '.join(missing)} (scripts/setup.sh installs them)")


@pytest.fixture(scope="session")
def mlir_opt():
    """Run upstream `mlir-opt-22` (Debian `mlir-22-tools`) on text; skip where it is missing (fail under CI)."""
    require_tools(MLIR_OPT)
    path = shutil.which(MLIR_OPT)

    def run(text: str, *args: str) -> str:
        done = subprocess.run(
            [path, "--allow-unregistered-dialect", *args], input=text, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run


@pytest.fixture(scope="session")
def bitfold_opt():
    """Run the installed `bitfold-opt` on text; returns the CompletedProcess."""

    def run(text: str, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bitfold-opt", *args], input=text, capture_output=True, text=True)

    return run
