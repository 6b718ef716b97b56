"""Executed instructions of quantized kernels and models on RV32IM and RV64IM: bitfold against plain C.

Three kernels, as a firmware engineer writes them in C (sources in bench/kernels/):

    matmul_s8     int8 64x64 @ 64x64 with zero points on both operands, int32 accumulation and result
    conv3x3_s8    int8 3x3 convolution 16 -> 32 channels on 16x16, stride 1, padding 1, int32 bias,
                  per-channel fixed-point requantization (multiplier + shift) to int8
    conv3x3_s4w   the same layer with signed 4-bit weights packed two per byte, unpacked in the loop

Each implementation (a column) builds the kernel for each target, runs it once on the case's inputs
under qemu user mode restricted to the ISA, checks its outputs, and reports the instructions
executed inside the kernel's object (its functions and the library functions it calls) as counted
by rvcount. The figures are printed, never asserted.

The C columns (gcc -O2, clang-19 -O3) are checked against the case's numpy reference. The bitfold
column builds an ONNX QDQ model of the same layer from the case's integers and `quantization`
(`bitfold_model`), compiles it with `bitfold.riscv.compile_model`, calls the generated function on
the case's integer activations, and counts the instructions inside it. What it computes, beside
the C kernel:

    matmul_s8     a (graph input, zero point -7) times B as a constant int8 initializer (zero point
                  5) in .rodata, where the C kernel takes b as an argument (the same loads either
                  way); the MatMul output is quantized to int32 at scale s_a * s_b (both powers of
                  two) with zero point 0, so the result is exactly the C kernel's int32 c.
                  QuantizeLinear to int32 is outside ONNX's type constraints; bitfold accepts it.
    conv3x3_s8    QuantizeLinear/DequantizeLinear of x, DequantizeLinear of the int8 weights
    conv3x3_s4w   (per output channel scales; int4 for s4w, opset 21, packed in .rodata) and of the
                  int32 bias at scale x_scale * w_scale, Conv, QuantizeLinear to int8 at the case's
                  output scale and zero point (scales as float32, bias scale x_scale * w_scale in
                  float32, as onnxruntime's quantizer writes them). bitfold requantizes with its own
                  arithmetic (rounding half to even); the C kernel uses a Q31 multiplier and shift
                  computed in double, rounding half up, so an output near a tie could differ by one.

In both cases the weights are constants of the compiled function: bitfold may fold them ahead of
time (e.g. the zero-point correction sum_k B[k][j] * a_zero_point of the matmul becomes a constant
table), which the C kernels, taking weights as arguments, cannot. bitfold's function is fed the
case's integer activations (checked to be what `compiled.quantize` gives for their dequantized
values).

bitfold's cells are therefore checked against bitfold's own reference (`run_reference`: its
interpreter on the integer IR the assembly was made from, bit for bit); the remarks under the
table say whether they also equal the C kernel's reference, or how many elements differ. The ratio
columns divide bitfold's count by each C compiler's (below 1: bitfold executes fewer instructions).

A second table counts the instructions of one inference of test models (tests/models) end to end,
compiled by bitfold: by default the first quantized model of each network and form of the
catalogue, `--all-models` for every quantized model, `--model NAME` for chosen ones.

    python bench/riscv_kernels.py [--kernel NAME ...] [--target rv32im|rv64im ...] [--workdir DIR]
                                  [--model NAME ... | --all-models | --no-models] [--no-kernels]

Adding a column: put a callable `(case: KernelCase, target: Target, workdir: Path) -> Counted` into
IMPLEMENTATIONS under its column name (or return a `Checked` to be checked against its own
reference, as bitfold's column does).
"""
import argparse
import math
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from bitfold.backends.riscv.harness import TARGETS, Counted, HarnessError, Target, build_program, count_program
from bitfold.load import import_onnx, load_module
from bitfold.riscv import CompiledModel, compile_model

BENCH = Path(__file__).resolve().parent
KERNEL_SOURCES = BENCH / "kernels"
TESTS = BENCH.parent / "tests"
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

