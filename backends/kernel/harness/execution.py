"""Run a harness program under qemu user mode, restricted to the target ISA, or count its instructions.

    qemu-riscv64 -cpu rv64,c=false,a=false,f=false,d=false,... program INPUT_FILE > OUTPUT_BYTES
    qemu-riscv64 -cpu ... -plugin COUNTER.so,sym=SYMBOL -d plugin -D LOG program INPUT_FILE OUTPUT_FILE

COUNTER.so is bitfold's instruction counter (`counter_plugin.c`, built on first use by
`counter_plugin.py`); it writes `counted N` to LOG, the instructions executed inside SYMBOL.
"""

import re
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from bitfold.backends.kernel.harness.counter_plugin import plugin_path
from bitfold.backends.kernel.harness.main_program import element_count
from bitfold.backends.kernel.harness.targets import Target
from bitfold.backends.kernel.harness.toolchain import (
    HarnessError,
    build_program,
    require_tool,
    run_tool,
    target_named,
    timeout_message,
    tool_timeout,
)

READELF = "riscv64-unknown-elf-readelf"
INPUT_FILE_NAME = "inputs.bin"
OUTPUT_FILE_NAME = "outputs.bin"
COUNTER_LOG_FILE_NAME = "counter.log"
SIGNAL_HINTS = {
    signal.SIGILL: "an instruction outside the target ISA, or a jump into data",
    signal.SIGSEGV: "a load or store outside the program's memory",
    signal.SIGBUS: "a misaligned or invalid memory access",
}


class Counted(NamedTuple):
    instructions: int
    """Instructions executed inside the counted symbols."""
    outputs: list[np.ndarray]
    by_address: dict[int, int] | None = None
    """With `profile`: how often each instruction address inside the counted symbols executed."""


def buffer_layouts(arrays: Sequence[np.ndarray]) -> list[tuple[tuple[int, ...], np.dtype]]:
    return [(tuple(array.shape), array.dtype) for array in arrays]


def input_bytes(inputs: Sequence[np.ndarray]) -> bytes:
    """The inputs, each as its contiguous little-endian row-major bytes, one after the other."""
    return b"".join(np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes() for array in inputs)


