"""ONNX nn ops: convolution, matrix products, pooling, normalization (conventions in `base.py`).

Float arithmetic: the reductions (Conv, Gemm, MatMul, AveragePool, GlobalAveragePool) and the
normalizations (BatchNormalization, LayerNormalization, InstanceNormalization, Softmax) compute
in float64 and round once to the input's float type. Products of two float32 (or float16)
values are exact in float64, and a float64 sum of n terms is off by at most n * 2**-53 of the
sum of their magnitudes, far below half a float32 ulp unless the terms cancel heavily: the
result is the correctly rounded value of the exact formula except in such cancellations or
when that value lies within the error of a rounding boundary. onnxruntime accumulates in
float32 in an order of its own (and approximates `exp`), so the two can differ in the last bits
of a float32 result.

The spatial ops (Conv, MaxPool, AveragePool) share `SlidingWindow`: the output shape and the
explicit padding that ONNX's `auto_pad`, `pads`, `strides`, `dilations` and `ceil_mode` define.
"""

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.dialects.builtin import I64, DenseArrayBase, Float32Type, FloatAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    AttrSizedResultSegments,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    opt_operand_def,
    opt_result_def,
    result_def,
)

from bitfold.dialects.evaluation import named_operands, numpy_dtype_of
from bitfold.dialects.onnx.base import OnnxOp, ints_or

ACCUMULATOR = np.float64
"""The type float reductions accumulate in before rounding once (see the module docstring;
`accumulating_in` changes it for a while)."""


@contextmanager
def accumulating_in(dtype: type[np.floating]) -> Iterator[None]:
    """Within the block, the float reductions and normalizations of this module compute in `dtype`
    instead of float64 (calibration's fast observation computes in float32 per op, as onnxruntime
    does: docs/calibration.md bounds the difference)."""
    global ACCUMULATOR
    previous, ACCUMULATOR = ACCUMULATOR, dtype
    try:
        yield
    finally:
        ACCUMULATOR = previous


