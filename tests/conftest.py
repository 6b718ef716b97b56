"""Shared fixtures: the upstream MLIR oracle and a runner for bitfold's command-line tools."""

import os
import shutil
import subprocess

import pytest

pytest_plugins = ["models.fixtures"]  # the test-model recipes (tests/models/)

MLIR_OPT = "mlir-opt-22"


@pytest.fixture(scope="session")
def mlir_opt():
    """Run upstream `mlir-opt-22` (Debian `mlir-22-tools`) on text; skip where it is missing."""
    path = shutil.which(MLIR_OPT)
    if path is None:
        message = f"{MLIR_OPT} is not installed (apt-get install mlir-22-tools)"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI installs it: a missing oracle must not pass as a skip
        pytest.skip(message)

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