class Checked(NamedTuple):
    """A column's count checked against its own reference rather than the case's (bitfold's column)."""

    counted: Counted
    expected: list[np.ndarray]
    """What the outputs must equal, bit for bit."""
    against: str
    """What `expected` is, for the notes."""


Implementation = Callable[[KernelCase, Target, Path], Counted | Checked]


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


# bitfold's model of each kernel: the scales are powers of two where the C kernel has none (matmul)
# so that s_a * s_b is exact; the conv cases carry theirs in `quantization`.
MATMUL_A_SCALE = 2.0**-4
MATMUL_B_SCALE = 2.0**-7
OPSET = 21  # int4 QuantizeLinear / DequantizeLinear
ONNX_IR_VERSION = 10


def scalar(name: str, value: float | int, dtype: type) -> TensorProto:
    return numpy_helper.from_array(np.array(value, dtype), name)


def integer_tensor(name: str, values: np.ndarray, bits: int) -> TensorProto:
    """An int8 initializer, or an int4 one (onnx packs it two per byte)."""
    if bits == 8:
        return numpy_helper.from_array(values.astype(np.int8), name)
    return helper.make_tensor(name, TensorProto.INT4, values.shape, values.reshape(-1).astype(np.int8).tolist())


def qdq_model(name: str, case_input: str, input_shape: tuple[int, ...], output_shape: tuple[int, ...],
              nodes: list[onnx.NodeProto], initializers: list[TensorProto]) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info(case_input, TensorProto.FLOAT, input_shape)],
                              [helper.make_tensor_value_info("out", TensorProto.FLOAT, output_shape)], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = ONNX_IR_VERSION
    return model


def matmul_model(case: KernelCase) -> onnx.ModelProto:
    """c = a @ B: a quantized graph input, B a constant, the MatMul quantized to int32 at s_a * s_b (exact)."""
    a, b = case.inputs["a"], case.inputs["b"]
    q = case.quantization
    initializers = [
        scalar("a_scale", MATMUL_A_SCALE, np.float32), scalar("a_zero_point", q["a_zero_point"], np.int8),
        integer_tensor("b", b, 8),
        scalar("b_scale", MATMUL_B_SCALE, np.float32), scalar("b_zero_point", q["b_zero_point"], np.int8),
        scalar("c_scale", MATMUL_A_SCALE * MATMUL_B_SCALE, np.float32), scalar("c_zero_point", 0, np.int32),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["a", "a_scale", "a_zero_point"], ["a_q"]),
        helper.make_node("DequantizeLinear", ["a_q", "a_scale", "a_zero_point"], ["a_dq"]),
        helper.make_node("DequantizeLinear", ["b", "b_scale", "b_zero_point"], ["b_dq"]),
        helper.make_node("MatMul", ["a_dq", "b_dq"], ["c_real"]),
        helper.make_node("QuantizeLinear", ["c_real", "c_scale", "c_zero_point"], ["c_q"]),
        helper.make_node("DequantizeLinear", ["c_q", "c_scale", "c_zero_point"], ["out"]),
    ]
    return qdq_model(case.name, "a", a.shape, case.reference["c"].shape, nodes, initializers)


def conv_model(case: KernelCase) -> onnx.ModelProto:
    """y = Q(Conv(DQ(Q(x)), DQ(w), DQ(bias))): per-channel int8 or int4 weights, int32 bias at x_scale * w_scale."""
    q = case.quantization
    w, w_scales, bits = q["w"], np.asarray(q["w_scales"], np.float32), q["w_bits"]
    x_scale = np.float32(q["x_scale"])
    zero_type = TensorProto.INT4 if bits == 4 else TensorProto.INT8
    initializers = [
        scalar("x_scale", x_scale, np.float32), scalar("x_zero_point", q["x_zero_point"], np.int8),
        integer_tensor("w", w, bits),
        numpy_helper.from_array(w_scales, "w_scale"),
        helper.make_tensor("w_zero_point", zero_type, w_scales.shape, [0] * w_scales.size),
        numpy_helper.from_array(case.inputs["bias"].astype(np.int32), "bias"),
        numpy_helper.from_array((x_scale * w_scales).astype(np.float32), "bias_scale"),
        numpy_helper.from_array(np.zeros(w_scales.shape, np.int32), "bias_zero_point"),
        scalar("y_scale", q["y_scale"], np.float32), scalar("y_zero_point", q["y_zero_point"], np.int8),
    ]
    pad = KERNEL_SIZE // 2
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero_point"], ["x_q"]),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero_point"], ["x_dq"]),
        helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero_point"], ["w_dq"], axis=0),
        helper.make_node("DequantizeLinear", ["bias", "bias_scale", "bias_zero_point"], ["bias_dq"], axis=0),
        helper.make_node("Conv", ["x_dq", "w_dq", "bias_dq"], ["y_real"], kernel_shape=[KERNEL_SIZE] * 2,
                         pads=[pad] * 4, strides=[1, 1]),
        helper.make_node("QuantizeLinear", ["y_real", "y_scale", "y_zero_point"], ["y_q"]),
        helper.make_node("DequantizeLinear", ["y_q", "y_scale", "y_zero_point"], ["out"]),
    ]
    return qdq_model(case.name, "x", case.inputs["x"].shape, case.reference["y"].shape, nodes, initializers)


