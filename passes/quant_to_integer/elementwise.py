"""Elementwise float ops on dequantized operands become integer ops, and a `qcast` of a
`dcast` becomes a `quant.requant`.

- `qcast(dcast(q))` (uniform to uniform) -> `requant(q)` with the qcast's rounding and
  zero-point order: exact on the real values, where the float pair rounds the product
  `(q - zp) * s` to the float type first (the one inexact step of the float reference).
  To bipolar: `q >= zp` as the bit (real >= 0, exact). From bipolar: the two possible
  results of the qcast, selected by the bit (exact).
- `Relu(dcast(q)) -> dcast(max(q, zp))`: 0 is on every uniform grid (exact). A bipolar q
  (values -s, +s) becomes `!quant.uniform<u1:f, s>` of the same bit (relu(2b - 1) = b).
- `Clip(dcast(q), lo, hi) -> dcast(clamp(q, ceil(lo / s) + zp, floor(hi / s) + zp))`: exact
  when lo and hi lie on the grid (QCDQ's and ReLU6-style clips); otherwise only when the
  single user is a `qcast`, whose rounding is monotone and so commutes with the clamp:
  `qcast(clip(v)) = clamp(qcast(v), qcast(lo), qcast(hi))` (requant, then the clamp).
  An integer Clip of a value's storage integers (QCDQ's QuantizeLinear -> Clip as the graph
  output) clamps them and narrows the type's range (exact).
- `Add` / `Sub` of two dequantized tensors: both rescaled to S = min(s_a, s_b) / 2^k (the
  largest k <= 16 for which the sum fits i32) by `quant.requant`, then added in i32. Each term
  is off by at most S / 2 from its real value. `Add` of a constant c (float, or integers at
  their own scale): `c` on the grid of s / 2^k, the dequantized operand shifted left by k
  (exact), then added (`add_real_constant`).
- `Concat` of dequantized tensors whose single user is a uniform per-tensor `qcast`: each
  input requantized to that type, then joined (qcast is elementwise, so it commutes with the
  join; each requant is exact where the float pair rounds the product first).
- `Mul` of two dequantized tensors (per tensor): `(a - zp_a) * (b - zp_b)` at scale s_a s_b (exact).

Operands broadcast as ONNX does (numpy rules, right-aligned)."""

import math

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntAttr, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.evaluation import numpy_dtype_of
from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.elementwise import AddOp, ClipOp, MulOp, ReluOp, SubOp
from bitfold.dialects.onnx.shape import ConcatOp
from bitfold.dialects.quant import (
    BipolarQuantizedType,
    DequantizeCastOp,
    Granularity,
    QuantizeCastOp,
    RequantizeOp,
    StorageCastOp,
    UniformQuantizedType,
    element_type,
)
from bitfold.passes.quant_to_integer.dequantized import dequantized, quantized
from bitfold.passes.quant_to_integer.operands import (
    INT32_MAX,
    Quantized,
    accumulator_type,
    check_i32,
    exact,
    fail,
    per_tensor,
    quantized_operand,
    round_to_grid,
    storage_value,
    widened,
)
from bitfold.passes.utils.linalg_building import I32, broadcast_map, build_generic, empty, integer_constant
from bitfold.passes.utils.parameter_tables import Parameter, build_elementwise, parameter_table

I1 = IntegerType(1)
RESCALE_BITS = 16
"""The most bits Add / Sub shift their finer operand left by before adding (k above)."""


def _rounding_attributes(op: QuantizeCastOp) -> dict:
    return {name: op.attributes[name] for name in ("rounding", "zero_point_first") if name in op.attributes}


def _elementwise(
    rewriter: PatternRewriter, operand: Quantized, result_element: IntegerType, tables: dict[str, np.ndarray], build
) -> SSAValue:
    """A parallel generic over the operand's storage integers with per-channel `tables`
    (i32, laid out by the operand's type), yielding `result_element`s."""
    source = storage_value(rewriter, operand)
    parameters = {name: Parameter(parameter_table(operand.qtype, values), I32) for name, values in tables.items()}
    result = TensorType(result_element, operand.shape)
    return build_elementwise(
        rewriter, source, operand.qtype.storage_integer_type(), operand.qtype, parameters, result, build
    )


