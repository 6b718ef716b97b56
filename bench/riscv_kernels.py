"""Executed instructions and code size of quantized kernels on RISC-V: bitfold against C compilers.

Five kernels, each written as a firmware engineer writes it in plain C (bench/kernels/):

    matmul_s8         int8 64x64 @ 64x64 with zero points on both operands, int32 result
    conv3x3_s8        int8 3x3 convolution 16 -> 32 channels on 16x16, stride 1, padding 1, int32 bias,
                      per-channel fixed-point requantization (multiplier + shift) to int8
    conv3x3_s4w       the same layer with signed 4-bit weights packed two per byte
    conv3x3_w4a4      the same layer with signed 4-bit activations (int4 QDQ; one per byte in C) too
    depthwise3x3_s8   int8 depthwise 3x3 convolution of 32 channels on 16x16, padding 1, requantized
    grouped3x3_s8     int8 grouped 3x3 convolution 64 -> 64 channels in groups of 16 (RegNetX's group
                      width) on 16x16, padding 1, requantized
    pointwise_s8      int8 1x1 convolution 32 -> 64 channels on 16x16, requantized

The columns of the instruction table (rv32im and rv64im; a cell is the instructions executed inside the
kernel by one call, and per multiply-accumulate in parentheses):

    bitfold                 an ONNX QDQ model of the layer compiled by `bitfold.compile.compile_model` (the
                            matmul's int32 result quantized by a QONNX 32-bit Quant)
    gcc -O2                 the plain C kernel (riscv64-linux-gnu-gcc 12)
    clang-19 -O3            the plain C kernel
    gcc -O3 -funroll-loops  the plain C kernel
    tiled, gcc -O2          a hand-tuned C kernel (matmul and the convolutions but depthwise:
                            *_tiled.c): a 4 x 4 output tile in 16 local accumulators, the reduction
                            unrolled, weights pre-packed in panels of 4 and weight sums folded into
                            the bias offline, as an engineer does for a hot layer

The code-size table compiles the same sources with -Os for rv32imc and rv64imc (the C extension on)
and bitfold's function for those targets, and prints the bytes of `.text`; bitfold's `.rodata` (its
weights, packed, and the tables it folds ahead of time) is printed beside it, since the C kernels
take their weights as arguments.

Every column's outputs are checked bit for bit: against the case's numpy reference (which is what
the C kernels compute) and, for bitfold, against its own interpreter on the integer IR it compiled
(`run_reference`). The requantization multipliers and shifts the C kernels take are bitfold's own
(`passes/utils/requantization.py`: M in [2^30, 2^31), shift n, from the exact ratio of the model's float32
scales, whose input scale is a power of two so that the bias scale is exact), and the C kernels round
half up where bitfold rounds half to even: with an odd multiplier and n > 31 a tie cannot occur, so
every column must equal every other, and the last column of the table says whether they do.

bitfold's weights are constants of the compiled function, so it may fold work on them ahead of time
(e.g. the zero-point correction of the matmul becomes a constant table), which the plain C kernels,
taking weights as arguments, cannot; the tiled kernels get the same offline folding by hand.

A second table counts one inference of test models (tests/models) compiled by bitfold: by default the
first quantized model of each network and form of the catalogue, `--all-models` for every quantized
model, `--model NAME` for chosen ones.

    python bench/riscv_kernels.py [--kernel NAME ...] [--target rv32im|rv64im ...] [--workdir DIR]
                                  [--model NAME ... | --all-models | --no-models] [--no-kernels] [--no-sizes]

The figures are printed, never asserted. Counts come from bitfold's instruction counter (a qemu plugin
in backends/kernel/harness, built on first use) under qemu user mode with the CPU restricted to the ISA.
"""
import argparse
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from bitfold.backends.kernel.harness import (
    TARGETS,
    Counted,
    HarnessError,
    Target,
    build_program,
    compile_object,
    count_program,
    section_sizes,
)
from bitfold.compile import CompiledModel, compile_model
from bitfold.load import import_onnx, load_module
from bitfold.passes.utils.requantization import fixed_point_scale

BENCH = Path(__file__).resolve().parent
KERNEL_SOURCES = BENCH / "kernels"
TESTS = BENCH.parent / "tests"
SEED = 0
NM = "riscv64-unknown-elf-nm"
DEFAULT_TARGETS = ("rv32im", "rv64im")
COMPRESSED = {"rv32im": "rv32imc", "rv64im": "rv64imc"}
"""the target whose code size stands for each counted target"""

