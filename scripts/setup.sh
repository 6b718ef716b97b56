#!/usr/bin/env bash
# Set up bitfold on a fresh Debian machine: system tools (as root), then a virtual environment
# .venv with bitfold and its test extras installed from this checkout (`pip install .`, not
# editable, so the tests exercise the packaged layout). Idempotent; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(
  mlir-22-tools                  # mlir-opt-22: the upstream oracle for quant IR interchange
  gcc-riscv64-linux-gnu          # RV64 glibc toolchain: links the generated assembly with a C harness
  gcc-riscv64-unknown-elf        # bare-metal RV32IM toolchain ...
  picolibc-riscv64-unknown-elf   # ... and its C library (rv32im/ilp32 multilib)
  qemu-user                      # qemu-riscv32 / qemu-riscv64: runs the harnesses
  clang-19 llvm-19               # llvm-mc-19 assembles the output; clang-19 -O3 is a benchmark baseline
)
missing=()
for package in "${apt_packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages ${missing[*]} (run as root, or apt-get install them)" >&2
  fi
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q ".[test]"