class RequantizeDequantized(RewritePattern):
    """qcast(dcast(q)) -> requant(q), or the bipolar forms (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeCastOp, rewriter: PatternRewriter) -> None:
        if not isinstance(dcast := op.input.owner, DequantizeCastOp):
            return
        source = quantized_operand(op, op.input)
        target = element_type(op.result.type)
        if isinstance(source.qtype, UniformQuantizedType) and isinstance(target, UniformQuantizedType):
            rewriter.replace(op, RequantizeOp(dcast.input, op.result.type, _rounding_attributes(op)))
        elif isinstance(target, BipolarQuantizedType):
            self._sign(op, source, rewriter)
        elif isinstance(source.qtype, BipolarQuantizedType):
            self._select(op, source, rewriter)
        # float storage on either side: a table (`tables.FloatStorageRequantToTable`)

    @staticmethod
    def _sign(op: QuantizeCastOp, source: Quantized, rewriter: PatternRewriter) -> None:
        """The bit of `real >= 0`, i.e. q >= zp (scales are positive)."""
        if not isinstance(source.qtype, UniformQuantizedType) or element_type(op.result.type).kind != Granularity.PER_TENSOR:
            raise fail(op, "only a uniform value quantized to a per-tensor bipolar type is supported")
        zero_points = np.array(source.qtype.zero_point_values())

        def build(body) -> SSAValue:
            return body.emit(arith.CmpiOp(widened(body, body.values["input"], source.qtype), body.values["zero_point"], "sge"))

        bits = _elementwise(rewriter, source, I1, {"zero_point": zero_points}, build)
        rewriter.replace(op, [], [quantized(rewriter, bits, element_type(op.result.type))])

    @staticmethod
    def _select(op: QuantizeCastOp, source: Quantized, rewriter: PatternRewriter) -> None:
        """From bipolar: the qcast's own results for -s and +s, selected by the bit."""
        target = element_type(op.result.type)
        if source.qtype.kind != Granularity.PER_TENSOR or target.kind != Granularity.PER_TENSOR:
            raise fail(op, "only per-tensor bipolar values requantize to another type")
        scale = source.qtype.scale_values()[0]
        (choices,) = op.evaluate([np.array([-scale, scale], dtype=numpy_dtype_of(op.input.type))])
        storage = target.storage_integer_type()
        low, high = (int(c) for c in choices)

        def build(body) -> SSAValue:
            return body.emit(
                arith.SelectOp(body.values["input"], body.constant(high, storage), body.constant(low, storage))
            )

        values = _elementwise(rewriter, source, storage, {}, build)
        rewriter.replace(op, [], [quantized(rewriter, values, target)])


def _clamped(rewriter, op: Operation, source: Quantized, low: np.ndarray, high: np.ndarray) -> SSAValue:
    """The operand's storage integers clamped to [low, high] (per channel tables)."""
    storage = source.qtype.storage_integer_type()

    def build(body) -> SSAValue:
        v = body.values
        value = body.emit(arith.MinSIOp(body.emit(arith.MaxSIOp(widened(body, body.values["input"], source.qtype), v["low"])), v["high"]))
        return value if storage.width.data == 32 else body.emit(arith.TruncIOp(value, storage))

    return _elementwise(rewriter, source, storage, {"low": low, "high": high}, build)


