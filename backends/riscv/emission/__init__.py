"""Assembly out of the RISC-V code generator: the stack frame, the GNU as text and its constants,
the `bitfold-riscv-asm` target, and the per-layer labels the instruction counter reads."""