KERNEL_INPUT_QUANTIZATION: dict[str, Callable[[KernelCase], tuple[float, int]]] = {
    "matmul_s8": lambda case: (MATMUL_A_SCALE, case.quantization["a_zero_point"]),
    "conv3x3_s8": lambda case: (float(np.float32(case.quantization["x_scale"])), case.quantization["x_zero_point"]),
    "conv3x3_s4w": lambda case: (float(np.float32(case.quantization["x_scale"])), case.quantization["x_zero_point"]),
}
"""The scale and zero point of the activations in each kernel's model."""

BITFOLD_MODELS: dict[str, Callable[[KernelCase], onnx.ModelProto]] = {
    "matmul_s8": matmul_model, "conv3x3_s8": conv_model, "conv3x3_s4w": conv_model,
}
"""The ONNX model of each kernel that bitfold's column compiles."""


def bitfold_model(case: KernelCase) -> onnx.ModelProto:
    return BITFOLD_MODELS[case.name](case)


def compile_for(load: Callable[[], object], target: Target, symbol: str | None = None) -> CompiledModel:
    """compile_model(load(), target), any failure as a one-line HarnessError (a note in the table)."""
    try:
        return compile_model(load(), target.name, symbol)
    except Exception as error:  # the importer's, the passes' and the code generator's errors alike
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise HarnessError(f"compile_model: {type(error).__name__}: {first_line}") from None


def count_compiled(compiled: CompiledModel, target: Target, stored: Sequence[np.ndarray], workdir: Path) -> Checked:
    """Link the compiled function into a harness program, run it once under rvcount on `stored`,
    count the instructions inside it, and pair its outputs with `run_reference(stored)`."""
    kernel = workdir / f"{compiled.symbol}.S"
    kernel.write_text(compiled.assembly)
    layouts = [(p.shape, p.dtype) for p in compiled.outputs]
    program = build_program([kernel], target, compiled.symbol, [(a.shape, a.dtype) for a in stored], layouts, workdir)
    counted = count_program(program, target, [compiled.symbol], stored, layouts)
    return Checked(counted, compiled.run_reference(stored), "bitfold's reference (run_reference)")


def bitfold_kernel(case: KernelCase, target: Target, workdir: Path) -> Checked:
    """bitfold's column: the case's ONNX model compiled for `target`, fed the case's integer activations."""
    model = bitfold_model(case).SerializeToString()
    compiled = compile_for(lambda: import_onnx(model, None, case.name), target, case.symbol)
    (port,) = compiled.inputs
    activations = case.inputs[port.name]
    # The case's integers, dequantized with the model's input scale and zero point and quantized
    # back by the compiled model's own input quantization: the same integers, or a note.
    scale, zero_point = KERNEL_INPUT_QUANTIZATION[case.name](case)
    (stored,) = compiled.quantize({port.name: (activations.astype(np.float64) - zero_point) * scale})
    if stored.shape != activations.shape or not np.array_equal(stored, activations):
        raise HarnessError(f"the compiled model's input quantization does not give back the case's {port.name}")
    return count_compiled(compiled, target, [stored], workdir)