class ReluToInteger(RewritePattern):
    """Relu(dcast(q)) -> dcast(max(q, zp)); bipolar: the bit read as u1 (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReluOp, rewriter: PatternRewriter) -> None:
        source = quantized_operand(op, op.x)
        if isinstance(source.qtype, BipolarQuantizedType):
            if source.qtype.kind != Granularity.PER_TENSOR:
                raise fail(op, "per-axis bipolar Relu is not supported")
            unit = UniformQuantizedType.get(1, False, source.qtype.expressed_type, source.qtype.scale_values()[0])
            rewriter.replace(op, [], [dequantized(rewriter, storage_value(rewriter, source), unit, op.y.type)])
            return
        zero_points = np.array(source.qtype.zero_point_values())
        _, high = source.qtype.value_range()
        clamped = _clamped(rewriter, op, source, zero_points, np.full_like(zero_points, high))
        rewriter.replace(op, [], [dequantized(rewriter, clamped, source.qtype, op.y.type)])


def narrowed_by_clip(op: ClipOp, qtype: UniformQuantizedType) -> UniformQuantizedType:
    """`qtype` (same storage, scales, zero points) with its range narrowed by the integer Clip
    `op` of its storage integers (constant bounds)."""
    low, high = qtype.value_range()
    if op.min is not None:
        low = max(low, int(_integer_bound(op, op.min)))
    if op.max is not None:
        high = min(high, int(_integer_bound(op, op.max)))
    if low >= high:
        raise fail(op, f"the Clip leaves the empty or one-value range [{low}, {high}]")
    return UniformQuantizedType(qtype.parameters[0], IntAttr(low), IntAttr(high), *qtype.parameters[3:])


def _integer_bound(op: ClipOp, bound: SSAValue) -> int:
    if (value := constant_array(bound)) is None:
        raise fail(op, "Clip bounds must be constants")
    return int(value)


def _clip_storage(op: ClipOp, rewriter: PatternRewriter, cast: StorageCastOp) -> None:
    """Clip(scast(q : T -> S), lo, hi) on ONNX integers (a QCDQ quantizer whose integers are the
    graph output) -> scast(clamp(q, lo, hi) : T') to S, T' = `narrowed_by_clip(T)`: the same
    integers, exact."""
    qtype = element_type(cast.input.type)
    narrowed = narrowed_by_clip(op, qtype)
    low, high = narrowed.value_range()
    count = len(qtype.scale_values())
    clamped = _clamped(rewriter, op, Quantized(cast.input, qtype, None), np.full(count, low), np.full(count, high))
    rewriter.replace(op, [back := StorageCastOp(quantized(rewriter, clamped, narrowed), op.output.type)], [back.result])


class ClipToInteger(RewritePattern):
    """Clip(dcast(q), lo, hi) with constant bounds (module docstring); an integer Clip of a
    quantized value's storage integers: `_clip_storage`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ClipOp, rewriter: PatternRewriter) -> None:
        cast = op.input.owner
        if isinstance(cast, StorageCastOp) and isinstance(element_type(cast.input.type), UniformQuantizedType):
            _clip_storage(op, rewriter, cast)
            return
        source = quantized_operand(op, op.input)
        qtype = source.qtype
        if not isinstance(qtype, UniformQuantizedType):
            raise fail(op, "Clip of a bipolar value is not supported")
        bounds = []
        for bound, default in ((op.min, -np.inf), (op.max, np.inf)):
            value = default if bound is None else constant_array(bound)
            if value is None:
                raise fail(op, "Clip bounds must be constants")
            bounds.append(float(np.asarray(value).reshape(())))
        scales = np.array(qtype.scale_values())
        zero_points = np.array(qtype.zero_point_values())
        storage_low, storage_high = qtype.value_range()
        grid = [np.clip(np.asarray(b / scales) + zero_points, storage_low - 1, storage_high + 1) for b in bounds]
        on_grid = all(np.all(g == np.round(g)) or np.isinf(b) for g, b in zip(grid, bounds))
        if on_grid:
            low = np.maximum(np.ceil(grid[0]), storage_low).astype(np.int64)
            high = np.minimum(np.floor(grid[1]), storage_high).astype(np.int64)
            clamped = _clamped(rewriter, op, source, low, high)
            rewriter.replace(op, [], [dequantized(rewriter, clamped, qtype, op.output.type)])
            return
        users = [use.operation for use in op.output.uses]
        if len(users) != 1 or not isinstance(qcast := users[0], QuantizeCastOp):
            raise fail(op, "Clip bounds off the quantization grid need a single qcast user")
        target = element_type(qcast.result.type)
        if not isinstance(target, UniformQuantizedType):
            raise fail(op, "Clip feeding a bipolar qcast is not supported")
        (limits,) = qcast.evaluate([np.array(bounds, dtype=numpy_dtype_of(op.output.type))])
        requant = RequantizeOp(source.value, qcast.result.type, _rounding_attributes(qcast))
        rewriter.insert(requant)
        rescaled = Quantized(requant.result, target, None)
        count = len(target.scale_values())
        clamped = _clamped(rewriter, op, rescaled, np.full(count, int(limits[0])), np.full(count, int(limits[1])))
        rewriter.replace(qcast, [], [quantized(rewriter, clamped, target)])
        rewriter.erase(op)


def add_real_constant(
    rewriter: PatternRewriter, op: Operation, source: Quantized, constant: np.ndarray, signs: np.ndarray | None = None
) -> tuple[SSAValue, UniformQuantizedType]:
    """The integers and type of dcast(source) + constant (real values broadcasting to the
    source's shape), on the grid of s / 2^k for the largest k <= RESCALE_BITS that keeps the
    sum in i32: (q - zp) << k + R_even(constant 2^k / s). Off by at most s / 2^(k+1).
    `signs` (+1 / -1, broadcasting like `constant`): sign * (q - zp) << k + ... instead, the
    real value -dcast(source) + constant where the sign is -1."""
    qtype = source.qtype
    if not isinstance(qtype, UniformQuantizedType) or qtype.kind == Granularity.SUB_CHANNEL:
        raise fail(op, "adding a constant needs a per-tensor or per-axis uniform operand")
    out_shape = source.shape
    if tuple(np.broadcast_shapes(out_shape, np.shape(constant))) != out_shape:
        raise fail(op, "the constant may not broadcast the dequantized operand")
    scales, zero_points = qtype.parameter_arrays(out_shape)
    table_shape = np.broadcast_shapes(np.shape(constant), scales.shape)
    widest = qtype.largest_offset()
    for shift in range(RESCALE_BITS, -1, -1):
        grid = round_to_grid(np.broadcast_to(constant, table_shape), np.broadcast_to(scales / 2**shift, table_shape))
        bound = (widest << shift) + int(np.abs(grid).max(initial=0))
        if bound <= INT32_MAX:
            break
    check_i32(op, bound, "the sum")
    axis = qtype.axis if qtype.kind == Granularity.PER_AXIS else None
    total_type = accumulator_type(np.array(qtype.scale_values()) / 2**shift, axis, qtype.expressed_type, bound)
    sign_table = np.ones(table_shape, np.int64) if signs is None else np.broadcast_to(signs, table_shape).astype(np.int64)
    offsets = grid - sign_table * (np.broadcast_to(zero_points, table_shape).astype(np.int64) << shift)
    rank = len(out_shape)
    identity = AffineMap.identity(rank)
    table = integer_constant(rewriter, offsets, I32)
    amount = IntegerAttr(shift, I32)

    def build(body) -> SSAValue:
        x = widened(body, body.values["in0"], qtype)
        if signs is not None:
            x = body.emit(arith.MuliOp(x, body.values["in2"]))
        if shift:
            x = body.emit(arith.ShLIOp(x, body.emit(arith.ConstantOp(amount))))
        return body.emit(arith.AddiOp(x, body.values["in1"]))

    inputs = [(storage_value(rewriter, source), identity), (table, broadcast_map(table_shape, rank))]
    if signs is not None:
        inputs.append((integer_constant(rewriter, sign_table, I32), broadcast_map(table_shape, rank)))
    total = build_generic(
        rewriter,
        inputs,
        (empty(rewriter, out_shape, I32), identity),
        [],
        build,
    )
    return total, total_type


def _real_constant(op: Operation, value: SSAValue) -> np.ndarray | None:
    """The real values of a constant operand: a float constant, or a dequantized integer
    constant (exact rationals); None for a dynamic operand."""
    if (constant := constant_array(value)) is not None:
        return constant
    operand = quantized_operand(op, value)
    if operand.stored is None or not isinstance(operand.qtype, UniformQuantizedType):
        return None
    scales = np.broadcast_to(operand.scales(), operand.shape)
    return np.frompyfunc(lambda c, s: int(c) * exact(s), 2, 1)(operand.centered(), scales)


class AddSubToInteger(RewritePattern):
    """Add / Sub of two dequantized tensors, or of one and a constant (float, or integer
    at its own scale; module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddOp | SubOp, rewriter: PatternRewriter) -> None:
        if not isinstance(op, (AddOp, SubOp)):
            return
        subtract = isinstance(op, SubOp)
        if (constant := _real_constant(op, op.b)) is not None:
            dynamic, constant = op.a, -constant if subtract else constant
        elif not subtract and (constant := _real_constant(op, op.a)) is not None:
            dynamic = op.b
        if constant is not None:
            source = quantized_operand(op, dynamic)
            total, total_type = add_real_constant(rewriter, op, source, constant)
            rewriter.replace(op, [], [dequantized(rewriter, total, total_type, op.c.type)])
            return
        a, b = quantized_operand(op, op.a), quantized_operand(op, op.b)
        types = [t for t in (a.qtype, b.qtype) if isinstance(t, UniformQuantizedType)]
        if len(types) != 2:
            raise fail(op, "bipolar operands are not supported")
        finest = min(min(t.scale_values()) for t in types)
        ratio = sum(t.largest_offset() * max(t.scale_values()) / finest for t in types)
        shift = min(RESCALE_BITS, math.floor(math.log2(INT32_MAX / ratio)))
        if shift < 0:
            raise fail(op, f"the operands' scales differ too much (ratio {ratio:.3g}) for an i32 sum")
        bound = sum(math.ceil(t.largest_offset() * max(t.scale_values()) / finest * 2**shift) + 1 for t in types)
        check_i32(op, bound, "the sum")
        common = accumulator_type(np.array([finest / 2**shift]), None, types[0].expressed_type, bound)
        terms = []
        for operand in (a, b):
            requant = RequantizeOp(operand.value, TensorType(common, operand.shape))
            rewriter.insert(requant)
            terms.append(storage_value(rewriter, Quantized(requant.result, common, None)))
        out_shape = tuple(op.c.type.get_shape())
        rank = len(out_shape)
        combine = arith.AddiOp if isinstance(op, AddOp) else arith.SubiOp
        total = build_generic(
            rewriter,
            [(t, broadcast_map(o.shape, rank)) for t, o in zip(terms, (a, b))],
            (empty(rewriter, out_shape, I32), AffineMap.identity(rank)),
            [],
            lambda body: body.emit(combine(body.values["in0"], body.values["in1"])),
        )
        rewriter.replace(op, [], [dequantized(rewriter, total, common, op.c.type)])


class MulToInteger(RewritePattern):
    """Mul of two dequantized per-tensor tensors -> (a - zp_a)(b - zp_b) at s_a s_b."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter) -> None:
        a, b = quantized_operand(op, op.a), quantized_operand(op, op.b)
        types = [per_tensor(op, a, "operand A"), per_tensor(op, b, "operand B")]
        bound = types[0].largest_offset() * types[1].largest_offset()
        check_i32(op, bound, "the product")
        out_shape = tuple(op.c.type.get_shape())
        rank = len(out_shape)

        def build(body) -> SSAValue:
            centered = []
            for name, qtype in zip(("in0", "in1"), types):
                x = widened(body, body.values[name], qtype)
                if qtype.zero_point:
                    x = body.emit(arith.SubiOp(x, body.constant(qtype.zero_point, I32)))
                centered.append(x)
            return body.emit(arith.MuliOp(*centered))

        product = build_generic(
            rewriter,
            [(storage_value(rewriter, o), broadcast_map(o.shape, rank)) for o in (a, b)],
            (empty(rewriter, out_shape, I32), AffineMap.identity(rank)),
            [],
            build,
        )
        scale = np.array([types[0].scale * types[1].scale])
        product_type = accumulator_type(scale, None, types[0].expressed_type, bound)
        rewriter.replace(op, [], [dequantized(rewriter, product, product_type, op.c.type)])


class ConcatToInteger(RewritePattern):
    """Concat(dcast(q_i)...) -> qcast's type: Concat(requant(q_i)) (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConcatOp, rewriter: PatternRewriter) -> None:
        if not all(isinstance(v.owner, DequantizeCastOp) for v in op.inputs):
            return
        users = [use.operation for use in op.concat_result.uses]
        if len(users) != 1 or not isinstance(qcast := users[0], QuantizeCastOp):
            raise fail(op, "a Concat of differently quantized inputs needs a single qcast user")
        target = element_type(qcast.result.type)
        if not isinstance(target, UniformQuantizedType) or target.kind != Granularity.PER_TENSOR:
            raise fail(op, f"Concat into {target}: only a uniform per-tensor result is supported")
        parts = []
        for value in op.inputs:
            source = quantized_operand(op, value)
            if not isinstance(source.qtype, UniformQuantizedType):
                raise fail(op, "bipolar Concat inputs are not supported")
            requant = RequantizeOp(source.value, TensorType(target, source.shape), _rounding_attributes(qcast))
            rewriter.insert(requant)
            parts.append(requant.result)
        joined = ConcatOp.create(operands=parts, attributes=dict(op.attributes), result_types=[qcast.result.type])
        rewriter.insert(joined)
        rewriter.replace(qcast, [], [joined.concat_result])
        rewriter.erase(op)