MATMUL_SIZE = 64  # M = K = N
CONV_IN_CHANNELS = 16
CONV_OUT_CHANNELS = 32
DEPTHWISE_CHANNELS = 32
GROUPED_CHANNELS = 64
GROUP_WIDTH = 16  # RegNetX-400MF's channels per group
POINTWISE_IN_CHANNELS = 32
POINTWISE_OUT_CHANNELS = 64
IMAGE_SIZE = 16  # H = W
TILE = 4  # output channels (or columns) of a tiled kernel's panel
INT8_RANGE = (-128, 127)
INT4_RANGE = (-8, 7)
X_SCALE = 2.0**-6
"""the activations' scale: a power of two, so x_scale * w_scale is exact in float32 (the bias scale)"""
X_ZERO_POINT = -3


@dataclass(frozen=True)
class Variant:
    """A C kernel: its source, function and arguments (inputs in call order, then the outputs)."""

    source: str
    symbol: str
    inputs: dict[str, np.ndarray]
    defines: dict[str, int | str] = field(default_factory=dict)


@dataclass(frozen=True)
class KernelCase:
    """One benchmark kernel: its C kernels, the layer they compute, and the outputs every column must give."""

    name: str
    plain: Variant
    """The plain C kernel (the gcc and clang columns)."""
    tiled: Variant | None
    """The hand-tuned C kernel, on pre-packed weights, if there is one."""
    reference: dict[str, np.ndarray]
    defines: dict[str, int]
    """Compile-time constants of the C kernels (sizes, zero points)."""
    macs: int
    """Multiply-accumulates of one call, for instructions per MAC."""
    layer: dict[str, object]
    """What bitfold's model of the kernel is built from (weights, scales, zero points, conv geometry)."""

    @property
    def outputs(self) -> list[tuple[tuple[int, ...], np.dtype]]:
        return [(array.shape, array.dtype) for array in self.reference.values()]