BITFOLD = "bitfold"

# The columns of the table.
IMPLEMENTATIONS: dict[str, Implementation] = {
    **{name: c_baseline(command) for name, command in C_COMPILERS.items()},
    BITFOLD: bitfold_kernel,
}


class Cell(NamedTuple):
    text: str
    instructions: int | None
    """None when the column failed or computed something else than it should."""


def differing(expected: Sequence[np.ndarray], actual: Sequence[np.ndarray], names: Sequence[str]) -> str | None:
    """'N of M elements of NAME differ' for the first output that differs, else None."""
    for name, want, got in zip(names, expected, actual):
        if want.shape != got.shape or not np.array_equal(want, got):
            wrong = int(np.count_nonzero(want != got)) if want.shape == got.shape else want.size
            return f"{wrong} of {want.size} elements of {name} differ"
    return None


def measure_cell(implementation: Implementation, case: KernelCase, target: Target, workdir: Path,
                 notes: list[str], remarks: list[str], column: str) -> Cell:
    where = f"{column}, {case.name}, {target.name}"
    try:
        measured = implementation(case, target, workdir)
    except HarnessError as error:
        notes.append(f"{where}: {error}")
        return Cell("error", None)
    names = list(case.reference)
    if isinstance(measured, Checked):
        counted = measured.counted
        wrong = differing(measured.expected, counted.outputs, names)
        if wrong is not None:
            notes.append(f"{where}: against {measured.against}, {wrong}")
            return Cell("wrong", None)
        versus_c = differing(list(case.reference.values()), counted.outputs, names)
        remarks.append(f"{where}: equal to {measured.against}; against the C kernel's reference, "
                       + (versus_c if versus_c is not None else "equal too"))
    else:
        counted = measured
        wrong = differing(list(case.reference.values()), counted.outputs, names)
        if wrong is not None:
            notes.append(f"{where}: {wrong}")
            return Cell("wrong", None)
    return Cell(f"{counted.instructions:,} ({counted.instructions / case.macs:.2f})", counted.instructions)


def ratio(numerator: Cell, denominator: Cell) -> str:
    if numerator.instructions is None or denominator.instructions is None:
        return "-"
    return f"{numerator.instructions / denominator.instructions:.2f}"


