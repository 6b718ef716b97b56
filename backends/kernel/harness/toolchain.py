"""Build a harness program: compile the runtime and the generated `main`, link them with the kernel.

Recipe (every target; `$CC`, `-march`, `-mabi` from `targets.py`):

    $CC -march=... -mabi=... -O1 -ffreestanding -fno-pie -fno-stack-protector -c start.S syscalls.c main.c
    $CC -march=... -mabi=... -static -no-pie -nostdlib -nostartfiles -o program \
        start.o syscalls.o main.o KERNEL.S|.c|.o -L<picolibc for the ISA> -lc <libgcc.a for the ISA>

`section_sizes` reads an object's section sizes (`riscv64-unknown-elf-size -A`): code size.
"""

import contextlib
import functools
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from pathlib import Path

from bitfold.backends.kernel.harness.main_program import main_source, workspace_size_of
from bitfold.backends.kernel.harness.runtime import START_FILE, START_FILE_NAME, SYSCALLS, SYSCALLS_FILE_NAME
from bitfold.backends.kernel.harness.targets import BARE_METAL_GCC, TARGETS, Target

SIZE = "riscv64-unknown-elf-size"
COMPILE_FLAGS = ("-O1", "-ffreestanding", "-fno-pie", "-fno-stack-protector", "-Wall")
LINK_FLAGS = ("-static", "-no-pie", "-nostdlib", "-nostartfiles")
TOOL_TIMEOUT_SECONDS = 120
"""an external tool's (clang-22, mlir-opt-22, gcc, qemu) time limit on an idle machine; scaled by the
load per core (`tool_timeout`), replaced by `time_limit` (`--timeout` of the drivers)"""
_TIME_LIMIT: ContextVar[float | None] = ContextVar("time_limit", default=None)
_NO_LIMIT = 0
C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class HarnessError(Exception):
    """A harness program could not be built or run: a tool is missing, the assembler, compiler or
    linker rejected its input, or the program failed under qemu. The message names the step and
    carries the tool's own output."""


def target_named(name: str | Target) -> Target:
    if isinstance(name, Target):
        return name
    try:
        return TARGETS[name]
    except KeyError:
        raise HarnessError(f"unknown RISC-V target {name!r} (known: {', '.join(TARGETS)})") from None


def check_symbol(symbol: str) -> None:
    if not C_IDENTIFIER.fullmatch(symbol):
        raise HarnessError(f"kernel symbol {symbol!r} is not a C identifier")


def require_tool(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise HarnessError(f"{tool} is not installed (scripts/setup.sh installs the RISC-V toolchains, qemu-user, "
                           "and gcc, pkg-config and glib for the instruction counter)")
    return path


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Every external tool and qemu run inside the block gets `seconds` (0: no limit; None: the
    default of `tool_timeout`)."""
    token = _TIME_LIMIT.set(seconds)
    try:
        yield
    finally:
        _TIME_LIMIT.reset(token)


def tool_timeout() -> float | None:
    """The time limit of one external tool run, in seconds (None: no limit): the one `time_limit`
    set, else `TOOL_TIMEOUT_SECONDS` times the machine's load per core when that exceeds 1 (a
    busy machine runs each tool proportionally slower)."""
    limit = _TIME_LIMIT.get()
    if limit is not None:
        return None if limit == _NO_LIMIT else limit
    load_per_core = os.getloadavg()[0] / (os.cpu_count() or 1)
    return TOOL_TIMEOUT_SECONDS * max(1.0, load_per_core)


def timeout_message(what: str, timeout: float) -> str:
    return f"{what} did not finish within {timeout:.0f} s (--timeout SECONDS raises the limit, 0 removes it)"


def run_tool(step: str, command: Sequence[str | Path], timeout: float | None = None,
             **kwargs) -> subprocess.CompletedProcess:
    """Run a build tool (within `timeout` seconds, default `tool_timeout()`); raise HarnessError
    with its output when it fails."""
    command = [str(part) for part in command]
    require_tool(command[0])
    timeout = tool_timeout() if timeout is None else timeout
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired:
        raise HarnessError(f"{step}: {timeout_message(command[0], timeout)}") from None
    if done.returncode != 0:
        output = (done.stderr + done.stdout).strip()
        raise HarnessError(f"{step} failed ({' '.join(command)}):\n{output}")
    return done


@functools.cache
def libgcc(target: Target) -> str:
    """The bare-metal toolchain's multilib libgcc.a for the target's ISA and ABI."""
    done = run_tool("locating libgcc", [BARE_METAL_GCC, *target.library_flags, "-print-libgcc-file-name"])
    return done.stdout.strip()


def compile_object(source: Path, target: Target, workdir: Path, flags: Sequence[str] = COMPILE_FLAGS) -> Path:
    """Compile or assemble one .c / .S / .s file with the target's harness compiler."""
    obj = workdir / f"{source.name}.o"
    run_tool(f"compiling {source.name} for {target.name}", [target.compiler, *target.machine_flags, *flags,
                                                           "-c", source, "-o", obj])
    return obj


def build_program(kernel: Sequence[Path], target: str | Target, symbol: str,
                  inputs: Sequence[tuple[Sequence[int], object]], outputs: Sequence[tuple[Sequence[int], object]],
                  workdir: Path) -> Path:
    """Link a harness program in `workdir` that runs `symbol` (defined by the `kernel` files:
    .S/.s assembled here, .c compiled here at -O1, .o linked as they are) on buffers of these
    (shape, numpy dtype) inputs and outputs, and the workspace a bitfold-generated .S file asks
    for (its `# workspace: N bytes` line) as the last argument. Returns the path of the executable."""
    target = target_named(target)
    check_symbol(symbol)
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / START_FILE_NAME).write_text(START_FILE)
    (workdir / SYSCALLS_FILE_NAME).write_text(SYSCALLS)
    main = workdir / "main.c"
    main.write_text(main_source(symbol, inputs, outputs, workspace_size_of(kernel)))
    objects = [compile_object(workdir / name, target, workdir) for name in (START_FILE_NAME, SYSCALLS_FILE_NAME)]
    objects.append(compile_object(main, target, workdir))
    for path in map(Path, kernel):
        objects.append(path if path.suffix == ".o" else compile_object(path, target, workdir))
    program = workdir / f"{symbol}.{target.name}.elf"
    libraries = [f"-L{target.picolibc_dir}", "-lc", libgcc(target)] if Path(target.picolibc_dir).is_dir() \
        else [libgcc(target)]
    run_tool(f"linking {symbol} for {target.name}", [target.compiler, *target.machine_flags, *LINK_FLAGS,
                                                     "-o", program, *objects, *libraries])
    return program


def section_sizes(obj: Path) -> dict[str, int]:
    """Name -> size in bytes of every section of an object file or program (`size -A`)."""
    done = run_tool(f"reading the sections of {Path(obj).name}", [SIZE, "-A", obj])
    sizes = {}
    for line in done.stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0].startswith(".") and fields[1].isdigit():
            sizes[fields[0]] = int(fields[1])
    return sizes
