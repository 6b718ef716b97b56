"""`onnx-conv-transpose-to-conv`: every `onnx.ConvTranspose` with constant weights (a float
constant, or a DequantizeLinear of a constant per tensor or per output channel) becomes a Conv
of stride 1 over its input with zeros inserted (exact: a sum of the same products, the inserted
zeros adding nothing), so Conv's quant, integer and float forms apply:

    ConvTranspose(x, W, B)      x: N x C x D..., W: C x M/g x K..., strides s, dilations d
    ->  u = x with s - 1 zeros after each element along each spatial axis (Reshape to
            N x C x D1 x 1 x ..., Pad the unit axes to s, Reshape to N x C x D1 s1 x ...)
        v = Pad(u, begin (K - 1) d - pads_begin, end (K - 1) d - pads_end + output_padding
            - (s - 1)) (negative pads crop)
        Conv(v, W', B, dilations d, group g)  W'[g M/g + m, c, j] = W[g C/g + c, m, K - 1 - j]

A DequantizeLinear weight is rewritten on its stored integers: a per-channel scale (axis 1 of
W, M/g entries) is repeated for each group (axis 0 of W'). Other weights (QONNX's Quant of a
constant, QCDQ's Q -> Clip -> DQ) are moved by ops, W' = Slice(Transpose(W)) reversing the
kernel (with groups, Reshape to g x C/g x M/g x K... around the Transpose); onnx-to-quant then
folds the movement into the quantized constant (not for per-channel weights with groups: the
Reshape back merges the group axis into the quantized one, so they stay float, a float island).
The Conv reads s^D times the inputs ConvTranspose does, most of them the inserted zeros.
Per-input-channel or blocked weights fail the pass with one line naming the node."""

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, StringAttr, TensorType, i32, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from bitfold.dialects.onnx.constant import ConstantOp, constant_array, dense_attr
from bitfold.dialects.onnx.conv_transpose import ConvTransposeOp
from bitfold.dialects.onnx.nn import ConvOp
from bitfold.dialects.onnx.quantization import DequantizeLinearOp
from bitfold.dialects.onnx.shape import PadOp, ReshapeOp, SliceOp, TransposeOp
from bitfold.passes.utils.pass_failure import fail

PASS_NAME = "onnx-conv-transpose-to-conv"


def conv_weights(w: np.ndarray, groups: int) -> np.ndarray:
    """W' of the module docstring: C x M/g x K... -> M x C/g x K..., kernel flipped."""
    channels, per_group, *kernel = w.shape
    grouped = w.reshape(groups, channels // groups, per_group, *kernel).swapaxes(1, 2)
    return np.flip(grouped.reshape(groups * per_group, channels // groups, *kernel), axis=tuple(range(2, w.ndim)))


class _Builder:
    """Inserts onnx ops before `op`, each located at `op`'s node."""

    def __init__(self, rewriter: PatternRewriter, op: Operation):
        self.rewriter, self.op = rewriter, op

    def insert(self, new: Operation) -> Operation:
        new.location = self.op.location
        self.rewriter.insert(new)
        return new

    def constant(self, array: np.ndarray, element) -> SSAValue:
        value = dense_attr(array, element)
        return self.insert(ConstantOp.create(attributes={"value": value}, result_types=[value.type])).results[0]

    def reshape(self, value: SSAValue, shape: list[int]) -> SSAValue:
        shape_value = self.constant(np.array(shape, np.int64), i64)
        reshape = ReshapeOp.create(operands=[value, shape_value], attributes={"allowzero": IntegerAttr(0, i64)},
                                   result_types=[TensorType(value.type.element_type, shape)])  # fmt: skip
        return self.insert(reshape).results[0]

    def transposed(self, value: SSAValue, perm: list[int]) -> SSAValue:
        shape = list(value.type.get_shape())
        transpose = TransposeOp.create(operands=[value], attributes={"perm": DenseArrayBase.from_list(i64, perm)},
                                       result_types=[TensorType(value.type.element_type, [shape[p] for p in perm])])
        return self.insert(transpose).results[0]

    def regrouped(self, value: SSAValue, groups: int) -> SSAValue:
        """C x M/g x K... -> M x C/g x K...: the two channel axes swapped within each group (at one
        group a plain Transpose, else Reshape to g x C/g x M/g x K..., Transpose, Reshape)."""
        channels, per_group, *kernel = value.type.get_shape()
        spatial = list(range(2, 2 + len(kernel)))
        if groups == 1:
            return self.transposed(value, [1, 0, *spatial])
        grouped = self.reshape(value, [groups, channels // groups, per_group, *kernel])
        swapped = self.transposed(grouped, [0, 2, 1, *(a + 1 for a in spatial)])
        return self.reshape(swapped, [groups * per_group, channels // groups, *kernel])

    def flipped(self, value: SSAValue) -> SSAValue:
        """value reversed along its axes from 2 on (a Slice of step -1)."""
        rank = len(value.type.get_shape())
        spatial = np.arange(2, rank, dtype=np.int64)
        operands = [value, self.constant(np.full(rank - 2, -1, np.int64), i64),
                    self.constant(np.full(rank - 2, np.iinfo(np.int64).min, np.int64), i64),
                    self.constant(spatial, i64), self.constant(np.full(rank - 2, -1, np.int64), i64)]  # fmt: skip
        slice_op = SliceOp.create(operands=operands, result_types=[value.type],
                                  properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 1, 1, 1, 1])})
        return self.insert(slice_op).results[0]

    def pad(self, value: SSAValue, begin: list[int], end: list[int]) -> SSAValue:
        element = value.type.element_type
        shape = [size + b + e for size, b, e in zip(value.type.get_shape(), begin, end)]
        pad = PadOp.create(
            operands=[value, self.constant(np.array(begin + end, np.int64), i64),
                      self.constant(np.zeros((), np.float64), element)],
            properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 1, 1, 0])},
            attributes={"mode": StringAttr("constant")},
            result_types=[TensorType(element, shape)],
        )  # fmt: skip
        return self.insert(pad).results[0]


def _rewritten_weights(op: ConvTransposeOp, build: _Builder, groups: int) -> SSAValue:
    """W' (module docstring) as a new constant, or a DequantizeLinear of one."""
    if (w := constant_array(op.w)) is not None:
        return build.constant(conv_weights(w, groups), op.w.type.element_type)
    dequantize = op.w.owner
    if not isinstance(dequantize, DequantizeLinearOp) or (stored := constant_array(dequantize.x)) is None:
        return build.flipped(build.regrouped(op.w, groups))
    if dequantize.int_attr("block_size"):
        fail(PASS_NAME, op, "blocked weight quantization is not supported")
    parameters = [constant_array(v) for v in (dequantize.x_scale, dequantize.x_zero_point) if v is not None]
    if any(p is None for p in parameters):
        fail(PASS_NAME, op, "the weights' scale and zero point must be constants")
    per_channel = any(p.size > 1 for p in parameters)
    if per_channel and dequantize.int_attr("axis") % stored.ndim != 1:
        fail(PASS_NAME, op, "per-channel weights must be quantized along axis 1 (output channels)")
    operands = [build.constant(conv_weights(stored, groups), dequantize.x.type.element_type)]
    for value, array in zip((dequantize.x_scale, dequantize.x_zero_point), parameters):
        array = np.tile(array, groups) if per_channel else array
        operands.append(build.constant(array, value.type.element_type))
    shape = [stored.shape[1] * groups, stored.shape[0] // groups, *stored.shape[2:]]
    new = DequantizeLinearOp.create(
        operands=operands,
        properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 1, len(operands) - 2])},
        attributes=dict(dequantize.attributes) | {"axis": IntegerAttr(0, i64)},
        result_types=[TensorType(op.w.type.element_type, shape)],
    )
    return build.insert(new).results[0]


