"""The registry is the truth: every `ModulePass` subclass and every `Dialect` defined in bitfold's
modules is registered in `bitfold.registry` under its own name, a pass's class name is its
name in CamelCase plus `Pass` (`Pipeline` for a named pipeline of passes), a code generator's pass
is named `bitfold-<backend>-<job>` and its named pipeline `bitfold-lower-to-<backend>`, no other
is (docs/design.md "Pass names"), and every pass and
named pipeline has a FileCheck test of its own (a `RUN:` line under tests/filecheck/ running it with `-p`)."""

import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.ir import Dialect
from xdsl.passes import ModulePass

from bitfold.registry import get_all_dialects, get_all_passes

LAYERS = ("bitfold", "bitfold.dialects", "bitfold.interpreters", "bitfold.frontends", "bitfold.passes", "bitfold.backends")
"""The packages to walk: each layer is its own folder (`package-dir` in pyproject.toml), so
walking `bitfold` (the driver's folder) alone does not reach the others."""


def bitfold_modules() -> list:
    """Every module of the installed bitfold package, imported (as a checker walks them)."""
    modules = []
    for layer in LAYERS:
        package = importlib.import_module(layer)
        modules.append(package)
        modules += [importlib.import_module(info.name) for info in pkgutil.walk_packages(package.__path__, f"{layer}.")]
    return modules


@pytest.fixture(scope="module")
def modules() -> list:
    return bitfold_modules()


def defined_passes(modules: list) -> set[type[ModulePass]]:
    """The `ModulePass` subclasses bitfold's modules define."""
    return {
        value
        for module in modules
        for value in vars(module).values()
        if inspect.isclass(value) and issubclass(value, ModulePass) and value.__module__ == module.__name__
    }


def defined_dialects(modules: list) -> set[str]:
    """The names of the `Dialect`s bitfold's modules hold, xDSL's own left out."""
    from xdsl.dialects import get_all_dialects as upstream_dialects

    upstream = set(upstream_dialects())
    return {
        value.name
        for module in modules
        for value in vars(module).values()
        if isinstance(value, Dialect) and value.name not in upstream
    }


def camel_case(pass_name: str) -> str:
    return "".join(word.capitalize() for word in pass_name.split("-"))


def test_walk_finds_the_passes(modules):
    """The walk reaches every layer (a walk that finds nothing would make the next tests vacuous)."""
    layers = {cls.__module__.split(".")[1] for cls in defined_passes(modules)}
    assert layers == {"passes", "backends"}
    assert len(defined_passes(modules)) >= 26


def test_every_pass_is_registered(modules):
    registered = {factory() for factory in get_all_passes().values()}
    missing = sorted(f"{cls.__module__}.{cls.__name__}" for cls in defined_passes(modules) - registered)
    assert not missing, f"ModulePass subclasses missing from bitfold.registry.get_all_passes: {missing}"


@pytest.mark.parametrize("name", sorted(get_all_passes()))
def test_registered_name_is_the_pass_name(name):
    pass_class = get_all_passes()[name]()
    assert pass_class.name == name
    suffix = "Pipeline" if pass_class.__name__.endswith("Pipeline") else "Pass"
    assert pass_class.__name__ == camel_case(name) + suffix


def test_every_dialect_is_registered(modules):
    registered = get_all_dialects()
    assert {"quant", "onnx", "qonnx", "rvmem"} <= defined_dialects(modules) <= set(registered)
    for name, factory in registered.items():
        assert factory().name == name


KERNEL_ABI = "kernel"
"""`bitfold.backends.kernel`: the kernel ABI both code generators start from; its passes
(`bufferize`, `widen-sub-byte-outputs`) are named for what they do, as the passes of `passes/`."""


@pytest.mark.parametrize("name", sorted(get_all_passes()))
def test_backend_passes_and_only_they_carry_the_backend_prefix(name):
    """`bitfold-<backend>-<job>` for a pass of `bitfold.backends.<backend>` (`bitfold-lower-to-<backend>`
    for its named pipeline), no `bitfold-` prefix for the passes of `bitfold.passes` and of the
    kernel ABI (xDSL names its own without one)."""
    pass_class = get_all_passes()[name]()
    module = pass_class.__module__.split(".")
    if module[1] == "backends" and module[2] != KERNEL_ABI:
        if pass_class.__name__.endswith("Pipeline"):
            assert name == f"bitfold-lower-to-{module[2]}"
        else:
            assert name.startswith(f"bitfold-{module[2]}-")
    else:
        assert module[1] in ("passes", "backends") and not name.startswith("bitfold-")


FILECHECK = Path(__file__).parents[1] / "filecheck"


def filecheck_runs() -> str:
    """Every `RUN:` line of the FileCheck tests."""
    return "\n".join(
        line for path in FILECHECK.rglob("*.mlir") for line in path.read_text().splitlines() if "RUN:" in line
    )


@pytest.mark.parametrize("name", sorted(get_all_passes()))
def test_every_pass_has_a_filecheck_test(name):
    """Named pipelines too (`tests/filecheck/passes/pipelines/`, ONNX in)."""
    assert re.search(rf"-p[ =]*['\"]?[^|]*(?<![\w-]){re.escape(name)}(?![\w-])", filecheck_runs()), (
        f"no FileCheck test runs `bitfold-opt -p {name}`"
    )


def test_passes_and_dialects_load_without_the_onnx_package():
    """Loading every registered pass and dialect (what `bitfold-opt -p ...` does on MLIR input)
    imports no `onnx` module: only the ONNX frontend and the exporters need the package, and its
    import (about 80 modules) would otherwise be paid by every FileCheck run."""
    script = (
        "import sys\n"
        "from bitfold.registry import get_all_dialects, get_all_passes\n"
        "for factory in [*get_all_dialects().values(), *get_all_passes().values()]:\n"
        "    factory()\n"
        "print(sorted(m for m in sys.modules if m == 'onnx' or m.startswith('onnx.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout
