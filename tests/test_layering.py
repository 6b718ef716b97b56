"""Layers point down only (docs/design.md, "Layout and layers"), checked on the source: every import
of a `bitfold.*` module from one layer's files, at module level or inside a function, names its own
layer or one the table below lets it use. The driver (`bitfold`, `driver/`) may use every layer;
the interpreter (`bitfold.interpreters`) is a layer of its own below the passes and the backends."""

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KERNEL_ABI = "backends/kernel"
USES = {
    "dialects": set(),
    "interpreters": {"dialects"},
    "frontends": {"dialects"},
    "passes": {"dialects", "interpreters"},
    "backends": {"dialects", "interpreters", KERNEL_ABI},
}
"""The layers each layer may import (besides itself); a code generator (`backends/<name>`) may use
the kernel ABI both share, never another code generator."""


def layer(module: str) -> str | None:
    """The layer of a `bitfold.*` module (`backends/<name>` for a backend's); None outside bitfold."""
    parts = module.split(".")
    if parts[0] != "bitfold":
        return None
    if len(parts) > 1 and parts[1] in USES:
        return f"backends/{parts[2]}" if parts[1] == "backends" and len(parts) > 2 else parts[1]
    return "driver"


def allowed(source: str, target: str) -> bool:
    if source == target or source == "driver":
        return True
    return target in USES[source.split("/")[0]] or target.split("/")[0] == source == "backends"


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every absolute import in the file, function-level ones included."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def package_dirs(root: Path) -> dict[str, str]:
    """pyproject's `package-dir`: the folder of each layer's package."""
    return tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]


def violations(root: Path) -> list[str]:
    """`file:line source -> target (module)` for every import that goes up or sideways."""
    found = []
    for package, folder in package_dirs(root).items():
        for path in sorted((root / folder).rglob("*.py")):
            parts = path.relative_to(root / folder).with_suffix("").parts
            source = layer(".".join((package, *parts)))
            for line, module in imported_modules(path):
                target = layer(module)
                if target is not None and not allowed(source, target):
                    found.append(f"{path.relative_to(root)}:{line} {source} -> {target} ({module})")
    return found


def test_every_layer_folder_has_a_rule():
    assert {layer(package) for package in package_dirs(ROOT)} == {"driver", *USES}


@pytest.mark.parametrize(
    ("source", "module", "expected"),
    [
        ("backends/riscv", "bitfold.interpreter", False),  # the driver's module, beside bitfold.interpreters
        ("backends/riscv", "bitfold.interpreters.linalg", True),
        ("backends/riscv", "bitfold.backends.kernel.bufferize", True),
        ("backends/riscv", "bitfold.backends.llvm.emit", False),
        ("backends/kernel", "bitfold.passes.pipelines", False),
        ("interpreters", "bitfold.passes.expand_float_math", False),
        ("passes", "bitfold.interpreters", True),
        ("dialects", "bitfold.interpreters", False),
        ("frontends", "bitfold.registry", False),
    ],
)
def test_rules(source, module, expected):
    assert allowed(source, layer(module)) is expected


def test_layers_point_down_only():
    assert not violations(ROOT), "\n".join(violations(ROOT))