def _zeros_inserted(build: _Builder, x: SSAValue, strides: tuple[int, ...]) -> SSAValue:
    """u of the module docstring (x itself at stride 1)."""
    if all(s == 1 for s in strides):
        return x
    batch, channels, *spatial = x.type.get_shape()
    unit_axes = [batch, channels, *(d for size in spatial for d in (size, 1))]
    widened = build.pad(build.reshape(x, unit_axes), [0] * len(unit_axes),
                        [0, 0, *(e for s in strides for e in (0, s - 1))])  # fmt: skip
    return build.reshape(widened, [batch, channels, *(size * s for size, s in zip(spatial, strides))])


class ConvTransposeAsConv(RewritePattern):
    """ConvTranspose -> Reshape, Pad, Reshape, Pad, Conv (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConvTransposeOp, rewriter: PatternRewriter) -> None:
        x_type, w_type = op.x.type, op.w.type
        if not (isinstance(x_type, TensorType) and x_type.has_static_shape() and isinstance(w_type, TensorType)):
            fail(PASS_NAME, op, "needs static input and weight shapes")
        build = _Builder(rewriter, op)
        groups = op.int_attr("group")
        spatial = x_type.get_shape()[2:]
        window = op.window(spatial, w_type.get_shape()[2:])
        weights = _rewritten_weights(op, build, groups)
        inserted = _zeros_inserted(build, op.x, window.strides)
        reach = [(k - 1) * d for k, d in zip(window.kernel, window.dilations)]
        begin = [r - b for r, b in zip(reach, window.pads_begin)]
        end = [r - e + p - (s - 1) for r, e, p, s in zip(reach, window.pads_end, window.output_padding, window.strides)]
        padded = build.pad(inserted, [0, 0, *begin], [0, 0, *end]) if any(begin + end) else inserted
        rank = len(spatial)
        conv = ConvOp.create(
            operands=[padded, weights, *([op.b] if op.b is not None else [])],
            properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 1, int(op.b is not None)])},
            attributes={
                "auto_pad": StringAttr("NOTSET"),
                "group": IntegerAttr(groups, i64),
                "dilations": DenseArrayBase.from_list(i64, list(window.dilations)),
                "kernel_shape": DenseArrayBase.from_list(i64, list(window.kernel)),
                "pads": DenseArrayBase.from_list(i64, [0] * 2 * rank),
                "strides": DenseArrayBase.from_list(i64, [1] * rank),
            },
            result_types=[op.y.type],
        )
        conv.location = op.location
        rewriter.replace(op, conv)


@dataclass(frozen=True)
class OnnxConvTransposeToConvPass(ModulePass):
    """Every ConvTranspose becomes a Conv over its zero-inserted input (module docstring)."""

    name = PASS_NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ConvTransposeAsConv(), apply_recursively=False).rewrite_module(op)
