"""Executed instructions of quantized kernels on RVV 1.0 (rv64imv, or rv32imv with `--target`):
bitfold's LLVM backend against clang-19 -O3 autovectorizing the plain C kernel.

The kernels, their C sources, their QDQ models and their numpy references are bench/riscv_kernels.py's:

    bitfold             the kernel's model compiled by `compile_model(..., target)` (bitfold's
                        outer-product schedule for the reductions, MLIR 22, LLVM 22 -O3)
    clang-19 -O3 C      the plain C kernel, clang-19 -O3 --target=riscv<XLEN>-unknown-elf -march=<target>
                        -mabi=<ilp32 or lp64> -ffreestanding (LLVM's loop vectorizer)
    ratio               clang's instructions / bitfold's

A cell is the instructions executed inside the kernel by one call (bitfold's instruction counter under
qemu-riscv<XLEN> -cpu rv<XLEN>,v=true,vlen=N,elen=64, the other extensions off); in parentheses, per MAC.
Every column's outputs are checked bit for bit against the case's numpy reference; the last column
says whether they are equal. The figures are printed, never asserted.

    python bench/rvv_kernels.py [--kernel NAME ...] [--vlen N ...] [--target rv32imv] [--workdir DIR]
"""

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import riscv_kernels as kernels

from bitfold.backends.kernel.harness import Counted, HarnessError
from bitfold.backends.llvm import VLENS, harness_target
from bitfold.compile import compile_model
from bitfold.load import import_onnx

TARGETS = ("rv64imv", "rv32imv")
HEADER = ["kernel", "target", "VLEN", "MACs", "bitfold", "clang-19 -O3 C", "ratio", "bit-exact"]


def clang_column(target: str) -> kernels.CColumn:
    triple = f"--target=riscv{target[2:4]}-unknown-elf"
    return kernels.CColumn(kernels.plain, lambda t: ["clang-19", "-O3", triple, *t.machine_flags, "-ffreestanding"], None)


def bitfold_count(case: kernels.KernelCase, target: str, vlen: int, workdir: Path) -> Counted:
    model, _, _ = kernels.bitfold_model(case)
    compiled = compile_model(import_onnx(model.SerializeToString(), None, case.name), target, case.name)
    stored = [case.plain.inputs[port.name] for port in compiled.inputs]
    return compiled.count_qemu(stored, workdir, vlen)


def cell(counted: Counted, case: kernels.KernelCase) -> str:
    return f"{counted.instructions:,} ({counted.instructions / case.macs:.3f})"


def row(case: kernels.KernelCase, target: str, vlen: int, workdir: Path, notes: list[str]) -> list[str]:
    expected = list(case.reference.values())
    cells = [case.name, target, str(vlen), f"{case.macs:,}"]
    try:
        ours = bitfold_count(case, target, vlen, workdir / "bitfold")
        (workdir / "clang").mkdir(parents=True, exist_ok=True)
        theirs = kernels.count_c(clang_column(target), case, harness_target(target, vlen), workdir / "clang")
    except HarnessError as error:
        notes.append(f"{case.name}, {target}, VLEN {vlen}: {error}")
        return [*cells, "error", "error", "-", "NO"]
    exact = all(np.array_equal(got, want) for counted in (ours, theirs) for got, want in zip(counted.outputs, expected))
    return [*cells, cell(ours, case), cell(theirs, case), f"{theirs.instructions / ours.instructions:.1f}x",
            "yes" if exact else "NO"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", action="append", choices=sorted(kernels.KERNELS), help="default: all")
    parser.add_argument("--vlen", action="append", type=int, choices=VLENS, help="default: 128")
    parser.add_argument("--target", action="append", choices=TARGETS, help="default: rv64imv")
    parser.add_argument("--workdir", type=Path, help="keep the programs here (default: a temporary directory)")
    arguments = parser.parse_args(argv)
    rows, notes = [], []
    with tempfile.TemporaryDirectory() as scratch:
        root = arguments.workdir or Path(scratch)
        for name in arguments.kernel or kernels.KERNELS:
            case = kernels.KERNELS[name]()
            for target in arguments.target or [TARGETS[0]]:
                for vlen in arguments.vlen or [128]:
                    rows.append(row(case, target, vlen, root / name / target / str(vlen), notes))
                    print(f"  measured {name} on {target} at VLEN {vlen}", file=sys.stderr)
    print("Instructions executed inside the kernel, one call, under qemu with RVV (in parentheses: per MAC).")
    print()
    kernels.print_table(HEADER, rows, left=1)
    for note in notes:
        print(f"note: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
