"""`bitfold-compile ... --run X.npy --count`: the run goes through bitfold's instruction counter and
prints the instructions one call executes and the bytes of `.text` and `.rodata`. Where the counter
cannot be built the test skips, except under CI, where it fails."""

import re
import subprocess
from pathlib import Path

from conftest import unavailable

from bitfold.backends.kernel.harness import HarnessError, plugin_path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def compile_command(tmp_path: Path, *options: str) -> list[str]:
    return ["bitfold-compile", str(EXAMPLES / "cnn_depthwise_qdq.onnx"), "--target", "rv32imc", "-o", str(tmp_path),
            *options]


def test_count_prints_instructions_and_sizes(tmp_path):
    try:
        plugin_path()
    except HarnessError as error:
        unavailable(f"the instruction counter cannot be built: {error}")
    done = subprocess.run(compile_command(tmp_path, "--run", str(EXAMPLES / "cnn_depthwise_input.npy"), "--count"),
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "qemu vs bitfold-run: bit-exact" in done.stdout
    instructions = re.search(r"^cnn_depthwise on rv32imc: ([\d,]+) instructions executed by one call$", done.stdout,
                             re.MULTILINE)
    sizes = re.search(r"^  \.text ([\d,]+) bytes, \.rodata ([\d,]+) bytes$", done.stdout, re.MULTILINE)
    assert instructions and sizes, done.stdout
    assert int(instructions.group(1).replace(",", "")) > 0
    assert int(sizes.group(1).replace(",", "")) > 0 and int(sizes.group(2).replace(",", "")) > 0


def test_count_needs_run(tmp_path):
    done = subprocess.run(compile_command(tmp_path, "--count"), capture_output=True, text=True)
    assert done.returncode == 2
    assert "--count needs --run" in done.stderr
