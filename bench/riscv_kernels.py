"""Executed instructions of quantized kernels on RV32IM and RV64IM: plain C baselines (and later bitfold).

Three kernels, as a firmware engineer writes them in C (sources in bench/kernels/):

    matmul_s8     int8 64x64 @ 64x64 with zero points on both operands, int32 accumulation and result
    conv3x3_s8    int8 3x3 convolution 16 -> 32 channels on 16x16, stride 1, padding 1, int32 bias,
                  per-channel fixed-point requantization (multiplier + shift) to int8
    conv3x3_s4w   the same layer with signed 4-bit weights packed two per byte, unpacked in the loop

Each implementation (a column) builds the kernel for each target, runs it once on the case's inputs
under qemu user mode restricted to the ISA, checks its outputs against the numpy reference, and
reports the instructions executed inside the kernel's object (its functions and the library
functions it calls) as counted by rvcount. The figures are printed, never asserted.

    python bench/riscv_kernels.py [--kernel NAME ...] [--target rv32im|rv64im ...] [--workdir DIR]

Adding a column: put a callable `(case: KernelCase, target: Target, workdir: Path) -> Counted` into
IMPLEMENTATIONS under its column name. bitfold's generated kernels are meant to go there as
"bitfold" (build an ONNX model from the case's arrays and `quantization`, compile it with the RISC-V
backend, and measure it with `bitfold.backends.riscv.harness.count_program`); that column is
absent until the code generator compiles these kernels.
"""

import argparse
import math
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bitfold.backends.riscv.harness import TARGETS, Counted, HarnessError, Target, build_program, count_program

KERNEL_SOURCES = Path(__file__).resolve().parent / "kernels"
SEED = 0
NM = "riscv64-unknown-elf-nm"

MATMUL_SIZE = 64  # M = K = N
CONV_IN_CHANNELS = 16
CONV_OUT_CHANNELS = 32
CONV_SIZE = 16  # H = W
KERNEL_SIZE = 3
INT8_RANGE = (-128, 127)
INT4_RANGE = (-8, 7)
Q31 = 31  # requantization multipliers are Q31 mantissas in [2^30, 2^31)


@dataclass(frozen=True)
class KernelCase:
    """One benchmark kernel: its C baseline, inputs, and the reference outputs every column must match."""

    name: str
    symbol: str
    """The C baseline's function: void symbol(const in0 *, ..., out0 *, ...)."""
    source: str
    """The C baseline's file in bench/kernels/."""
    inputs: dict[str, np.ndarray]
    """Arguments in call order (activations, then weights and per-channel parameters)."""
    reference: dict[str, np.ndarray]
    """The expected outputs, in call order after the inputs."""
    defines: dict[str, int]
    """Compile-time constants of the C baseline (sizes, zero points)."""
    macs: int
    """Multiply-accumulates of one call, for instructions per MAC."""
    quantization: dict[str, object] = field(default_factory=dict)
    """The real-valued parameters the integers stand for (scales, zero points), for a model of the kernel."""

    @property
    def outputs(self) -> list[tuple[tuple[int, ...], np.dtype]]:
        return [(array.shape, array.dtype) for array in self.reference.values()]


def matmul_s8() -> KernelCase:
    rng = np.random.default_rng(SEED)
    size = MATMUL_SIZE
    a = rng.integers(*INT8_RANGE, size=(size, size), endpoint=True, dtype=np.int8)
    b = rng.integers(*INT8_RANGE, size=(size, size), endpoint=True, dtype=np.int8)
    a_zero_point, b_zero_point = -7, 5
    c = (a.astype(np.int32) - a_zero_point) @ (b.astype(np.int32) - b_zero_point)
    return KernelCase(
        name="matmul_s8", symbol="matmul_s8", source="matmul_s8.c",
        inputs={"a": a, "b": b}, reference={"c": c.astype(np.int32)},
        defines={"M": size, "K": size, "N": size, "A_ZERO_POINT": a_zero_point, "B_ZERO_POINT": b_zero_point},
        macs=size**3,
        quantization={"a_zero_point": a_zero_point, "b_zero_point": b_zero_point},
    )


def fixed_point(real_multiplier: float) -> tuple[int, int]:
    """(multiplier, shift) with multiplier * 2^-shift ~= real_multiplier, multiplier in [2^30, 2^31)."""
    mantissa, exponent = math.frexp(real_multiplier)  # real = mantissa * 2^exponent, mantissa in [0.5, 1)
    multiplier = round(mantissa * 2**Q31)
    if multiplier == 2**Q31:
        multiplier, exponent = multiplier // 2, exponent + 1
    shift = Q31 - exponent
    if not 32 <= shift <= 62:
        raise ValueError(f"requantization multiplier {real_multiplier} needs shift {shift}, outside [32, 62]")
    return multiplier, shift


