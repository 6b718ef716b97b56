"""The kernel ABI both code generators share (docs/riscv-abi.md): what a generated function takes
and returns, and the harness that calls it."""