def print_table(header: list[str], rows: list[list[str]], left: int) -> None:
    """Columns padded to their widest cell; the first `left` left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, ["-" * width for width in widths], *rows]:
        print("  ".join(cell.ljust(width) if i < left else cell.rjust(width) for i, (cell, width) in
                        enumerate(zip(row, widths))).rstrip())


def measure_kernels(kernels: list[str], targets: list[Target], root: Path, notes: list[str],
                    remarks: list[str]) -> None:
    columns = list(IMPLEMENTATIONS)
    baselines = [column for column in columns if column in C_COMPILERS]
    rows = []
    for kernel in kernels:
        case = KERNELS[kernel]()
        for target in targets:
            cells = {}
            for column in columns:
                workdir = root / "kernels" / kernel / target.name / column.replace(" ", "_")
                workdir.mkdir(parents=True, exist_ok=True)
                cells[column] = measure_cell(IMPLEMENTATIONS[column], case, target, workdir, notes, remarks, column)
            ratios = [ratio(cells[BITFOLD], cells[column]) for column in baselines] if BITFOLD in cells else []
            rows.append([kernel, target.name, f"{case.macs:,}", *(cells[column].text for column in columns), *ratios])
            print(f"  measured {kernel} on {target.name}", file=sys.stderr)
    ratio_names = [f"{BITFOLD}/{column.split()[0]}" for column in baselines] if BITFOLD in columns else []
    print("Instructions executed in the kernel, one call (rvcount under qemu user mode, CPU restricted to the ISA);")
    print("in parentheses: instructions per multiply-accumulate. Ratios: bitfold's count over each C compiler's.")
    print()
    print_table(["kernel", "target", "MACs", *columns, *ratio_names], rows, left=2)
    print()
    for target in targets:
        for column in columns:
            if column in C_COMPILERS:
                print(f"{column} on {target.name}: {' '.join(C_COMPILERS[column](target))} -D... -c KERNEL.c")
        print(f"qemu on {target.name}: {target.qemu} -cpu {target.cpu}")
    if BITFOLD in columns:
        print(f"{BITFOLD}: compile_model(import_onnx(<the kernel's QDQ model, opset {OPSET}>), target), the "
              "generated .S assembled and linked by the harness (see the docstring for what it computes)")


def default_models() -> list[str]:
    """The first quantized catalogue model of each network and form (catalogue order)."""
    from models.recipes import NETWORKS, RECIPES

    chosen: dict[tuple[str, str], str] = {}
    for name, recipe in RECIPES.items():
        network = next(network for network in NETWORKS if name.startswith(f"{network}-"))
        if recipe.form != "float":
            chosen.setdefault((network, recipe.form), name)
    return list(chosen.values())


def measure_models(models: list[str], targets: list[Target], root: Path, notes: list[str]) -> None:
    """One inference of each test model, compiled by bitfold, on its catalogue inputs (seed 0)
    quantized by the model's own input quantization; checked against run_reference."""
    from models.recipes import ModelCatalogue, form_of

    catalogue = ModelCatalogue(root / "catalogue")
    rows = []
    for name in models:
        for target in targets:
            workdir = root / "models" / name / target.name
            workdir.mkdir(parents=True, exist_ok=True)
            where = f"{BITFOLD}, {name}, {target.name}"
            text = "error"
            try:
                path = catalogue.path(name)
                compiled = compile_for(lambda: load_module(str(path)), target)
                stored = compiled.quantize(catalogue.inputs(name, seed=0))
                checked = count_compiled(compiled, target, stored, workdir)
            except HarnessError as error:
                notes.append(f"{where}: {error}")
            else:
                wrong = differing(checked.expected, checked.counted.outputs, [p.name for p in compiled.outputs])
                if wrong is not None:
                    notes.append(f"{where}: against {checked.against}, {wrong}")
                    text = "wrong"
                else:
                    text = f"{checked.counted.instructions:,}"
            rows.append([name, form_of(name), target.name, text])
            print(f"  measured {name} on {target.name}", file=sys.stderr)
    print("Instructions executed in the model's function, one inference (bitfold, rvcount under qemu user mode);")
    print("inputs: the catalogue's float inputs (seed 0) quantized by the model; outputs equal to run_reference.")
    print()
    print_table(["model", "form", "target", BITFOLD], rows, left=3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", action="append", choices=sorted(KERNELS), help="default: all")
    parser.add_argument("--target", action="append", choices=sorted(TARGETS), help="default: all")
    parser.add_argument("--workdir", type=Path, help="keep the programs here (default: a temporary directory)")
    parser.add_argument("--no-kernels", action="store_true", help="skip the kernel table")
    models = parser.add_mutually_exclusive_group()
    models.add_argument("--model", action="append", help="a test model for the second table (default: the first "
                        "quantized model of each network and form)")
    models.add_argument("--all-models", action="store_true", help="every quantized test model")
    models.add_argument("--no-models", action="store_true", help="skip the model table")
    arguments = parser.parse_args(argv)
    kernels = arguments.kernel or list(KERNELS)
    targets = [TARGETS[name] for name in arguments.target or sorted(TARGETS)]
    sys.path.insert(0, str(TESTS))  # the test-model catalogue: models.recipes
    from models.recipes import names

    if arguments.model:
        unknown = sorted(set(arguments.model) - set(names()))
        if unknown:
            parser.error(f"unknown test models: {', '.join(unknown)}")
    models = ([] if arguments.no_models else arguments.model or
              ([name for name in names() if not name.endswith("-float")] if arguments.all_models else default_models()))
    notes: list[str] = []
    remarks: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        root = arguments.workdir or Path(scratch)
        if not arguments.no_kernels:
            measure_kernels(kernels, targets, root, notes, remarks)
            for remark in remarks:
                print(f"remark: {remark}")
        if models:
            if not arguments.no_kernels:
                print()
            measure_models(models, targets, root, notes)
    if notes:
        print()
    for note in notes:
        print(f"note: {note}")
    return 1 if notes else 0


if __name__ == "__main__":
    sys.exit(main())
