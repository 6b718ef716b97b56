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
  llvm-22 clang-22               # the LLVM backend: mlir-translate-22's LLVM IR -> RISC-V (RVV) and host objects
  gcc pkg-config libglib2.0-dev  # build the instruction counter, a qemu plugin (backends/kernel/harness/)
  g++                            # tests/backends/kernel/test_header.py: the generated header compiles as C++
)
missing=()
for package in "${apt_packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done

# The counter's qemu-plugin.h comes from Debian's qemu source package (`apt-get source`, on first
# use): it needs deb-src entries beside the deb ones.
deb_src_file=/etc/apt/sources.list.d/bitfold-deb-src.sources
need_update=$([ ${#missing[@]} -gt 0 ] && echo yes || echo no)
has_deb_src() {
  grep -qsE '^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list ||
    grep -qsE '^Types:.*deb-src' /etc/apt/sources.list.d/*.sources
}
if ! has_deb_src; then
  if [ "$(id -u)" -eq 0 ]; then
    for sources in /etc/apt/sources.list.d/*.sources; do
      [ -f "$sources" ] && [ "$sources" != "$deb_src_file" ] && grep -qE '^URIs:.*debian' "$sources" &&
        { sed 's/^Types: deb$/Types: deb-src/' "$sources"; echo; } >> "$deb_src_file"
    done
    if [ -f /etc/apt/sources.list ] && grep -qE '^deb ' /etc/apt/sources.list; then
      grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' > /etc/apt/sources.list.d/bitfold-deb-src.list
    fi
    need_update=yes
  else
    echo "setup: no deb-src entries in the apt sources: the instruction counter cannot fetch qemu-plugin.h" \
         "(run as root to add them)" >&2
  fi
fi
if [ "$need_update" = yes ] && [ "$(id -u)" -eq 0 ]; then
  apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages ${missing[*]} (run as root, or apt-get install them)" >&2
  fi
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q ".[test]"
# Build the instruction counter now (it is built on first use otherwise); the tests that count
# instructions fail if it cannot be built, so a failure here is only reported.
.venv/bin/python -m bitfold.backends.kernel.harness >/dev/null ||
  echo "setup: the instruction counter could not be built (see above)" >&2