def panels(columns: np.ndarray) -> np.ndarray:
    """The (K, N) matrix as N / TILE panels of K rows of TILE: panel-major, then row, then column."""
    rows, count = columns.shape
    return np.ascontiguousarray(columns.reshape(rows, count // TILE, TILE).transpose(1, 0, 2)).reshape(-1)


def matmul_s8() -> KernelCase:
    rng = np.random.default_rng(SEED)
    size = MATMUL_SIZE
    a = rng.integers(*INT8_RANGE, size=(size, size), endpoint=True, dtype=np.int8)
    b = rng.integers(*INT8_RANGE, size=(size, size), endpoint=True, dtype=np.int8)
    a_zero_point, b_zero_point = -7, 5
    c = (a.astype(np.int32) - a_zero_point) @ (b.astype(np.int32) - b_zero_point)
    col_term = size * a_zero_point * b_zero_point - a_zero_point * b.astype(np.int32).sum(axis=0)
    return KernelCase(
        name="matmul_s8",
        plain=Variant("matmul_s8.c", "matmul_s8", {"a": a, "b": b}),
        tiled=Variant("matmul_s8_tiled.c", "matmul_s8_tiled",
                      {"a": a, "b_panels": panels(b), "col_term": col_term.astype(np.int32)}),
        reference={"c": c.astype(np.int32)},
        defines={"M": size, "K": size, "N": size, "A_ZERO_POINT": a_zero_point, "B_ZERO_POINT": b_zero_point},
        macs=size**3,
        layer={"a_zero_point": a_zero_point, "b": b, "b_zero_point": b_zero_point},
    )


@dataclass(frozen=True)
class ConvShape:
    in_channels: int
    out_channels: int
    kernel: int
    """kernel height = width; padding kernel // 2, stride 1"""
    depthwise: bool = False
    groups: int = 1
    """groups of a grouped convolution (not depthwise): each output channel reads its group's
    in_channels / groups input channels"""

    @property
    def group_count(self) -> int:
        return self.out_channels if self.depthwise else self.groups

    @property
    def weight_shape(self) -> tuple[int, int, int, int]:
        return (self.out_channels, self.in_channels // self.group_count, self.kernel, self.kernel)


def conv_accumulators(x: np.ndarray, w: np.ndarray, bias: np.ndarray, shape: ConvShape) -> np.ndarray:
    """int64 accumulators of the stride-1 convolution of (x - X_ZERO_POINT) by w (padding kernel // 2), plus bias."""
    pad = shape.kernel // 2
    shifted = np.pad(x[0].astype(np.int64) - X_ZERO_POINT, ((0, 0), (pad, pad), (pad, pad)))
    windows = np.lib.stride_tricks.sliding_window_view(shifted, (shape.kernel, shape.kernel), axis=(1, 2))
    groups = shape.group_count
    grouped_windows = windows.reshape(groups, -1, *windows.shape[1:])  # group, channel of the group, ...
    grouped_w = w.astype(np.int64).reshape(groups, -1, *w.shape[1:])  # group, output of the group, ...
    acc = np.einsum("gcyxkl,gockl->goyx", grouped_windows, grouped_w).reshape(shape.out_channels, *windows.shape[1:3])
    return acc + bias[:, None, None]


def requantize(acc: np.ndarray, multiplier: np.ndarray, shift: np.ndarray, zero_point: int) -> np.ndarray:
    """bench/kernels/requantize.h in numpy (per output channel, axis 0 of acc): rounding half up."""
    multiplier = multiplier.astype(np.int64)[:, None, None]
    shift = shift.astype(np.int64)[:, None, None]
    y = ((acc * multiplier + (np.int64(1) << (shift - 1))) >> shift) + zero_point
    return np.clip(y, *INT8_RANGE).astype(np.int8)


def fixed_point_scales(w_scales: np.ndarray, y_scale: np.float32) -> tuple[np.ndarray, np.ndarray]:
    """bitfold's (M, n) of each channel's ratio x_scale * w_scale / y_scale, from the float32 values."""
    pairs = [fixed_point_scale(Fraction(float(np.float32(X_SCALE))) * Fraction(float(s)) / Fraction(float(y_scale)))
             for s in w_scales]
    multipliers, shifts = zip(*pairs)
    return np.array(multipliers, np.int32), np.array(shifts, np.int32)


def packed_s4(w: np.ndarray) -> np.ndarray:
    """Signed 4-bit weights in row-major order, two per byte, the even-indexed one in the low nibble."""
    flat = w.reshape(-1).astype(np.uint8) & 0x0F
    return (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8)


def tiled_weights(w: np.ndarray, bits: int) -> np.ndarray:
    """w (C_OUT, C_IN, k, k) in panels of TILE output channels, the taps of one input channel after
    another: int8 lanes, or for 4 bits one uint16 per tap holding the panel's 4 nibbles (lane 0 lowest)."""
    out_channels, in_channels, kh, kw = w.shape
    lanes = w.reshape(out_channels // TILE, TILE, in_channels * kh * kw).transpose(0, 2, 1)  # panel, tap, lane
    if bits == 8:
        return np.ascontiguousarray(lanes).reshape(-1).astype(np.int8)
    nibbles = lanes.astype(np.uint16) & 0x0F
    return (nibbles[..., 0] | nibbles[..., 1] << 4 | nibbles[..., 2] << 8 | nibbles[..., 3] << 12).reshape(-1)


def conv_case(name: str, shape: ConvShape, weight_bits: int, weight_scale_range: tuple[float, float],
              tiled_source: str | None, activation_bits: int = 8, source: str | None = None) -> KernelCase:
    """The layer with `weight_bits` and `activation_bits` (8 or 4) operands; its plain C kernel is
    `source` (default: the case's name)."""
    rng = np.random.default_rng(SEED)
    activation_range = INT4_RANGE if activation_bits == 4 else INT8_RANGE
    x = rng.integers(*activation_range, size=(1, shape.in_channels, IMAGE_SIZE, IMAGE_SIZE), endpoint=True, dtype=np.int8)
    weight_range = INT4_RANGE if weight_bits == 4 else INT8_RANGE
    w = rng.integers(*weight_range, size=shape.weight_shape, endpoint=True, dtype=np.int8)
    w_scales = rng.uniform(*weight_scale_range, size=shape.out_channels).astype(np.float32)
    bias = rng.integers(-2000, 2000, size=shape.out_channels, dtype=np.int32)
    acc = conv_accumulators(x, w, bias, shape)
    real = acc * (X_SCALE * w_scales.astype(np.float64))[:, None, None]
    # The output scale and zero point that map the layer's real outputs onto int8.
    y_scale = np.float32(float(real.max() - real.min()) / 255)
    y_zero_point = int(round(INT8_RANGE[0] - real.min() / y_scale))
    multiplier, shift = fixed_point_scales(w_scales, y_scale)
    y = requantize(acc, multiplier, shift, y_zero_point)
    weights = {"w_packed": packed_s4(w)} if weight_bits == 4 else {"w": w}
    parameters = {"bias": bias, "multiplier": multiplier, "shift": shift}
    channels = {"C": shape.out_channels} if shape.depthwise else {"C_IN": shape.in_channels,
                                                                   "C_OUT": shape.out_channels}
    if shape.groups > 1:
        channels["GROUPS"] = shape.groups
    tiled = None
    if tiled_source is not None:
        bias_folded = bias - X_ZERO_POINT * w.astype(np.int32).sum(axis=(1, 2, 3))
        tiled_symbol = f"{name}_tiled"
        tiled = Variant(tiled_source, tiled_symbol, {"x": x, "w_panels": tiled_weights(w, weight_bits),
                                                     "bias_folded": bias_folded.astype(np.int32),
                                                     "multiplier": multiplier, "shift": shift},
                        {"WEIGHT_BITS": weight_bits, "KERNEL_NAME": tiled_symbol})
    return KernelCase(
        name=name,
        plain=Variant(f"{source or name}.c", source or name, {"x": x, **weights, **parameters}),
        tiled=tiled,
        reference={"y": y.reshape(1, shape.out_channels, IMAGE_SIZE, IMAGE_SIZE)},
        defines={**channels, "H": IMAGE_SIZE, "W": IMAGE_SIZE, "X_ZERO_POINT": X_ZERO_POINT,
                 "Y_ZERO_POINT": y_zero_point},
        macs=int(np.prod(shape.weight_shape)) * IMAGE_SIZE**2,
        layer={"shape": shape, "w": w, "w_bits": weight_bits, "x_bits": activation_bits, "w_scales": w_scales,
               "bias": bias,
               "y_scale": y_scale, "y_zero_point": y_zero_point},
    )


KERNELS: dict[str, Callable[[], KernelCase]] = {
    "matmul_s8": matmul_s8,
    "conv3x3_s8": lambda: conv_case("conv3x3_s8", ConvShape(CONV_IN_CHANNELS, CONV_OUT_CHANNELS, 3), 8,
                                    (0.002, 0.01), "conv3x3_tiled.c"),
    "conv3x3_s4w": lambda: conv_case("conv3x3_s4w", ConvShape(CONV_IN_CHANNELS, CONV_OUT_CHANNELS, 3), 4,
                                     (0.03, 0.15), "conv3x3_tiled.c"),
    "conv3x3_w4a4": lambda: conv_case("conv3x3_w4a4", ConvShape(CONV_IN_CHANNELS, CONV_OUT_CHANNELS, 3), 4,
                                      (0.03, 0.15), "conv3x3_tiled.c", activation_bits=4, source="conv3x3_s4w"),
    "depthwise3x3_s8": lambda: conv_case("depthwise3x3_s8", ConvShape(DEPTHWISE_CHANNELS, DEPTHWISE_CHANNELS, 3,
                                                                      depthwise=True), 8, (0.002, 0.01), None),
    "grouped3x3_s8": lambda: conv_case("grouped3x3_s8", ConvShape(GROUPED_CHANNELS, GROUPED_CHANNELS, 3,
                                                                  groups=GROUPED_CHANNELS // GROUP_WIDTH), 8,
                                       (0.002, 0.01), None),
    "pointwise_s8": lambda: conv_case("pointwise_s8", ConvShape(POINTWISE_IN_CHANNELS, POINTWISE_OUT_CHANNELS, 1), 8,
                                      (0.002, 0.01), "pointwise_s8_tiled.c"),
}


# --- the C columns ---------------------------------------------------------------------------

def gcc(*flags: str) -> Callable[[Target], list[str]]:
    return lambda target: ["riscv64-linux-gnu-gcc", *flags, *target.machine_flags, "-ffreestanding"]


def clang(*flags: str) -> Callable[[Target], list[str]]:
    return lambda target: ["clang-19", *flags, f"--target={target.clang_target}", *target.machine_flags,
                           "-ffreestanding"]


@dataclass(frozen=True)
class CColumn:
    """A C column: which kernel of a case it compiles, with what, for counting and for code size."""

    variant: Callable[[KernelCase], Variant | None]
    command: Callable[[Target], list[str]]
    size_command: Callable[[Target], list[str]]


def plain(case: KernelCase) -> Variant:
    return case.plain


def tiled(case: KernelCase) -> Variant | None:
    return case.tiled


BITFOLD = "bitfold"
C_COLUMNS: dict[str, CColumn] = {
    "gcc -O2": CColumn(plain, gcc("-O2"), gcc("-Os")),
    "clang-19 -O3": CColumn(plain, clang("-O3"), clang("-Os")),
    "gcc -O3 -funroll-loops": CColumn(plain, gcc("-O3", "-funroll-loops"), gcc("-Os")),
    "tiled, gcc -O2": CColumn(tiled, gcc("-O2"), gcc("-Os")),
}
COLUMNS = [BITFOLD, *C_COLUMNS]
SIZE_COLUMNS = {"gcc -Os": "gcc -O2", "clang-19 -Os": "clang-19 -O3", "tiled, gcc -Os": "tiled, gcc -O2"}
"""the code-size table's C columns -> the count table's column whose kernel they compile"""


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


def compile_c(variant: Variant, case: KernelCase, command: list[str], workdir: Path) -> Path:
    obj = workdir / f"{variant.symbol}.o"
    defines = [f"-D{name}={value}" for name, value in {**case.defines, **variant.defines}.items()]
    full = [*command, *defines, f"-I{KERNEL_SOURCES}", "-c", str(KERNEL_SOURCES / variant.source), "-o", str(obj)]
    done = subprocess.run(full, capture_output=True, text=True)
    if done.returncode != 0:
        raise HarnessError(f"{' '.join(full)}:\n{done.stderr.strip()}")
    return obj


def count_c(column: CColumn, case: KernelCase, target: Target, workdir: Path) -> Counted | None:
    """Compile the column's kernel of `case`, link it into a harness program, count one call."""
    variant = column.variant(case)
    if variant is None:
        return None
    obj = compile_c(variant, case, column.command(target), workdir)
    inputs = list(variant.inputs.values())
    program = build_program([obj], target, variant.symbol, [(a.shape, a.dtype) for a in inputs], case.outputs,
                            workdir)
    return count_program(program, target, kernel_functions(obj), inputs, case.outputs)


def text_bytes(obj: Path) -> int:
    """Bytes of the object's code: `.text` and its subsections (`.text.*`)."""
    return sum(size for name, size in section_sizes(obj).items() if name == ".text" or name.startswith(".text."))


# --- bitfold's column: an ONNX QDQ model of each kernel ----------------------------------------

# The matmul's scales are powers of two, so the int32 result at s_a * s_b is exactly the C kernel's c.
MATMUL_A_SCALE = 2.0**-4
MATMUL_B_SCALE = 2.0**-7
OPSET = 21  # int4 QuantizeLinear / DequantizeLinear
QONNX_DOMAIN = "qonnx.custom_op.general"
ACCUMULATOR_BITS = 32
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
    """c = a @ B: a quantized graph input, B a constant, the MatMul quantized to int32 at s_a * s_b (exact)
    by a QONNX 32-bit Quant (ONNX's QuantizeLinear has no int32 result: onnx's checker, onnxruntime and
    bitfold reject one)."""
    layer = case.layer
    initializers = [
        scalar("a_scale", MATMUL_A_SCALE, np.float32), scalar("a_zero_point", layer["a_zero_point"], np.int8),
        integer_tensor("b", layer["b"], 8),
        scalar("b_scale", MATMUL_B_SCALE, np.float32), scalar("b_zero_point", layer["b_zero_point"], np.int8),
        scalar("c_scale", MATMUL_A_SCALE * MATMUL_B_SCALE, np.float32), scalar("c_zero_point", 0.0, np.float32),
        scalar("c_bits", ACCUMULATOR_BITS, np.float32),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["a", "a_scale", "a_zero_point"], ["a_q"]),
        helper.make_node("DequantizeLinear", ["a_q", "a_scale", "a_zero_point"], ["a_dq"]),
        helper.make_node("DequantizeLinear", ["b", "b_scale", "b_zero_point"], ["b_dq"]),
        helper.make_node("MatMul", ["a_dq", "b_dq"], ["c_real"]),
        helper.make_node("Quant", ["c_real", "c_scale", "c_zero_point", "c_bits"], ["out"], domain=QONNX_DOMAIN,
                         signed=1, narrow=0, rounding_mode="ROUND"),
    ]
    model = qdq_model(case.name, "a", case.plain.inputs["a"].shape, case.reference["c"].shape, nodes, initializers)
    model.opset_import.append(helper.make_opsetid(QONNX_DOMAIN, 1))
    return model


def conv_model(case: KernelCase) -> onnx.ModelProto:
    """y = Q(Conv(DQ(Q(x)), DQ(w), DQ(bias))): per-channel int8 or int4 weights, int32 bias at
    x_scale * w_scale (exact: x_scale is a power of two), group = channels for the depthwise one, the
    shape's groups for a grouped one."""
    layer = case.layer
    shape: ConvShape = layer["shape"]
    w_scales = layer["w_scales"]
    zero_type = TensorProto.INT4 if layer["w_bits"] == 4 else TensorProto.INT8
    x_zero_type = TensorProto.INT4 if layer["x_bits"] == 4 else TensorProto.INT8
    initializers = [
        scalar("x_scale", X_SCALE, np.float32), helper.make_tensor("x_zero_point", x_zero_type, [], [X_ZERO_POINT]),
        integer_tensor("w", layer["w"], layer["w_bits"]),
        numpy_helper.from_array(w_scales, "w_scale"),
        helper.make_tensor("w_zero_point", zero_type, w_scales.shape, [0] * w_scales.size),
        numpy_helper.from_array(layer["bias"].astype(np.int32), "bias"),
        numpy_helper.from_array((np.float32(X_SCALE) * w_scales).astype(np.float32), "bias_scale"),
        numpy_helper.from_array(np.zeros(w_scales.shape, np.int32), "bias_zero_point"),
        scalar("y_scale", layer["y_scale"], np.float32), scalar("y_zero_point", layer["y_zero_point"], np.int8),
    ]
    pad = shape.kernel // 2
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero_point"], ["x_q"]),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero_point"], ["x_dq"]),
        helper.make_node("DequantizeLinear", ["w", "w_scale", "w_zero_point"], ["w_dq"], axis=0),
        helper.make_node("DequantizeLinear", ["bias", "bias_scale", "bias_zero_point"], ["bias_dq"], axis=0),
        helper.make_node("Conv", ["x_dq", "w_dq", "bias_dq"], ["y_real"], kernel_shape=[shape.kernel] * 2,
                         pads=[pad] * 4, strides=[1, 1], group=shape.group_count),
        helper.make_node("QuantizeLinear", ["y_real", "y_scale", "y_zero_point"], ["y_q"]),
        helper.make_node("DequantizeLinear", ["y_q", "y_scale", "y_zero_point"], ["out"]),
    ]
    return qdq_model(case.name, "x", case.plain.inputs["x"].shape, case.reference["y"].shape, nodes, initializers)


def bitfold_model(case: KernelCase) -> tuple[onnx.ModelProto, float, int]:
    """The ONNX model of the kernel that bitfold's column compiles, and its input's scale and zero point."""
    if case.name == "matmul_s8":
        return matmul_model(case), MATMUL_A_SCALE, case.layer["a_zero_point"]
    return conv_model(case), X_SCALE, X_ZERO_POINT


def compile_for(load: Callable[[], object], target: Target, symbol: str | None = None) -> CompiledModel:
    """compile_model(load(), target), any failure as a one-line HarnessError (a note under the table)."""
    try:
        return compile_model(load(), target.name, symbol)
    except Exception as error:  # the importer's, the passes' and the code generator's errors alike
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise HarnessError(f"compile_model: {type(error).__name__}: {first_line}") from None


def compile_kernel(case: KernelCase, target: Target) -> tuple[CompiledModel, np.ndarray]:
    """bitfold's function for the case's model, and the case's activations as its input (checked to
    be what the compiled model's own input quantization gives for their real values)."""
    model, scale, zero_point = bitfold_model(case)
    serialized = model.SerializeToString()
    compiled = compile_for(lambda: import_onnx(serialized, None, case.name), target, case.name)
    (port,) = compiled.inputs
    activations = case.plain.inputs[port.name]
    (stored,) = compiled.quantize({port.name: (activations.astype(np.float64) - zero_point) * scale})
    if stored.shape != activations.shape or not np.array_equal(stored, activations):
        raise HarnessError(f"the compiled model's input quantization does not give back the case's {port.name}")
    return compiled, stored


class Checked(NamedTuple):
    """bitfold's count, and what its outputs must equal besides the case's reference."""

    counted: Counted
    own_reference: list[np.ndarray]
    """`run_reference`: bitfold's interpreter on the integer IR the assembly was made from."""


def count_compiled(compiled: CompiledModel, target: Target, stored: Sequence[np.ndarray], workdir: Path) -> Checked:
    """Link the compiled function into a harness program and count one call on `stored`."""
    kernel = workdir / f"{compiled.symbol}.S"
    kernel.write_text(compiled.assembly)
    layouts = [(p.shape, p.dtype) for p in compiled.outputs]
    program = build_program([kernel], target, compiled.symbol, [(a.shape, a.dtype) for a in stored], layouts, workdir)
    return Checked(count_program(program, target, [compiled.symbol], stored, layouts), compiled.run_reference(stored))


def bitfold_text_and_rodata(case: KernelCase, target: Target, workdir: Path) -> tuple[int, int]:
    compiled, _ = compile_kernel(case, target)
    source = workdir / f"{compiled.symbol}.{target.name}.S"
    source.write_text(compiled.assembly)
    obj = compile_object(source, target, workdir)
    rodata = sum(size for name, size in section_sizes(obj).items() if "rodata" in name)
    return text_bytes(obj), rodata


# --- measuring and printing --------------------------------------------------------------------

def differing(expected: Sequence[np.ndarray], actual: Sequence[np.ndarray], names: Sequence[str]) -> str | None:
    """'N of M elements of NAME differ' for the first output that differs, else None."""
    for name, want, got in zip(names, expected, actual):
        if want.shape != got.shape or not np.array_equal(want, got):
            wrong = int(np.count_nonzero(want != got)) if want.shape == got.shape else want.size
            return f"{wrong} of {want.size} elements of {name} differ"
    return None


def print_table(header: list[str], rows: list[list[str]], left: int) -> None:
    """Columns padded to their widest cell; the first `left` left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, ["-" * width for width in widths], *rows]:
        print("  ".join(cell.ljust(width) if i < left else cell.rjust(width) for i, (cell, width) in
                        enumerate(zip(row, widths))).rstrip())


def count_cell(column: str, case: KernelCase, target: Target, workdir: Path, notes: list[str]) -> tuple[str, bool]:
    """The cell's text, and whether its outputs equal the case's reference (True for an empty cell)."""
    where = f"{column}, {case.name}, {target.name}"
    names = list(case.reference)
    try:
        if column == BITFOLD:
            compiled, stored = compile_kernel(case, target)
            checked = count_compiled(compiled, target, [stored], workdir)
            counted = checked.counted
            own = differing(checked.own_reference, counted.outputs, names)
            if own is not None:
                notes.append(f"{where}: against bitfold's own reference (run_reference), {own}")
        else:
            counted = count_c(C_COLUMNS[column], case, target, workdir)
            if counted is None:
                return "-", True
    except HarnessError as error:
        notes.append(f"{where}: {error}")
        return "error", False
    wrong = differing(list(case.reference.values()), counted.outputs, names)
    if wrong is not None:
        notes.append(f"{where}: against the case's reference, {wrong}")
        return "wrong", False
    return f"{counted.instructions:,} ({counted.instructions / case.macs:.2f})", True


def measure_kernels(cases: list[KernelCase], targets: list[Target], root: Path, notes: list[str]) -> None:
    rows = []
    for case in cases:
        for target in targets:
            cells, equal = [], True
            for column in COLUMNS:
                workdir = root / "kernels" / case.name / target.name / column.replace(" ", "_").replace(",", "")
                workdir.mkdir(parents=True, exist_ok=True)
                text, same = count_cell(column, case, target, workdir, notes)
                cells.append(text)
                equal &= same
            rows.append([case.name, target.name, f"{case.macs:,}", *cells, "yes" if equal else "NO"])
            print(f"  measured {case.name} on {target.name}", file=sys.stderr)
    print("Instructions executed inside the kernel, one call (bitfold's instruction counter under qemu user mode,")
    print("the CPU restricted to the ISA); in parentheses: instructions per multiply-accumulate.")
    print("bit-exact: every column's outputs equal the case's reference (and bitfold's its own run_reference).")
    print()
    print_table(["kernel", "target", "MACs", *COLUMNS, "bit-exact"], rows, left=2)
    print()
    for target in targets:
        for column, spec in C_COLUMNS.items():
            print(f"{column} on {target.name}: {' '.join(spec.command(target))} -D... -c KERNEL.c")
        print(f"qemu on {target.name}: {target.qemu} -cpu {target.cpu}")
    print(f"{BITFOLD}: compile_model(import_onnx(<the kernel's QDQ model, opset {OPSET}>), target), the "
          "generated .S assembled and linked by the harness")


def measure_sizes(cases: list[KernelCase], targets: list[Target], root: Path, notes: list[str]) -> None:
    """`.text` bytes: bitfold's function for the compressed target, the C kernels at -Os for it."""
    rows = []
    for case in cases:
        for target in targets:
            where = f"{case.name}, {target.name}"
            workdir = root / "sizes" / case.name / target.name
            workdir.mkdir(parents=True, exist_ok=True)
            try:
                text, rodata = bitfold_text_and_rodata(case, target, workdir)
                cells = [f"{text:,}", f"{rodata:,}"]
            except HarnessError as error:
                notes.append(f"{BITFOLD} size, {where}: {error}")
                cells = ["error", "error"]
            for size_column, count_column in SIZE_COLUMNS.items():
                spec = C_COLUMNS[count_column]
                variant = spec.variant(case)
                if variant is None:
                    cells.append("-")
                    continue
                try:
                    cells.append(f"{text_bytes(compile_c(variant, case, spec.size_command(target), workdir)):,}")
                except HarnessError as error:
                    notes.append(f"{size_column} size, {where}: {error}")
                    cells.append("error")
            rows.append([case.name, target.name, *cells])
    print("Code size: bytes of .text of the kernel's object (riscv64-unknown-elf-size -A), the C extension on;")
    print("bitfold's .rodata holds its weights and the tables it folds ahead of time (the C kernels take")
    print("their weights as arguments).")
    print()
    print_table(["kernel", "target", f"{BITFOLD} .text", f"{BITFOLD} .rodata", *SIZE_COLUMNS], rows, left=2)


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
                wrong = differing(checked.own_reference, checked.counted.outputs, [p.name for p in compiled.outputs])
                if wrong is not None:
                    notes.append(f"{where}: against run_reference, {wrong}")
                    text = "wrong"
                else:
                    text = f"{checked.counted.instructions:,}"
            rows.append([name, form_of(name), target.name, text])
            print(f"  measured {name} on {target.name}", file=sys.stderr)
    print("Instructions executed in the model's function, one inference (bitfold, the instruction counter under qemu);")
    print("inputs: the catalogue's float inputs (seed 0) quantized by the model; outputs equal to run_reference.")
    print()
    print_table(["model", "form", "target", BITFOLD], rows, left=3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", action="append", choices=sorted(KERNELS), help="default: all")
    parser.add_argument("--target", action="append", choices=sorted(COMPRESSED), help="default: all")
    parser.add_argument("--workdir", type=Path, help="keep the programs here (default: a temporary directory)")
    parser.add_argument("--no-kernels", action="store_true", help="skip the kernel tables")
    parser.add_argument("--no-sizes", action="store_true", help="skip the code-size table")
    models = parser.add_mutually_exclusive_group()
    models.add_argument("--model", action="append", help="a test model for the model table (default: the first "
                        "quantized model of each network and form)")
    models.add_argument("--all-models", action="store_true", help="every quantized test model")
    models.add_argument("--no-models", action="store_true", help="skip the model table")
    arguments = parser.parse_args(argv)
    cases = [KERNELS[name]() for name in arguments.kernel or KERNELS]
    targets = [TARGETS[name] for name in arguments.target or DEFAULT_TARGETS]
    sys.path.insert(0, str(TESTS))  # the test-model catalogue: models.recipes
    from models.recipes import names

    if arguments.model:
        unknown = sorted(set(arguments.model) - set(names()))
        if unknown:
            parser.error(f"unknown test models: {', '.join(unknown)}")
    models = ([] if arguments.no_models else arguments.model or
              ([name for name in names() if not name.endswith("-float")] if arguments.all_models else default_models()))
    notes: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        root = arguments.workdir or Path(scratch)
        if not arguments.no_kernels:
            measure_kernels(cases, targets, root, notes)
            if not arguments.no_sizes:
                print()
                measure_sizes(cases, [TARGETS[COMPRESSED[target.name]] for target in targets], root, notes)
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
