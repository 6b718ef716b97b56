"""bitfold's instruction counter (backends/kernel/harness/counter_plugin.c, a qemu plugin built on
first use): exact and repeatable counts of the instructions executed inside named functions. Where
the counter cannot be built these tests skip, except under CI (which installs what it needs),
where they fail."""

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from conftest import require_tools, unavailable
from test_harness import ADD_I8, leaf

from bitfold.backends.kernel.harness import (
    TARGETS,
    HarnessError,
    build_program,
    count_assembly,
    count_instructions,
    count_program,
    counter_plugin,
    plugin_path,
)

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def counter() -> Path:
    try:
        return plugin_path()
    except HarnessError as error:
        unavailable(f"the instruction counter cannot be built: {error}")


@pytest.fixture(params=sorted(TARGETS))
def target(request, counter):
    spec = TARGETS[request.param]
    require_tools(spec.compiler, "riscv64-unknown-elf-gcc", spec.qemu)
    return request.param


ADD_I8_INSTRUCTIONS = 1 + 64 * 9 + 1  # test_harness's ADD_I8: li, 64 iterations of its 9-instruction loop, ret

# void twice(const int32_t *x, int32_t *y): y[0] = 2 * x[0], through a helper function `double_a0`
# (3 instructions, called once); `twice` itself executes 7.
TWICE = leaf("double_a0", "    add a0, a0, a0\n    nop") + leaf("twice", """\
    mv t1, ra
    mv t2, a1
    lw a0, 0(a0)
    jal double_a0
    sw a0, 0(t2)
    mv ra, t1""")
TWICE_INSTRUCTIONS = 7
DOUBLE_A0_INSTRUCTIONS = 3


def test_count_is_exact_on_every_target(target, tmp_path):
    a = np.arange(64, dtype=np.int8)
    counted = count_assembly(ADD_I8, target, "add_i8", [a, a], [((64,), np.int8)], tmp_path)
    assert counted.instructions == ADD_I8_INSTRUCTIONS
    np.testing.assert_array_equal(counted.outputs[0], (2 * a.astype(np.int16)).astype(np.int8))


def test_count_is_repeatable(counter, tmp_path):
    target = "rv32im"
    a = np.zeros(64, np.int8)
    counts = {count_instructions(ADD_I8, target, "add_i8", [a, a], [((64,), np.int8)], tmp_path / str(i))
              for i in range(2)}
    assert counts == {ADD_I8_INSTRUCTIONS}


@pytest.mark.parametrize(("symbols", "expected"), [
    (["twice"], TWICE_INSTRUCTIONS),
    (["double_a0"], DOUBLE_A0_INSTRUCTIONS),
    (["twice", "double_a0"], TWICE_INSTRUCTIONS + DOUBLE_A0_INSTRUCTIONS),
])
def test_only_the_named_functions_count(counter, tmp_path, symbols, expected):
    kernel = tmp_path / "twice.S"
    kernel.write_text(TWICE)
    x = np.array([21], np.int32)
    layout = [((1,), np.dtype(np.int32))]
    program = build_program([kernel], "rv64im", "twice", layout, layout, tmp_path)
    counted = count_program(program, "rv64im", symbols, [x], layout)
    assert counted.instructions == expected
    assert counted.outputs[0].tolist() == [42]


def test_a_failing_build_names_the_step(counter, tmp_path, monkeypatch):
    header = counter_plugin.qemu_plugin_header(counter_plugin.cache_directory())
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    copy = counter_plugin.cache_directory() / header.parent.name / header.name
    copy.parent.mkdir(parents=True)
    shutil.copy(header, copy)
    broken = tmp_path / "counter_plugin.c"
    broken.write_text("#include <qemu-plugin.h>\nint qemu_plugin_version = QEMU_PLUGIN_VERSION\n")
    monkeypatch.setattr(counter_plugin, "SOURCE", broken)
    with pytest.raises(HarnessError, match=r"(?s)compiling the instruction counter failed.*counter_plugin\.c"):
        plugin_path()


def test_the_source_is_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert counter_plugin.SOURCE.name in config["package-data"]["bitfold.backends.kernel.harness"]
    assert counter_plugin.SOURCE.is_file()


def test_building_from_the_command_line_warns_nothing(counter):
    """`python -m bitfold.backends.kernel.harness` (what scripts/setup.sh runs) prints the plugin's
    path and nothing on stderr: runpy warned when the `-m` module was one the package's `__init__`
    had already imported (`counter_plugin`)."""
    command = [sys.executable, "-W", "error", "-m", "bitfold.backends.kernel.harness"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert (done.returncode, done.stderr) == (0, "")
    assert Path(done.stdout.strip()) == counter
    assert "-m bitfold.backends.kernel.harness " in (ROOT / "scripts" / "setup.sh").read_text()
