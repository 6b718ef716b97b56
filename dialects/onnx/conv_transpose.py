"""`onnx.ConvTranspose`: the transpose (gradient) of a convolution, and its geometry
(`TransposedWindow`), which its reference and `passes/onnx_conv_transpose_to_conv.py` share."""

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import I64, DenseArrayBase, IntegerAttr, StringAttr
from xdsl.irdl import (
    AttrSizedOperandSegments,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    opt_operand_def,
    result_def,
)

from bitfold.dialects.evaluation import named_operands
from bitfold.dialects.onnx.base import OnnxOp, ints_or
from bitfold.dialects.onnx.nn import ACCUMULATOR


@dataclass(frozen=True)
class TransposedWindow:
    """Per spatial axis of a ConvTranspose: input i scatters to the full output positions
    i * stride + j * dilation (j < kernel) of a full length (in - 1) * stride + extent +
    output_padding (extent = (kernel - 1) * dilation + 1); the output is the full output from
    pads_begin on, `output` long (a negative pad, or output_padding, reads zeros)."""

    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    kernel: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    output_padding: tuple[int, ...]
    output: tuple[int, ...]

    @staticmethod
    def from_op(op: OnnxOp, input_shape: Sequence[int], kernel: Sequence[int]) -> "TransposedWindow":
        """ONNX's rules: with `output_shape`, or auto_pad SAME_UPPER / SAME_LOWER (output
        in * stride), the total padding is full length - output, split in halves with the odd
        one at the begin (SAME_UPPER: at the end); auto_pad VALID pads nothing; else `pads`."""
        rank = len(input_shape)
        strides = ints_or(op.attributes, "strides", (1,) * rank)
        dilations = ints_or(op.attributes, "dilations", (1,) * rank)
        output_padding = ints_or(op.attributes, "output_padding", (0,) * rank)
        full = [(i - 1) * s + (k - 1) * d + 1 + p for i, s, k, d, p in
                zip(input_shape, strides, kernel, dilations, output_padding)]  # fmt: skip
        auto_pad = op.string_attr("auto_pad")
        target = ints_or(op.attributes, "output_shape", ())
        if auto_pad in ("SAME_UPPER", "SAME_LOWER") and not target:
            target = tuple(i * s for i, s in zip(input_shape, strides))
        if target:
            target = target[-rank:]
            totals = [f - t for f, t in zip(full, target)]
            end = [t // 2 if auto_pad != "SAME_UPPER" else t - t // 2 for t in totals]
            begin = [t - e for t, e in zip(totals, end)]
        elif auto_pad == "VALID":
            begin, end = [0] * rank, [0] * rank
        elif auto_pad == "NOTSET":
            pads = ints_or(op.attributes, "pads", (0,) * 2 * rank)
            begin, end = list(pads[:rank]), list(pads[rank:])
        else:
            raise ValueError(f"unknown auto_pad '{auto_pad}'")
        output = tuple(f - b - e for f, b, e in zip(full, begin, end))
        if min(output, default=1) < 1:
            raise ValueError(f"output shape {list(output)} is empty")
        return TransposedWindow(strides, dilations, tuple(kernel), tuple(begin), tuple(end), output_padding, output)


@irdl_op_definition
class ConvTransposeOp(OnnxOp):
    """Y[n, g * M/group + m, o...] = B[g * M/group + m] + sum over c < C/group, i..., j... with
    o = i * strides + j * dilations - pads_begin of X[n, g * C/group + c, i...] *
    W[g * C/group + c, m, j...]: X is N x C x D1..Dn, W is C x M/group x K1..Kn, B (optional)
    has M elements; output sizes and padding as `TransposedWindow`. Float64 accumulation,
    rounded once (as `nn.py`'s module docstring)."""

    name = "onnx.ConvTranspose"
    x = operand_def()
    w = operand_def()
    b = opt_operand_def()
    y = result_def()

    auto_pad = attr_def(StringAttr)
    dilations = opt_attr_def(DenseArrayBase[I64])
    group = attr_def(IntegerAttr[I64])
    kernel_shape = opt_attr_def(DenseArrayBase[I64])
    output_padding = opt_attr_def(DenseArrayBase[I64])
    output_shape = opt_attr_def(DenseArrayBase[I64])
    pads = opt_attr_def(DenseArrayBase[I64])
    strides = opt_attr_def(DenseArrayBase[I64])

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def window(self, input_shape: Sequence[int], kernel: Sequence[int]) -> TransposedWindow:
        return TransposedWindow.from_op(self, input_shape, ints_or(self.attributes, "kernel_shape", kernel))

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        x, w = values["x"].astype(ACCUMULATOR), values["w"].astype(ACCUMULATOR)
        window = self.window(x.shape[2:], w.shape[2:])
        groups = self.int_attr("group")
        (batch, channels), spatial = x.shape[:2], x.shape[2:]
        per_group = w.shape[1]
        # the full output, long enough for every kept position (output_padding, negative end pads)
        natural = [(i - 1) * s + (k - 1) * d + 1 for i, s, k, d in
                   zip(spatial, window.strides, window.kernel, window.dilations)]  # fmt: skip
        full = [max(b + o, n) for b, o, n in zip(window.pads_begin, window.output, natural)]
        shift = [max(0, -b) for b in window.pads_begin]  # a negative begin pad: zeros before the full output
        y = np.zeros((batch, groups, per_group, *(f + s for f, s in zip(full, shift))), ACCUMULATOR)
        grouped_x = x.reshape(batch, groups, channels // groups, math.prod(spatial))
        grouped_w = w.reshape(groups, channels // groups, per_group, math.prod(window.kernel))
        for tap, j in enumerate(itertools.product(*(range(k) for k in window.kernel))):
            contribution = np.einsum("ngcp,gcm->ngmp", grouped_x, grouped_w[..., tap])
            target = tuple(slice(sh + jj * d, sh + jj * d + (i - 1) * s + 1, s) for sh, jj, d, i, s in
                           zip(shift, j, window.dilations, spatial, window.strides))  # fmt: skip
            y[(slice(None), slice(None), slice(None), *target)] += contribution.reshape(
                batch, groups, per_group, *spatial)
        kept = tuple(slice(b + sh, b + sh + o) for b, sh, o in zip(window.pads_begin, shift, window.output))
        y = y[(slice(None), slice(None), slice(None), *kept)].reshape(batch, groups * per_group, *window.output)
        if values["b"] is not None:
            y = y + values["b"].astype(ACCUMULATOR).reshape(-1, *(1,) * len(spatial))
        return (np.asarray(y).astype(values["x"].dtype),)


OPS = [ConvTransposeOp]
