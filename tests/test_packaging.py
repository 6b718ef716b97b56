"""The distribution maps the top-level layer folders to `bitfold.<layer>` packages."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {"driver": "bitfold", "dialects": "bitfold.dialects", "passes": "bitfold.passes",
          "frontends": "bitfold.frontends", "backends": "bitfold.backends"}


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
