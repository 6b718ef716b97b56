"""Build, run and measure RISC-V kernels under qemu user mode.

`run_assembly` links a generated GNU-as kernel with a C `main` that reads the input buffers,
calls the kernel once (checking that it preserves the callee-saved registers and writes only its
outputs) and writes the output buffers; the program runs under qemu restricted to the target's ISA
(RV32IM, RV64IM, or either with C). `count_instructions` runs the same program under qemu with
bitfold's instruction counter plugin (`counter_plugin.c`, built on first use) and returns the
instructions executed inside the kernel. Every failure raises `HarnessError` with the failing
tool's message.
"""

from bitfold.backends.kernel.harness.counter_plugin import plugin_path
from bitfold.backends.kernel.harness.execution import (
    Counted,
    count_assembly,
    count_instructions,
    count_program,
    run_assembly,
    run_program,
)
from bitfold.backends.kernel.harness.targets import TARGETS, Target
from bitfold.backends.kernel.harness.toolchain import HarnessError, build_program, compile_object, section_sizes

__all__ = [
    "TARGETS",
    "Counted",
    "HarnessError",
    "Target",
    "build_program",
    "compile_object",
    "count_assembly",
    "count_instructions",
    "count_program",
    "plugin_path",
    "run_assembly",
    "run_program",
    "section_sizes",
]