def _round_to(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """`value` (computed in ACCUMULATOR) rounded to `dtype`, as an array (never a numpy scalar)."""
    return np.asarray(value).astype(dtype)


@dataclass(frozen=True)
class SlidingWindow:
    """A window sliding over the spatial axes (2, 3, ...) of an N x C x D1 x ... x Dn tensor.

    Output position `o` along spatial axis `i` reads the input positions
    `o * strides[i] - pads_begin[i] + j * dilations[i]` for `j` in `range(kernel[i])`;
    positions outside the input are padding.
    """

    input_shape: tuple[int, ...]
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    output_shape: tuple[int, ...]

    @staticmethod
    def from_op(
        op: OnnxOp, input_shape: Sequence[int], kernel: Sequence[int], ceil_mode: bool = False
    ) -> "SlidingWindow":
        """The window of `op`'s attributes (`from_attributes`)."""
        return SlidingWindow.from_attributes(op.attributes, input_shape, kernel, ceil_mode)

    @staticmethod
    def from_attributes(
        attributes: Mapping[str, Attribute], input_shape: Sequence[int], kernel: Sequence[int], ceil_mode: bool = False
    ) -> "SlidingWindow":
        """The window of the `auto_pad`, `pads`, `strides` and `dilations` attributes (absent
        ones are ONNX's defaults: no padding, stride 1, dilation 1) over `input_shape` (the
        spatial dimensions). Output sizes, with `extent = (kernel - 1) * dilation + 1`:
        - `SAME_UPPER` / `SAME_LOWER`: `ceil(in / stride)`, padded by
          `max(0, (out - 1) * stride + extent - in)` in total, the odd one at the end (UPPER) or
          at the beginning (LOWER);
        - `VALID` (no padding) and `NOTSET` (`pads`):
          `floor_or_ceil((in + pads - extent) / stride) + 1`, rounding up with `ceil_mode`; a
          last window that would then start in the end padding (at or after `in + pads_begin`)
          is dropped.
        """
        rank = len(input_shape)
        strides = ints_or(attributes, "strides", (1,) * rank)
        dilations = ints_or(attributes, "dilations", (1,) * rank)
        extents = _extents(kernel, dilations)
        auto_pad = attributes["auto_pad"]
        assert isinstance(auto_pad, StringAttr)
        auto_pad = auto_pad.data
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            output = [-(-size // s) for size, s in zip(input_shape, strides)]
            totals = [max(0, (o - 1) * s + e - size) for o, s, e, size in zip(output, strides, extents, input_shape)]
            begin = [t // 2 if auto_pad == "SAME_UPPER" else t - t // 2 for t in totals]
            end = [t - b for t, b in zip(totals, begin)]
        elif auto_pad in ("VALID", "NOTSET"):
            pads = (0,) * 2 * rank if auto_pad == "VALID" else ints_or(attributes, "pads", (0,) * 2 * rank)
            begin, end = list(pads[:rank]), list(pads[rank:])
            output = [
                _pooled_size(size, e, s, b, p, ceil_mode)
                for size, e, s, b, p in zip(input_shape, extents, strides, begin, end)
            ]
        else:
            raise ValueError(f"unknown auto_pad '{auto_pad}'")
        return SlidingWindow(
            tuple(input_shape), tuple(kernel), strides, dilations, tuple(begin), tuple(end), tuple(output)
        )

    @property
    def extents(self) -> list[int]:
        """The input span of one window along each axis."""
        return _extents(self.kernel, self.dilations)

    @property
    def pads_needed_at_end(self) -> list[int]:
        """The end padding every window reads (ceil_mode may need more than `pads`, or less)."""
        return [
            max(0, (o - 1) * s + e - size - b)
            for o, s, e, size, b in zip(
                self.output_shape, self.strides, self.extents, self.input_shape, self.pads_begin
            )
        ]

    @property
    def taps(self) -> int:
        """Number of input positions one window reads."""
        return math.prod(self.kernel)

    def windows(self, x: np.ndarray, fill: float | int, channels_last: bool = False) -> np.ndarray:
        """The windows of `x` (N x C x D1..Dn) as an N x C x O1..On x K1..Kn array: element
        `[n, c, o..., j...]` is the input at the position documented on the class, or `fill`
        outside the input. `channels_last`: x is N x D1..Dn x C and the windows N x O1..On x C x K1..Kn."""
        rank = len(self.kernel)
        first = 1 if channels_last else 2  # the first spatial axis
        pads = [(0, 0)] * x.ndim
        pads[first : first + rank] = zip(self.pads_begin, self.pads_needed_at_end)
        view = sliding_window_view(np.pad(x, pads, constant_values=fill), self.extents, axis=tuple(range(first, first + rank)))
        index: list[slice] = [slice(None)] * x.ndim
        index[first : first + rank] = (slice(0, (o - 1) * s + 1, s) for o, s in zip(self.output_shape, self.strides))
        return view[(*index, *(slice(None, None, d) for d in self.dilations))]

    def taps_inside(self, lower: Sequence[int], upper: Sequence[int]) -> np.ndarray:
        """Per output position (an O1 x ... x On int64 array), how many of its window's taps lie
        at positions `p` with `lower[i] <= p < upper[i]` along every spatial axis `i`."""
        counts = np.ones((), dtype=np.int64)
        for axis, (out, s, k, d) in enumerate(zip(self.output_shape, self.strides, self.kernel, self.dilations)):
            positions = (np.arange(out) * s - self.pads_begin[axis])[:, None] + np.arange(k) * d
            inside = ((positions >= lower[axis]) & (positions < upper[axis])).sum(axis=1)
            counts = np.multiply.outer(counts, inside)
        return counts


def _extents(kernel: Sequence[int], dilations: Sequence[int]) -> list[int]:
    """The input span of a dilated window along each axis: `(kernel - 1) * dilation + 1`."""
    return [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)]


def _pooled_size(size: int, extent: int, stride: int, begin: int, end: int, ceil_mode: bool) -> int:
    """Number of window positions along one axis (see `SlidingWindow.from_attributes`)."""
    span = size + begin + end - extent
    count = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (count - 1) * stride >= size + begin:
        count -= 1
    return count


class ConvolutionOp(OnnxOp):
    """The attributes of ONNX's convolutions (Conv, ConvInteger, QLinearConv) and the
    convolution they define (`convolve`)."""

    auto_pad = attr_def(StringAttr)
    dilations = opt_attr_def(DenseArrayBase[I64])
    group = attr_def(IntegerAttr[I64])
    kernel_shape = opt_attr_def(DenseArrayBase[I64])
    pads = opt_attr_def(DenseArrayBase[I64])
    strides = opt_attr_def(DenseArrayBase[I64])

    def convolve(self, x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> np.ndarray:
        """y[n, m, o...] = b[m] + sum over k < C/group and taps j... of
        x[n, g * C/group + k, o * strides - pads_begin + j * dilations] * w[m, k, j...], where
        g = m // (M/group) is m's group and x is zero outside the input (`SlidingWindow` of the
        attributes; kernel_shape, when given, equals K1..Kn): x is N x C x D1..Dn, w is
        M x C/group x K1..Kn, b (optional) has M elements. Computed in the arrays' common
        dtype (an im2col matrix product), which the caller chooses to be exact or wide enough."""
        window = SlidingWindow.from_op(self, x.shape[2:], ints_or(self.attributes, "kernel_shape", w.shape[2:]))
        groups = self.int_attr("group")
        batch, channels = x.shape[:2]
        out_channels = w.shape[0]
        if groups == channels:
            return _depthwise(window, x, w, b)
        # im2col on channels-last windows (the gathered rows copy C/group contiguous values at a
        # time), one matrix product per group over the whole batch:
        # (group, N * positions, taps * C/group) @ (group, taps * C/group, M/group)
        rank = len(window.output_shape)
        view = window.windows(np.moveaxis(x, 1, -1), 0, channels_last=True)  # N x O1..On x C x K1..Kn
        view = view.reshape(batch, *window.output_shape, groups, channels // groups, *window.kernel)
        axes = (1 + rank, 0, *range(1, 1 + rank), *range(3 + rank, 3 + 2 * rank), 2 + rank)
        columns = view.transpose(axes).reshape(groups, batch * math.prod(window.output_shape), -1)
        kernels = w.reshape(groups, out_channels // groups, channels // groups, window.taps).transpose(0, 3, 2, 1)
        y = np.matmul(columns, kernels.reshape(groups, -1, out_channels // groups))
        y = y.reshape(groups, batch, -1, out_channels // groups).transpose(1, 0, 3, 2)
        y = y.reshape(batch, out_channels, *window.output_shape)
        if b is not None:
            y = y + b.reshape(out_channels, *(1,) * len(window.output_shape))
        return y


def _depthwise(window: SlidingWindow, x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> np.ndarray:
    """`ConvolutionOp.convolve` with one input channel a group (depthwise, M = C x multiplier):
    y[n, m, o...] = b[m] + sum over taps j... of x[n, m // multiplier, o * strides - pads_begin +
    j * dilations] * w[m, 0, j...], summed tap by tap in row-major order over strided channels-last
    views of x (an im2col matrix product whose inner dimension is the taps alone is memory-bound;
    channels last keep numpy's inner loops long where the rows are short)."""
    out_channels = w.shape[0]
    if out_channels != x.shape[1]:
        x = np.repeat(x, out_channels // x.shape[1], axis=1)
    view = window.windows(np.moveaxis(x, 1, -1), 0, channels_last=True)  # N x O1..On x M x K1..Kn
    taps = w.reshape(out_channels, window.taps)
    y = np.zeros((x.shape[0], *window.output_shape, out_channels), np.result_type(x, w))
    for j, tap in enumerate(np.ndindex(*window.kernel)):
        y += view[(..., slice(None), *tap)] * taps[:, j]
    if b is not None:
        y += b
    return np.moveaxis(y, -1, 1)


@irdl_op_definition
class ConvOp(ConvolutionOp):
    """Y = `ConvolutionOp.convolve(X, W, B)`: `group == C` is a depthwise convolution. Float64
    accumulation, rounded once (module docstring)."""

    name = "onnx.Conv"
    x = operand_def()
    w = operand_def()
    b = opt_operand_def()
    y = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        x, w, b = (None if values[n] is None else values[n].astype(ACCUMULATOR) for n in ("x", "w", "b"))
        return (_round_to(self.convolve(x, w, b), values["x"].dtype),)


@irdl_op_definition
class GemmOp(OnnxOp):
    """Y = alpha * A' @ B' + beta * C, where A' is A (M x K) or its transpose if transA, B' is
    B (K x N) or its transpose if transB, and C (optional) broadcasts to M x N. Float64
    accumulation, rounded once (module docstring). Float types only."""

    name = "onnx.Gemm"
    a = operand_def()
    b = operand_def()
    c = opt_operand_def()
    y = result_def()

    alpha = attr_def(FloatAttr[Float32Type])
    beta = attr_def(FloatAttr[Float32Type])
    trans_a = attr_def(IntegerAttr[I64], attr_name="transA")
    trans_b = attr_def(IntegerAttr[I64], attr_name="transB")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        dtype = values["a"].dtype
        if not np.issubdtype(dtype, np.floating):
            raise NotImplementedError(f"{self.name}: {dtype} inputs (only float Gemm has a reference)")
        a, b = (values[name].astype(ACCUMULATOR) for name in ("a", "b"))
        a = a.T if self.int_attr("transA") else a
        b = b.T if self.int_attr("transB") else b
        y = self.float_attr("alpha") * (a @ b)
        if values["c"] is not None:
            y = y + self.float_attr("beta") * values["c"].astype(ACCUMULATOR)
        return (_round_to(y, dtype),)


@irdl_op_definition
class MatMulOp(OnnxOp):
    """Y = A @ B with numpy.matmul semantics (1-D operands are promoted and the added axis
    removed, leading axes broadcast). Floats: float64 accumulation, rounded once (module
    docstring); integers: computed in their own type, wrapping around on overflow."""

    name = "onnx.MatMul"
    a = operand_def()
    b = operand_def()
    y = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        a, b = operands
        if not np.issubdtype(a.dtype, np.floating):
            return (np.asarray(np.matmul(a, b)),)
        return (_round_to(np.matmul(a.astype(ACCUMULATOR), b.astype(ACCUMULATOR)), a.dtype),)


def _lowest(dtype: np.dtype) -> float | int:
    """The value below or equal to every value of `dtype`: -inf for floats."""
    return -np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


class PoolingOp(OnnxOp):
    """The window attributes every pooling op shares (`SlidingWindow.from_op` reads them)."""

    x = operand_def()
    y = result_def()

    auto_pad = attr_def(StringAttr)
    ceil_mode = attr_def(IntegerAttr[I64])
    dilations = opt_attr_def(DenseArrayBase[I64])
    kernel_shape = attr_def(DenseArrayBase[I64])
    pads = opt_attr_def(DenseArrayBase[I64])
    strides = opt_attr_def(DenseArrayBase[I64])


@irdl_op_definition
class MaxPoolOp(PoolingOp):
    """Y[n, c, o...] = max of X[n, c, p...] over the window positions p of output o that lie in
    the input (`SlidingWindow`, with ceil_mode). Indices (optional, int64) is the flat index
    of the first such maximum in window order, `(n * C + c) * D1 * ... * Dn + q`, where q is the
    position's row-major index over D1..Dn, or column-major when storage_order is 1."""

    name = "onnx.MaxPool"
    y = result_def()  # declared again: IRDL orders a subclass's definitions before its base's
    indices = opt_result_def()
    storage_order = attr_def(IntegerAttr[I64])

    irdl_options = (AttrSizedResultSegments(as_property=True),)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        spatial = x.shape[2:]
        window = SlidingWindow.from_op(self, spatial, self.ints_attr("kernel_shape"), bool(self.int_attr("ceil_mode")))
        taps = window.windows(x, _lowest(x.dtype)).reshape(*x.shape[:2], *window.output_shape, window.taps)
        y = taps.max(axis=-1)
        if self.indices is None:
            return (y,)
        order = "F" if self.int_attr("storage_order") else "C"
        positions = np.arange(math.prod(spatial), dtype=np.int64).reshape(spatial, order=order)
        tap_positions = window.windows(positions[None, None], -1).reshape(*window.output_shape, window.taps)
        first_max = ((taps == y[..., None]) & (tap_positions >= 0)).argmax(axis=-1)
        index = np.take_along_axis(np.broadcast_to(tap_positions, taps.shape), first_max[..., None], axis=-1)[..., 0]
        plane = np.arange(x.shape[0] * x.shape[1], dtype=np.int64).reshape(*x.shape[:2], *(1,) * len(spatial))
        return (y, index + plane * math.prod(spatial))


@irdl_op_definition
class AveragePoolOp(PoolingOp):
    """Y[n, c, o...] = (sum of X[n, c, p...] over the window positions p of output o that lie
    in the input) / count (`SlidingWindow`, with ceil_mode), where count is the number of those
    positions, or with count_include_pad the number of positions inside the input extended by
    `pads` (window parts beyond the explicit padding, from ceil_mode, never count). Float64
    accumulation, rounded once (module docstring)."""

    name = "onnx.AveragePool"
    count_include_pad = attr_def(IntegerAttr[I64])

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        spatial = x.shape[2:]
        window = SlidingWindow.from_op(self, spatial, self.ints_attr("kernel_shape"), bool(self.int_attr("ceil_mode")))
        sums = window.windows(x.astype(ACCUMULATOR), 0.0).reshape(*x.shape[:2], *window.output_shape, -1).sum(-1)
        if self.int_attr("count_include_pad"):
            lower = [-b for b in window.pads_begin]
            upper = [size + e for size, e in zip(spatial, window.pads_end)]
        else:
            lower, upper = [0] * len(spatial), list(spatial)
        return (_round_to(sums / window.taps_inside(lower, upper), x.dtype),)


@irdl_op_definition
class GlobalAveragePoolOp(OnnxOp):
    """Y[n, c, 1, ..., 1] = mean of X[n, c, ...] over all spatial positions. Float64
    accumulation, rounded once (module docstring)."""

    name = "onnx.GlobalAveragePool"
    x = operand_def()
    y = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        spatial_axes = tuple(range(2, x.ndim))
        return (_round_to(x.astype(ACCUMULATOR).mean(axis=spatial_axes, keepdims=True), x.dtype),)


@irdl_op_definition
class BatchNormalizationOp(OnnxOp):
    """Inference form (training_mode 0): Y[n, c, ...] = (X[n, c, ...] - input_mean[c]) /
    sqrt(input_var[c] + epsilon) * scale[c] + B[c], computed in float64 and rounded once to X's
    type. The training outputs running_mean and running_var are declared but have no reference
    (training_mode 1 is an error); momentum only matters in training."""

    name = "onnx.BatchNormalization"
    x = operand_def()
    scale = operand_def()
    b = operand_def()
    input_mean = operand_def()
    input_var = operand_def()
    y = result_def()
    running_mean = opt_result_def()
    running_var = opt_result_def()

    epsilon = attr_def(FloatAttr[Float32Type])
    momentum = attr_def(FloatAttr[Float32Type])
    training_mode = attr_def(IntegerAttr[I64])

    irdl_options = (AttrSizedResultSegments(as_property=True),)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        if self.int_attr("training_mode") or self.running_mean is not None or self.running_var is not None:
            raise NotImplementedError(f"{self.name}: training mode has no reference (inference form only)")
        x, scale, b, mean, var = operands
        per_channel = (-1, *(1,) * (x.ndim - 2))
        scale, b, mean, var = (p.astype(ACCUMULATOR).reshape(per_channel) for p in (scale, b, mean, var))
        epsilon = self.float_attr("epsilon")
        y = (x.astype(ACCUMULATOR) - mean) / np.sqrt(var + epsilon) * scale + b
        return (_round_to(y, x.dtype),)


@irdl_op_definition
class SoftmaxOp(OnnxOp):
    """output = exp(input - m) / sum(exp(input - m)) along `axis` (negative counts from the
    end), m the maximum along `axis` (opset 13 semantics), computed in float64 and rounded once
    to the input's type."""

    name = "onnx.Softmax"
    input = operand_def()
    output = result_def()

    axis = attr_def(IntegerAttr[I64])

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        axis = self.int_attr("axis")
        wide = x.astype(ACCUMULATOR)
        exp = np.exp(wide - wide.max(axis=axis, keepdims=True))
        return (_round_to(exp / exp.sum(axis=axis, keepdims=True), x.dtype),)


@irdl_op_definition
class LayerNormalizationOp(OnnxOp):
    """Normalization over the axes from `axis` (negative counts from the end) to the last:
    Mean = mean of X over them, InvStdDev = 1 / sqrt(mean of (X - Mean)**2 + epsilon),
    Y = (X - Mean) * InvStdDev * Scale + B (Scale and B broadcast to the normalized axes, B
    optional). Mean and InvStdDev (optional outputs) keep the reduced axes with size 1; they
    are of `stash_type`'s precision, which the result types carry. Computed in float64 and
    rounded once to each result's type (module docstring)."""

    name = "onnx.LayerNormalization"
    x = operand_def()
    scale = operand_def()
    b = opt_operand_def()
    y = result_def()
    mean = opt_result_def()
    inv_std_dev = opt_result_def()

    axis = attr_def(IntegerAttr[I64])
    epsilon = attr_def(FloatAttr[Float32Type])
    stash_type = attr_def(IntegerAttr[I64])

    irdl_options = (AttrSizedOperandSegments(as_property=True), AttrSizedResultSegments(as_property=True))

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        x = values["x"]
        axis = self.int_attr("axis")
        axes = tuple(range(axis % x.ndim if x.ndim else 0, x.ndim))
        wide = x.astype(ACCUMULATOR)
        mean = wide.mean(axis=axes, keepdims=True)
        inv_std_dev = 1 / np.sqrt(((wide - mean) ** 2).mean(axis=axes, keepdims=True) + self.float_attr("epsilon"))
        y = (wide - mean) * inv_std_dev * values["scale"].astype(ACCUMULATOR)
        if values["b"] is not None:
            y = y + values["b"].astype(ACCUMULATOR)
        outputs = [(y, self.y), (mean, self.mean), (inv_std_dev, self.inv_std_dev)]
        return tuple(_round_to(value, numpy_dtype_of(result.type)) for value, result in outputs if result is not None)


@irdl_op_definition
class InstanceNormalizationOp(OnnxOp):
    """output[n, c, ...] = (input[n, c, ...] - mean) / sqrt(variance + epsilon) * scale[c] + B[c],
    mean and variance (biased) over the spatial positions of input[n, c]. Computed in float64
    and rounded once to the input's type (module docstring)."""

    name = "onnx.InstanceNormalization"
    input = operand_def()
    scale = operand_def()
    b = operand_def()
    output = result_def()

    epsilon = attr_def(FloatAttr[Float32Type])

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        x, scale, b = operands
        spatial = tuple(range(2, x.ndim))
        per_channel = (-1, *(1,) * (x.ndim - 2))
        wide = x.astype(ACCUMULATOR)
        mean = wide.mean(axis=spatial, keepdims=True)
        variance = ((wide - mean) ** 2).mean(axis=spatial, keepdims=True)
        y = (wide - mean) / np.sqrt(variance + self.float_attr("epsilon"))
        y = y * scale.astype(ACCUMULATOR).reshape(per_channel) + b.astype(ACCUMULATOR).reshape(per_channel)
        return (_round_to(y, x.dtype),)


OPS = [
    ConvOp,
    GemmOp,
    MatMulOp,
    MaxPoolOp,
    AveragePoolOp,
    GlobalAveragePoolOp,
    BatchNormalizationOp,
    SoftmaxOp,
    LayerNormalizationOp,
    InstanceNormalizationOp,
]
