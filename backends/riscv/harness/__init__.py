"""Build, run and measure RISC-V kernels under qemu user mode.

`run_assembly` links a generated GNU-as kernel with a C `main` that reads the input buffers,
calls the kernel once (checking that it preserves the callee-saved registers and writes only its
outputs) and writes the output buffers; the program runs under qemu restricted to RV32IM or RV64IM.
`count_instructions` runs the same program under rvcount and returns the instructions executed
inside the kernel. Every failure raises `HarnessError` with the failing tool's message.
"""

from bitfold.backends.riscv.harness.execution import (
    Counted,
    count_instructions,
    count_program,
    run_assembly,
    run_program,
    rvcount_path,
)
from bitfold.backends.riscv.harness.targets import TARGETS, Target
from bitfold.backends.riscv.harness.toolchain import HarnessError, build_program, compile_object

__all__ = [
    "TARGETS",
    "Counted",
    "HarnessError",
    "Target",
    "build_program",
    "compile_object",
    "count_instructions",
    "count_program",
    "run_assembly",
    "run_program",
    "rvcount_path",
]