def split_outputs(data: bytes, outputs: Sequence[tuple[Sequence[int], np.dtype]]) -> list[np.ndarray]:
    """Cut the program's output bytes into arrays of the expected shapes and dtypes."""
    sizes = [element_count(shape) * np.dtype(dtype).itemsize for shape, dtype in outputs]
    if len(data) != sum(sizes):
        raise HarnessError(f"the program wrote {len(data)} bytes of output, expected {sum(sizes)}")
    arrays, offset = [], 0
    for (shape, dtype), size in zip(outputs, sizes):
        little_endian = np.dtype(dtype).newbyteorder("<")
        array = np.frombuffer(data, dtype=little_endian, count=size // little_endian.itemsize, offset=offset)
        arrays.append(array.astype(np.dtype(dtype)).reshape(tuple(shape)))
        offset += size
    return arrays


def failure_message(program: Path, target: Target, returncode: int, stderr: str) -> str:
    if returncode < 0:
        number = -returncode
        name = signal.Signals(number).name if number in signal.Signals._value2member_map_ else f"signal {number}"
        hint = SIGNAL_HINTS.get(number)
        cause = f"was killed by {name}" + (f" ({hint})" if hint else "")
    else:
        cause = f"exited with status {returncode}"
    return f"{program.name} under {target.qemu} -cpu {target.cpu} {cause}" + (f":\n{stderr.strip()}" if stderr.strip()
                                                                               else "")


def run_program(program: Path, target: str | Target, inputs: Sequence[np.ndarray],
                outputs: Sequence[tuple[Sequence[int], np.dtype]]) -> list[np.ndarray]:
    """Run a harness program once under qemu on `inputs` and return its outputs."""
    target = target_named(target)
    program = Path(program)
    input_file = program.parent / INPUT_FILE_NAME
    input_file.write_bytes(input_bytes(inputs))
    command = [require_tool(target.qemu), "-cpu", target.cpu, str(program), str(input_file)]
    timeout = tool_timeout()
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise HarnessError(timeout_message(f"{program.name} under {target.qemu}", timeout)) from None
    if done.returncode != 0:
        raise HarnessError(failure_message(program, target, done.returncode, done.stderr.decode(errors="replace")))
    return split_outputs(done.stdout, outputs)


def _symbols(program: Path) -> list[list[str]]:
    """readelf's symbol table rows (Num, Value, Size, Type, Bind, Vis, Ndx, Name) of the program."""
    done = run_tool(f"reading the symbols of {program.name}", [READELF, "-sW", program])
    return [fields for fields in map(str.split, done.stdout.splitlines()) if len(fields) == 8]


def function_sizes(program: Path) -> dict[str, int]:
    """Name -> size in bytes of every function symbol (STT_FUNC) of the program."""
    return {fields[7]: int(fields[2], 0) for fields in _symbols(program) if fields[3] == "FUNC"}


def label_addresses(program: Path, prefix: str) -> dict[str, int]:
    """Name -> address of every symbol of the program whose name starts with `prefix` (the
    assembly's plain labels are local symbols)."""
    return {fields[7]: int(fields[1], 16) for fields in _symbols(program) if fields[7].startswith(prefix)}


def check_countable(program: Path, symbols: Sequence[str]) -> None:
    """The counter (qemu's symbol lookup) sees an instruction as inside a symbol only if the symbol
    is a function with a size: the assembly needs `.type NAME, @function` and `.size NAME, . - NAME`."""
    sizes = function_sizes(program)
    for symbol in symbols:
        if sizes.get(symbol, 0) == 0:
            raise HarnessError(f"{program.name}: {symbol} is not a function symbol with a size, so the counter cannot "
                               f"count it (the assembly needs `.type {symbol}, @function` and "
                               f"`.size {symbol}, . - {symbol}`)")


def count_program(program: Path, target: str | Target, symbols: Sequence[str], inputs: Sequence[np.ndarray],
                  outputs: Sequence[tuple[Sequence[int], np.dtype]], profile: bool = False) -> Counted:
    """Run a harness program once under qemu with the instruction counter; count the instructions
    executed inside `symbols` (exact: the same program and inputs give the same count), and with
    `profile` each of their addresses' executions."""
    target = target_named(target)
    program = Path(program)
    input_file = program.parent / INPUT_FILE_NAME
    output_file = program.parent / OUTPUT_FILE_NAME
    log_file = program.parent / COUNTER_LOG_FILE_NAME
    input_file.write_bytes(input_bytes(inputs))
    output_file.unlink(missing_ok=True)
    log_file.unlink(missing_ok=True)
    check_countable(program, symbols)
    options = [*(f"sym={symbol}" for symbol in symbols), *(["profile=on"] if profile else [])]
    plugin = ",".join([str(plugin_path()), *options])
    command = [require_tool(target.qemu), "-cpu", target.cpu, "-plugin", plugin, "-d", "plugin", "-D", str(log_file),
               str(program), str(input_file), str(output_file)]
    timeout = tool_timeout()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise HarnessError(timeout_message(f"counting {program.name}", timeout)) from None
    if done.returncode != 0:
        raise HarnessError("counting: " + failure_message(program, target, done.returncode, done.stderr + done.stdout))
    log = log_file.read_text() if log_file.is_file() else ""
    found = re.search(r"^counted (\d+)$", log, re.MULTILINE)
    if found is None:
        raise HarnessError(f"the instruction counter wrote no count:\n{(log + done.stderr).strip()}")
    by_address = {int(a, 16): int(n) for a, n in re.findall(r"^at (0x[0-9a-f]+) (\d+)$", log, re.MULTILINE)}
    return Counted(int(found.group(1)), split_outputs(output_file.read_bytes(), outputs),
                   by_address if profile else None)


def write_kernel(assembly: str, symbol: str, workdir: Path) -> Path:
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"kernel_{symbol}.S"
    path.write_text(assembly)
    return path


def run_assembly(assembly: str, target: str, symbol: str, inputs: Sequence[np.ndarray],
                 outputs: Sequence[tuple[Sequence[int], np.dtype]], workdir: Path) -> list[np.ndarray]:
    """Assemble `assembly` (a GNU-as file defining the leaf function `symbol(in0, ..., out0, ...)`),
    link it into a harness program for `target` ("rv32im" or "rv64im") in `workdir`, run it once
    under qemu restricted to that ISA on `inputs`, and return the outputs of the given
    (shape, numpy dtype). Raises HarnessError when any step fails."""
    inputs = [np.asarray(array) for array in inputs]
    kernel = write_kernel(assembly, symbol, workdir)
    program = build_program([kernel], target, symbol, buffer_layouts(inputs), outputs, workdir)
    return run_program(program, target, inputs, outputs)


def count_assembly(assembly: str, target: str, symbol: str, inputs: Sequence[np.ndarray],
                   outputs: Sequence[tuple[Sequence[int], np.dtype]], workdir: Path) -> Counted:
    """Like `run_assembly`, but run under the instruction counter: the outputs, and the number of
    instructions executed inside `symbol` (one call of the kernel on `inputs`)."""
    inputs = [np.asarray(array) for array in inputs]
    kernel = write_kernel(assembly, symbol, workdir)
    program = build_program([kernel], target, symbol, buffer_layouts(inputs), outputs, workdir)
    return count_program(program, target, [symbol], inputs, outputs)


def count_instructions(assembly: str, target: str, symbol: str, inputs: Sequence[np.ndarray],
                       outputs: Sequence[tuple[Sequence[int], np.dtype]], workdir: Path) -> int:
    """The instructions executed inside `symbol` by one call of the kernel on `inputs` (`count_assembly`)."""
    return count_assembly(assembly, target, symbol, inputs, outputs, workdir).instructions
