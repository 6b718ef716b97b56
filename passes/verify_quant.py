"""`verify-quant`: a report on the quantization of a module in canonical quant form. It
reads the IR, never rewrites it, and never fails: each finding is a line the user reads."""

import math
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TextIO

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from bitfold.dialects import quant
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.elementwise import AddOp
from bitfold.dialects.onnx.nn import ConvOp, GemmOp, MatMulOp
from bitfold.dialects.onnx.shape import ConcatOp
from bitfold.passes.utils.quant_casts import dequantized_type, quantize_users, static_shape, stored_constant

INT32_MAX = 2**31 - 1
"""Largest value an int32 accumulator holds."""


class FindingKind(StrEnum):
    MIXED_QUANTIZATION = "mixed quantization"
    SCALE_MISMATCH = "scale mismatch"
    ACCUMULATOR_OVERFLOW = "accumulator overflow"


@dataclass(frozen=True)
class Finding:
    """One reported problem: what kind, where (a node or an op and its result), and why."""

    kind: FindingKind
    where: str
    message: str

    def __str__(self) -> str:
        return f"verify-quant: {self.where}: {self.message}"


def describe_op(op: Operation) -> str:
    """`node 'conv3' (onnx.Conv)` for an onnx op with a node name (its NameLoc), else
    `op quant.requant` with its first result (`%r`) where it has a name."""
    if isinstance(op, OnnxOp) and op.node_name != op.name:
        return f"node '{op.node_name}' ({op.name})"
    hint = op.results[0].name_hint if op.results else None
    return f"op {op.name}" + (f" (result %{hint})" if hint else "")


def describe_value(value: SSAValue) -> str:
    """The op producing `value` (`describe_op`), or `argument %x`."""
    if isinstance(value.owner, Block):
        return f"argument %{value.name_hint or value.index}"
    return describe_op(value.owner)


def _values(module: ModuleOp) -> Iterator[SSAValue]:
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                yield from block.args
        yield from op.results


def mixed_quantizations(module: ModuleOp) -> Iterator[Finding]:
    """A float value that its users quantize (qcast) to more than one type."""
    for value in _values(module):
        types = sorted({str(quant.element_type(q.result.type)) for q in quantize_users(value)})
        if len(types) > 1:
            listed = ", ".join(types)
            yield Finding(
                FindingKind.MIXED_QUANTIZATION,
                describe_value(value),
                f"value quantized to {len(types)} different types: {listed}",
            )


def scale_mismatches(module: ModuleOp) -> Iterator[Finding]:
    """A Concat or an Add whose dequantized inputs have different scales (the integer form
    must rescale all but one of them)."""
    for op in module.walk():
        if not isinstance(op, (ConcatOp, AddOp)):
            continue
        scales = {t.scale_values() for value in op.operands if (t := dequantized_type(value)) is not None}
        if len(scales) > 1:
            listed = ", ".join("/".join(f"{s:g}" for s in values) for values in sorted(scales))
            yield Finding(FindingKind.SCALE_MISMATCH, describe_op(op), f"input scales disagree: {listed}")


def _bit_width(quantized: quant.QuantizedType) -> int:
    return getattr(quantized, "bit_width", 1)


def _bias_bound(bias: SSAValue | None) -> int:
    """Worst |bias - zero_point| in accumulator units: from the stored constant where the
    bias is one, else its storage range; 0 without a quantized bias."""
    quantized = None if bias is None else dequantized_type(bias)
    if quantized is None:
        return 0
    stored = stored_constant(bias)
    if stored is None:
        return quantized.largest_offset()
    _, zero_points = quantized.parameter_arrays(stored.shape)
    return int(np.abs(stored.astype(np.int64) - zero_points).max(initial=0))


def _reduction(op: Operation) -> tuple[SSAValue, SSAValue, SSAValue | None, int, str] | None:
    """(input, weight, bias, K, K as a product) of an op accumulating K products per output:
    Conv K = Cin/group * kh * kw ("3x3x512"), Gemm and MatMul K = the inner dimension."""
    if isinstance(op, ConvOp) and (w_shape := static_shape(op.w)) is not None:
        factors = [*w_shape[2:], w_shape[1]]
        return op.x, op.w, op.b, math.prod(factors), "x".join(map(str, factors))
    if isinstance(op, GemmOp) and (a_shape := static_shape(op.a)) is not None:
        k = a_shape[0] if op.int_attr("transA") else a_shape[1]
        return op.a, op.b, op.c, k, str(k)
    if isinstance(op, MatMulOp) and (a_shape := static_shape(op.a)) is not None:
        return op.a, op.b, None, a_shape[-1], str(a_shape[-1])
    return None


def accumulator_overflows(module: ModuleOp) -> Iterator[Finding]:
    """A Conv / Gemm / MatMul on dequantized inputs whose int32 accumulator can overflow:
    |x - zp_x| * |w - zp_w| * K + |bias| > INT32_MAX, the offsets at their storage ranges'
    worst and the bias at its constant's worst (or its range)."""
    for op in module.walk():
        if (reduction := _reduction(op)) is None:
            continue
        x, w, bias, k, product = reduction
        x_type, w_type = dequantized_type(x), dequantized_type(w)
        if x_type is None or w_type is None:
            continue
        worst = x_type.largest_offset() * w_type.largest_offset() * k + _bias_bound(bias)
        if worst > INT32_MAX:
            yield Finding(
                FindingKind.ACCUMULATOR_OVERFLOW,
                describe_op(op),
                f"int32 accumulator can overflow: {product} products of {_bit_width(x_type)}-bit x "
                f"{_bit_width(w_type)}-bit values reach 2^{math.log2(worst):.1f}",
            )


CHECKS = (mixed_quantizations, scale_mismatches, accumulator_overflows)
"""Every check, in report order."""


def summary(findings: list[Finding]) -> str:
    """`verify-quant: 3 findings (2 accumulator overflow, 1 scale mismatch)`, or no findings."""
    if not findings:
        return "verify-quant: no findings"
    counts = Counter(f.kind for f in findings)
    parts = ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items()))
    return f"verify-quant: {len(findings)} finding{'s' if len(findings) != 1 else ''} ({parts})"


@dataclass(frozen=True)
class VerifyQuantPass(ModulePass):
    """Report, without rewriting or failing, per node: a value quantized to two different
    types, Concat / Add inputs with different scales, an int32 accumulator that can overflow
    (Conv, Gemm, MatMul). Zero points outside their storage range cannot occur: every way of
    building a uniform type (parser, `get`, `new`) verifies them, requant result types
    included, so there is nothing left to report. Each finding is a line
    `verify-quant: <where>: <what>` on `stream` (stderr by default), then a summary line;
    `findings` holds them after `apply`."""

    name = "verify-quant"

    stream: TextIO | None = None
    findings: list[Finding] = field(default_factory=list, init=False, compare=False, repr=False)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.findings[:] = [finding for check in CHECKS for finding in check(op)]
        stream = self.stream or sys.stderr
        for finding in self.findings:
            print(finding, file=stream)
        print(summary(self.findings), file=stream)