def conv_accumulators(x: np.ndarray, x_zero_point: int, w: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """int64 accumulators of a 3x3, stride 1, padding 1 convolution of (x - x_zero_point) by w, plus bias."""
    shifted = np.pad(x[0].astype(np.int64) - x_zero_point, ((0, 0), (1, 1), (1, 1)))
    windows = np.lib.stride_tricks.sliding_window_view(shifted, (KERNEL_SIZE, KERNEL_SIZE), axis=(1, 2))
    return np.einsum("cyxkl,ockl->oyx", windows, w.astype(np.int64)) + bias[:, None, None]


def requantize(acc: np.ndarray, multiplier: np.ndarray, shift: np.ndarray, zero_point: int) -> np.ndarray:
    """bench/kernels/requantize.h in numpy (per output channel, axis 0 of acc)."""
    multiplier = multiplier.astype(np.int64)[:, None, None]
    shift = shift.astype(np.int64)[:, None, None]
    y = ((acc * multiplier + (np.int64(1) << (shift - 1))) >> shift) + zero_point
    return np.clip(y, *INT8_RANGE).astype(np.int8)


def conv_case(name: str, weight_range: tuple[int, int], weight_scale_range: tuple[float, float]) -> KernelCase:
    rng = np.random.default_rng(SEED)
    shape_x = (1, CONV_IN_CHANNELS, CONV_SIZE, CONV_SIZE)
    x = rng.integers(*INT8_RANGE, size=shape_x, endpoint=True, dtype=np.int8)
    w = rng.integers(*weight_range, size=(CONV_OUT_CHANNELS, CONV_IN_CHANNELS, KERNEL_SIZE, KERNEL_SIZE),
                     endpoint=True, dtype=np.int8)
    x_scale, x_zero_point = 0.02, -3
    w_scales = rng.uniform(*weight_scale_range, size=CONV_OUT_CHANNELS)
    bias = rng.integers(-2000, 2000, size=CONV_OUT_CHANNELS, dtype=np.int32)
    acc = conv_accumulators(x, x_zero_point, w, bias)
    real = acc * (x_scale * w_scales)[:, None, None]
    # The output scale and zero point that map the layer's real outputs onto int8.
    y_scale = float(real.max() - real.min()) / 255
    y_zero_point = int(round(INT8_RANGE[0] - real.min() / y_scale))
    multipliers, shifts = zip(*(fixed_point(x_scale * s / y_scale) for s in w_scales))
    multiplier = np.array(multipliers, np.int32)
    shift = np.array(shifts, np.int32)
    y = requantize(acc, multiplier, shift, y_zero_point)
    if weight_range == INT4_RANGE:
        flat = w.reshape(-1).astype(np.uint8) & 0x0F
        weights = {"w_packed": (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8)}
    else:
        weights = {"w": w}
    return KernelCase(
        name=name, symbol=name, source=f"{name}.c",
        inputs={"x": x, **weights, "bias": bias, "multiplier": multiplier, "shift": shift},
        reference={"y": y.reshape(1, CONV_OUT_CHANNELS, CONV_SIZE, CONV_SIZE)},
        defines={"C_IN": CONV_IN_CHANNELS, "C_OUT": CONV_OUT_CHANNELS, "H": CONV_SIZE, "W": CONV_SIZE,
                 "X_ZERO_POINT": x_zero_point, "Y_ZERO_POINT": y_zero_point},
        macs=CONV_OUT_CHANNELS * CONV_IN_CHANNELS * CONV_SIZE**2 * KERNEL_SIZE**2,
        quantization={"x_scale": x_scale, "x_zero_point": x_zero_point, "w": w, "w_scales": w_scales,
                      "w_bits": 4 if weight_range == INT4_RANGE else 8, "y_scale": y_scale,
                      "y_zero_point": y_zero_point},
    )


def conv3x3_s8() -> KernelCase:
    return conv_case("conv3x3_s8", INT8_RANGE, (0.002, 0.01))


def conv3x3_s4w() -> KernelCase:
    return conv_case("conv3x3_s4w", INT4_RANGE, (0.03, 0.15))


KERNELS: dict[str, Callable[[], KernelCase]] = {
    "matmul_s8": matmul_s8,
    "conv3x3_s8": conv3x3_s8,
    "conv3x3_s4w": conv3x3_s4w,
}

Implementation = Callable[[KernelCase, Target, Path], Counted]


def gcc_command(target: Target) -> list[str]:
    return ["riscv64-linux-gnu-gcc", "-O2", *target.machine_flags, "-ffreestanding"]


def clang_command(target: Target) -> list[str]:
    return ["clang-19", "-O3", f"--target={target.clang_target}", *target.machine_flags, "-ffreestanding"]


def kernel_functions(obj: Path) -> list[str]:
    """The functions an object defines (the kernel, any helper the compiler kept out of line) and
    calls without defining (memset, libgcc helpers): the instructions counted are theirs."""
    done = subprocess.run([NM, str(obj)], capture_output=True, text=True, check=True)
    names = []
    for line in done.stdout.splitlines():
        *_, kind, name = line.split()
        if kind in {"T", "t", "U"} and name not in names:
            names.append(name)
    return names


def c_baseline(command: Callable[[Target], list[str]]) -> Implementation:
    """A column that compiles the case's C source with `command(target)`."""

    def measure(case: KernelCase, target: Target, workdir: Path) -> Counted:
        obj = workdir / f"{case.symbol}.o"
        defines = [f"-D{name}={value}" for name, value in case.defines.items()]
        compile_command = [*command(target), *defines, f"-I{KERNEL_SOURCES}", "-c",
                           str(KERNEL_SOURCES / case.source), "-o", str(obj)]
        done = subprocess.run(compile_command, capture_output=True, text=True)
        if done.returncode != 0:
            raise HarnessError(f"{' '.join(compile_command)}:\n{done.stderr.strip()}")
        inputs = list(case.inputs.values())
        layouts = [(array.shape, array.dtype) for array in inputs]
        program = build_program([obj], target, case.symbol, layouts, case.outputs, workdir)
        return count_program(program, target, kernel_functions(obj), inputs, case.outputs)

    return measure


C_COMPILERS: dict[str, Callable[[Target], list[str]]] = {"gcc-12 -O2": gcc_command, "clang-19 -O3": clang_command}

# The columns of the table. "bitfold" joins them once the RISC-V backend compiles these cases (see the docstring).
IMPLEMENTATIONS: dict[str, Implementation] = {name: c_baseline(command) for name, command in C_COMPILERS.items()}


def measure_cell(implementation: Implementation, case: KernelCase, target: Target, workdir: Path,
                 notes: list[str], column: str) -> str:
    try:
        counted = implementation(case, target, workdir)
    except HarnessError as error:
        notes.append(f"{column}, {case.name}, {target.name}: {error}")
        return "error"
    for (name, expected), actual in zip(case.reference.items(), counted.outputs):
        if not np.array_equal(expected, actual):
            wrong = int(np.count_nonzero(expected != actual))
            notes.append(f"{column}, {case.name}, {target.name}: {wrong} of {expected.size} elements of {name} differ")
            return "wrong"
    return f"{counted.instructions:,} ({counted.instructions / case.macs:.2f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", action="append", choices=sorted(KERNELS), help="default: all")
    parser.add_argument("--target", action="append", choices=sorted(TARGETS), help="default: all")
    parser.add_argument("--workdir", type=Path, help="keep the programs here (default: a temporary directory)")
    arguments = parser.parse_args(argv)
    kernels = arguments.kernel or list(KERNELS)
    targets = [TARGETS[name] for name in arguments.target or sorted(TARGETS)]
    columns = list(IMPLEMENTATIONS)
    notes: list[str] = []
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        root = arguments.workdir or Path(scratch)
        for kernel in kernels:
            case = KERNELS[kernel]()
            for target in targets:
                cells = []
                for column in columns:
                    workdir = root / kernel / target.name / column.replace(" ", "_")
                    workdir.mkdir(parents=True, exist_ok=True)
                    cells.append(measure_cell(IMPLEMENTATIONS[column], case, target, workdir, notes, column))
                rows.append([kernel, target.name, f"{case.macs:,}", *cells])
                print(f"  measured {kernel} on {target.name}", file=sys.stderr)
    header = ["kernel", "target", "MACs", *columns]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    print("Instructions executed in the kernel, one call (rvcount under qemu user mode, CPU restricted to the ISA);")
    print("in parentheses: instructions per multiply-accumulate.")
    print()
    for row in [header, ["-" * width for width in widths], *rows]:
        print("  ".join(cell.ljust(width) if i < 2 else cell.rjust(width) for i, (cell, width) in
                        enumerate(zip(row, widths))).rstrip())
    print()
    for target in targets:
        for column in columns:
            if column in C_COMPILERS:
                print(f"{column} on {target.name}: {' '.join(C_COMPILERS[column](target))} -D... -c KERNEL.c")
        print(f"qemu on {target.name}: {target.qemu} -cpu {target.cpu}")
    for note in notes:
        print(f"note: {note}")
    return 1 if notes else 0


if __name__ == "__main__":
    sys.exit(main())
