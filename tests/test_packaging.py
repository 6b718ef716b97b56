"""The distribution maps the top-level layer folders to `bitfold.<layer>` packages; its sdist can test itself;
its license, version and the tools' --version and --help."""

import subprocess
import sys
import tarfile
import tomllib
from importlib.metadata import metadata, version
from pathlib import Path

import pytest

import bitfold

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {"driver": "bitfold", "dialects": "bitfold.dialects", "passes": "bitfold.passes",
          "frontends": "bitfold.frontends", "backends": "bitfold.backends", "interpreters": "bitfold.interpreters"}


def test_every_package_folder_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = set()
    for folder, package in LAYERS.items():
        assert config["package-dir"][package] == folder
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((package, *relative)))
    assert found == listed


@pytest.mark.parametrize("where", ["elsewhere", "checkout root"])
def test_installed_package_imports_from_any_directory(tmp_path, where):
    code = "import bitfold.dialects.quant as q, bitfold.passes, bitfold.frontends, bitfold.backends; print(q.__name__)"
    cwd = tmp_path if where == "elsewhere" else ROOT
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "bitfold.dialects.quant"


def test_nothing_is_installed_as_a_bare_layer_module(tmp_path):
    done = subprocess.run([sys.executable, "-c", "import dialects"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode != 0


SDIST_MUST_HOLD = ["LICENSE", "README.md", "tests/conftest.py", "tests/filecheck/lit.cfg", "docs/design.md",
                   "examples/cnn_depthwise_qdq.onnx", "bench/riscv_kernels.py", "scripts/setup.sh",
                   "backends/kernel/harness/counter_plugin.c"]


def test_sdist_holds_what_its_own_test_suite_needs(tmp_path):
    """The sdist (setuptools' PEP 517 hook, as `python -m build --sdist --no-isolation` runs it) holds the
    tests, docs, examples, benchmarks, scripts and the LICENSE, and no lit or bytecode leftovers."""
    build = "import sys; from setuptools import build_meta; print(build_meta.build_sdist(sys.argv[1]))"
    done = subprocess.run([sys.executable, "-c", build, str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    with tarfile.open(tmp_path / done.stdout.strip().splitlines()[-1]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    missing = [name for name in SDIST_MUST_HOLD if name not in names]
    assert not missing, missing
    filecheck_tests = [name for name in names if name.startswith("tests/filecheck/") and name.endswith(".mlir")]
    assert len(filecheck_tests) == len(list((ROOT / "tests/filecheck").rglob("*.mlir")))
    assert not [name for name in names if "/Output/" in name or "__pycache__" in name or name.endswith(".pyc")]


def test_license_metadata_is_apache_2():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    assert "Apache License" in (ROOT / "LICENSE").read_text() and "Version 2.0" in (ROOT / "LICENSE").read_text()
    assert metadata("bitfold")["License-Expression"] == "Apache-2.0"


def test_version_is_the_distribution_version():
    assert bitfold.__version__ == version("bitfold")


@pytest.mark.parametrize("tool", ["bitfold-opt", "bitfold-run", "bitfold-compile", "bitfold-quantize", "bitfold-report"])
def test_tools_print_bitfold_version(tool):
    done = subprocess.run([tool, "--version"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{tool} {version('bitfold')}")


def test_opt_help_names_bitfold_and_describes_its_passes_and_options():
    done = subprocess.run(["bitfold-opt", "--help"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: bitfold-opt") and "xdsl-opt" not in done.stdout
    lines = done.stdout.splitlines()
    for name in bitfold.get_all_passes():
        described = [line for line in lines if line.startswith(f"  {name}:") or line.startswith(f"  {name}{{")]
        assert len(described) == 1 and len(described[0].split(": ", 1)[1]) > 10, name
    assert "  quant-to-integer{integer-io=false, integer-only=false}: " in done.stdout
    assert "  bitfold-riscv-allocate-registers{xlen=64, registers=27, spill=true}: " in done.stdout


OUTSIDE_REFERENCES = (str(Path("..") / "shared"), "rvcount")
"""Spellings of files and tools outside the repository that once appeared in it (the first built from
parts, so this file does not spell it)."""


def test_nothing_refers_outside_the_repository():
    sources = [path for suffix in ("py", "md", "sh", "toml", "cfg", "c", "h", "mlir", "in")
               for path in ROOT.rglob(f"*.{suffix}")
               if not {".venv", "build", "dist", ".git"} & set(path.relative_to(ROOT).parts)
               and "egg-info" not in str(path) and path.name != "test_packaging.py"]
    assert len(sources) > 100
    found = [f"{path.relative_to(ROOT)}: {needle}" for path in sources
             for needle in OUTSIDE_REFERENCES if needle in path.read_text(errors="replace")]
    assert not found, found
