"""The quant casts' `evaluate` against the formats' references: quant.qcast / quant.dcast
against onnx's reference QuantizeLinear / DequantizeLinear (int8, uint8, int4, uint4, int16;
per tensor, per axis, blocked), quant.qcast {zero_point_first} against qonnx's `int_quant`,
quant.requant against exact rational arithmetic from its definition, quant.scast round trips."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from qonnx.custom_op.general.intquant import int_quant
from xdsl.dialects import test
from xdsl.dialects.builtin import BFloat16Type, Float32Type, IntegerType, StringAttr, TensorType, UnitAttr
from xdsl.parser import Parser

import bitfold
from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.qonnx import ROUNDING_MODES, qonnx_int_range
from bitfold.dialects.quant import (
    BipolarQuantizedType,
    DequantizeCastOp,
    QuantizeCastOp,
    RequantizeOp,
    RoundingMode,
    StorageCastOp,
    UniformQuantizedType,
    integer_range,
)
from bitfold.load import full_context

SHAPE = (4, 6)
"""Inputs of the ONNX comparisons; blocked quantization uses blocks of 3 along axis 1."""

BLOCK = 3

ONNX_TYPES = {
    "int8": (TensorProto.INT8, 8, True),
    "uint8": (TensorProto.UINT8, 8, False),
    "int4": (TensorProto.INT4, 4, True),
    "uint4": (TensorProto.UINT4, 4, False),
    "int16": (TensorProto.INT16, 16, True),
}

SETTINGS = settings(max_examples=40, deadline=None)


def evaluate_cast(op_class, value: np.ndarray, value_type, result_type, attributes=None) -> np.ndarray:
    """Build a quant cast from a test value of `value_type` and run its `evaluate`."""
    (operand,) = test.TestOp(result_types=[value_type]).results
    op = op_class(operand, result_type, attributes)
    op.verify()
    (result,) = op.evaluate([value])
    return result


def tensor(element, shape=SHAPE) -> TensorType:
    return TensorType(element, shape)


# ----------------------------------------------------------------------------------------
# qcast / dcast against onnx's reference
# ----------------------------------------------------------------------------------------


def parameter_shape(granularity: str) -> tuple[int, ...]:
    return {"per_tensor": (), "per_axis": (SHAPE[1],), "blocked": (SHAPE[0], SHAPE[1] // BLOCK)}[granularity]


def quantized_type(bits: int, signed: bool, scales: np.ndarray, zero_points: np.ndarray, granularity: str):
    if granularity == "per_tensor":
        return UniformQuantizedType.get(bits, signed, Float32Type(), float(scales), int(zero_points))
    if granularity == "per_axis":
        return UniformQuantizedType.get(bits, signed, Float32Type(), scales.tolist(), zero_points.tolist(), axis=1)
    return UniformQuantizedType.get(bits, signed, Float32Type(), scales, zero_points, block_sizes={0: 1, 1: BLOCK})


def run_onnx_node(op_type: str, x: np.ndarray, x_type: int, scale: np.ndarray, zero_point: np.ndarray,
                  zero_point_type: int, granularity: str) -> np.ndarray:
    """One QuantizeLinear / DequantizeLinear node (opset 21) on onnx's ReferenceEvaluator;
    every input is an initializer (so int4 needs no feed)."""
    attributes = {} if granularity == "per_tensor" else {"axis": 1}
    if granularity == "blocked":
        attributes["block_size"] = BLOCK
    initializers = [
        helper.make_tensor("x", x_type, x.shape, x.flatten().tolist()),
        numpy_helper.from_array(scale, "scale"),
        helper.make_tensor("zero_point", zero_point_type, zero_point.shape, zero_point.flatten().tolist()),
    ]
    node = helper.make_node(op_type, ["x", "scale", "zero_point"], ["y"], **attributes)
    output = helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)
    graph = helper.make_graph([node], "g", [], [output], initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    return ReferenceEvaluator(model).run(None, {})[0]


@st.composite
def onnx_case(draw):
    """A storage type, a granularity, float32 scales and zero points in the storage range."""
    name = draw(st.sampled_from(list(ONNX_TYPES)))
    granularity = draw(st.sampled_from(["per_tensor", "per_axis", "blocked"]))
    onnx_type, bits, signed = ONNX_TYPES[name]
    low, high = integer_range(bits, signed)
    count = math.prod(parameter_shape(granularity))
    mantissas = draw(st.lists(st.sampled_from([1.0, 3.0, 5.0, 0.1, 0.37]), min_size=count, max_size=count))
    exponents = draw(st.lists(st.integers(-8, 2), min_size=count, max_size=count))
    scales = np.array([m * 2.0**e for m, e in zip(mantissas, exponents)], dtype=np.float32)
    zero_points = np.array(draw(st.lists(st.integers(low, high), min_size=count, max_size=count)), dtype=np.int64)
    shape = parameter_shape(granularity)
    return onnx_type, bits, signed, granularity, scales.reshape(shape), zero_points.reshape(shape)


@SETTINGS
@given(case=onnx_case(), data=st.data())
def test_qcast_matches_quantize_linear(case, data):
    """Including inputs on ties of x / scale (k + 1/2), where adding an odd zero point
    after rounding (ONNX) and before it differ."""
    onnx_type, bits, signed, granularity, scales, zero_points = case
    qtype = quantized_type(bits, signed, scales, zero_points, granularity)
    element_scale, _ = qtype.parameter_arrays(SHAPE)
    halves = data.draw(st.lists(st.integers(-2 * 2**bits, 2 * 2**bits), min_size=24, max_size=24))
    x = (np.array(halves, dtype=np.float64).reshape(SHAPE) / 2 * element_scale).astype(np.float32)
    x.flat[:4] = data.draw(st.lists(st.floats(-1e4, 1e4, width=32), min_size=4, max_size=4))
    ours = evaluate_cast(QuantizeCastOp, x, tensor(Float32Type()), tensor(qtype))
    reference = run_onnx_node("QuantizeLinear", x, TensorProto.FLOAT, scales, zero_points, onnx_type, granularity)
    np.testing.assert_array_equal(ours, reference.astype(np.int64))


@SETTINGS
@given(case=onnx_case(), data=st.data())
def test_dcast_matches_dequantize_linear(case, data):
    onnx_type, bits, signed, granularity, scales, zero_points = case
    qtype = quantized_type(bits, signed, scales, zero_points, granularity)
    low, high = integer_range(bits, signed)
    values = data.draw(st.lists(st.integers(low, high), min_size=24, max_size=24))
    q = np.array(values, dtype=np.int64).reshape(SHAPE)
    ours = evaluate_cast(DequantizeCastOp, q.astype(np.int16), tensor(qtype), tensor(Float32Type()))
    reference = run_onnx_node("DequantizeLinear", q, onnx_type, scales, zero_points, onnx_type, granularity)
    assert ours.dtype == np.float32
    np.testing.assert_array_equal(ours.view(np.uint32), reference.view(np.uint32))


# ----------------------------------------------------------------------------------------
# qcast {zero_point_first, rounding} against qonnx's int_quant
# ----------------------------------------------------------------------------------------

QONNX_NAMES = ["ROUND", "CEIL", "FLOOR", "UP", "DOWN", "HALF_UP", "HALF_DOWN"]


@settings(max_examples=80, deadline=None)
@given(
    data=st.data(),
    bits=st.integers(2, 16),
    signed=st.booleans(),
    narrow=st.booleans(),
    mode=st.sampled_from(QONNX_NAMES),
    per_channel=st.booleans(),
)
def test_qcast_zero_point_first_matches_int_quant(data, bits, signed, narrow, mode, per_channel):
    """dcast(qcast(x)) against int_quant(x): (q - zp) * scale is injective in q for
    |q - zp| < 2^23, so equal values mean equal integers (qonnx may give -0.0 for 0.0)."""
    low, high = qonnx_int_range(bits, signed, narrow)
    channels = 3 if per_channel else 1
    exponents = data.draw(st.lists(st.integers(-6, 3), min_size=channels, max_size=channels))
    scales = np.array([3.0 * 2.0**e for e in exponents], dtype=np.float32)
    zero_points = np.array(data.draw(st.lists(st.integers(low, high), min_size=channels, max_size=channels)))
    storage_bits = 8 if bits <= 8 else 16
    axis = {"axis": 0} if per_channel else {}
    qtype = UniformQuantizedType.get(
        storage_bits, signed, Float32Type(), scales.tolist() if per_channel else float(scales[0]),
        zero_points.tolist() if per_channel else int(zero_points[0]), storage_range=(low, high), **axis,
    )
    halves = data.draw(st.lists(st.integers(-(2**bits) - 8, 2**bits + 8), min_size=3 * 8, max_size=3 * 8))
    column = (3, 1) if per_channel else ()
    x = (np.array(halves, dtype=np.float64).reshape(3, 8) / 2 * scales.reshape(column)).astype(np.float32)
    attributes = {"rounding": StringAttr(ROUNDING_MODES[mode].value), "zero_point_first": UnitAttr()}
    q = evaluate_cast(QuantizeCastOp, x, tensor(Float32Type(), (3, 8)), tensor(qtype, (3, 8)), attributes)
    ours = evaluate_cast(DequantizeCastOp, q, tensor(qtype, (3, 8)), tensor(Float32Type(), (3, 8)))
    reference = int_quant(
        x, scales.reshape(column), zero_points.astype(np.float32).reshape(column), np.float32(bits),
        signed, narrow, mode,
    )
    np.testing.assert_array_equal(ours, reference)


def test_bipolar_qcast_matches_one_bit_int_quant():
    x = np.array([-2.0, -0.25, -0.0, 0.0, 0.125, 7.0], dtype=np.float32)
    qtype = BipolarQuantizedType.get(Float32Type(), 0.5)
    q = evaluate_cast(QuantizeCastOp, x, tensor(Float32Type(), (6,)), tensor(qtype, (6,)))
    ours = evaluate_cast(DequantizeCastOp, q, tensor(qtype, (6,)), tensor(Float32Type(), (6,)))
    reference = int_quant(x, np.float32(0.5), np.float32(0), np.float32(1), True, False, "ROUND")
    np.testing.assert_array_equal(ours, reference)


# ----------------------------------------------------------------------------------------
# requant against exact rational arithmetic
# ----------------------------------------------------------------------------------------


def _sign(v: Fraction) -> int:
    return (v > 0) - (v < 0)


EXACT_ROUNDING = {
    RoundingMode.HALF_TO_EVEN: round,  # Python rounds a Fraction's ties to even
    RoundingMode.HALF_AWAY_FROM_ZERO: lambda v: _sign(v) * math.floor(abs(v) + Fraction(1, 2)),
    RoundingMode.HALF_TOWARD_ZERO: lambda v: _sign(v) * math.ceil(abs(v) - Fraction(1, 2)),
    RoundingMode.AWAY_FROM_ZERO: lambda v: _sign(v) * math.ceil(abs(v)),
    RoundingMode.TOWARD_ZERO: math.trunc,
    RoundingMode.CEIL: math.ceil,
    RoundingMode.FLOOR: math.floor,
}
"""Each mode's textbook definition on an exact rational."""


def requant_by_definition(q, in_type, out_type, rounding, zero_point_first) -> np.ndarray:
    """clamp(R((q - zp_in) * s_in / s_out) + zp_out) or clamp(R(... + zp_out)), element by
    element in Fractions of the scales' exact double values."""
    in_scales, in_zero_points = (np.broadcast_to(a, q.shape) for a in in_type.parameter_arrays(q.shape))
    out_scales, out_zero_points = (np.broadcast_to(a, q.shape) for a in out_type.parameter_arrays(q.shape))
    low, high = out_type.value_range()
    result = np.empty(q.shape, dtype=np.int64)
    for index in np.ndindex(q.shape):
        real = Fraction(int(q[index]) - int(in_zero_points[index])) * Fraction(in_scales[index])
        value = real / Fraction(out_scales[index])
        zero_point = int(out_zero_points[index])
        if zero_point_first:
            grid = EXACT_ROUNDING[rounding](value + zero_point)
        else:
            grid = EXACT_ROUNDING[rounding](value) + zero_point
        result[index] = min(max(grid, low), high)
    return result


STORAGE = [(8, True), (8, False), (16, True), (32, True), (4, False)]


@st.composite
def uniform_types(draw, shape):
    bits, signed = draw(st.sampled_from(STORAGE))
    low, high = integer_range(bits, signed)
    channels = draw(st.sampled_from([None, shape[1]]))
    count = 1 if channels is None else channels
    scale = st.one_of(st.floats(1e-6, 1e6), st.integers(-12, 12).map(lambda e: 2.0**e))
    scales = draw(st.lists(scale, min_size=count, max_size=count))
    zero_points = draw(st.lists(st.integers(low, high), min_size=count, max_size=count))
    if channels is None:
        return UniformQuantizedType.get(bits, signed, Float32Type(), scales[0], zero_points[0])
    return UniformQuantizedType.get(bits, signed, Float32Type(), scales, zero_points, axis=1)


@SETTINGS
@given(
    data=st.data(),
    rounding=st.sampled_from(list(RoundingMode)),
    zero_point_first=st.booleans(),
)
def test_requant_matches_exact_arithmetic(data, rounding, zero_point_first):
    shape = (2, 3)
    in_type, out_type = data.draw(uniform_types(shape)), data.draw(uniform_types(shape))
    low, high = in_type.value_range()
    q = np.array(data.draw(st.lists(st.integers(low, high), min_size=6, max_size=6))).reshape(shape)
    attributes = {"rounding": StringAttr(rounding.value)}
    if zero_point_first:
        attributes["zero_point_first"] = UnitAttr()
    stored = q.astype(np.int64)
    ours = evaluate_cast(RequantizeOp, stored, tensor(in_type, shape), tensor(out_type, shape), attributes)
    expected = requant_by_definition(q, in_type, out_type, rounding, zero_point_first)
    np.testing.assert_array_equal(ours, expected)


def test_requant_ties_follow_the_rounding_mode():
    """A Trunc-like rescale by 1/4 puts q = 2, 6, -2, -6 on ties of 1/2, 3/2, ..."""
    in_type = UniformQuantizedType.get(16, True, Float32Type(), 0.25)
    out_type = UniformQuantizedType.get(8, True, Float32Type(), 1.0, 1)
    q = np.array([2, 6, -2, -6, 10, -10], dtype=np.int16)
    for rounding in RoundingMode:
        for zero_point_first in (False, True):
            attributes = {"rounding": StringAttr(rounding.value)}
            if zero_point_first:
                attributes["zero_point_first"] = UnitAttr()
            ours = evaluate_cast(RequantizeOp, q, tensor(in_type, (6,)), tensor(out_type, (6,)), attributes)
            expected = requant_by_definition(q, in_type, out_type, rounding, zero_point_first)
            np.testing.assert_array_equal(ours, expected)


# ----------------------------------------------------------------------------------------
# scast: storage reinterpretation
# ----------------------------------------------------------------------------------------

SCAST_STORAGE = [(1, True), (1, False), (4, True), (4, False), (8, True), (8, False), (16, False), (32, True), (32, False)]


@settings(max_examples=40, deadline=None)
@given(storage=st.sampled_from(SCAST_STORAGE), data=st.data())
def test_scast_round_trips_and_keeps_the_bits(storage, data):
    """To the signless storage integers and back is the identity; the bits are those of
    the stored value (numpy's two's complement reinterpretation where a dtype is as wide)."""
    bits, signed = storage
    qtype = UniformQuantizedType.get(bits, signed, Float32Type(), 0.5)
    low, high = qtype.value_range()
    q = np.array(data.draw(st.lists(st.integers(low, high), min_size=5, max_size=5)))
    q = q.astype(numpy_dtype(qtype))
    signless = tensor(IntegerType(bits), (5,))
    stored = evaluate_cast(StorageCastOp, q, tensor(qtype, (5,)), signless)
    assert stored.dtype == numpy_dtype(IntegerType(bits))
    if bits in (8, 16, 32):
        np.testing.assert_array_equal(stored, q.view(stored.dtype))
    if bits == 1:
        np.testing.assert_array_equal(stored, q != 0)
    back = evaluate_cast(StorageCastOp, stored, signless, tensor(qtype, (5,)))
    assert back.dtype == q.dtype
    np.testing.assert_array_equal(back, q)


def test_scast_of_bipolar_is_the_bit_of_two_b_minus_one():
    qtype = BipolarQuantizedType.get(Float32Type(), [0.5, 0.25], axis=0)
    q = np.array([[-1, 1, 1], [1, -1, -1]], dtype=np.int8)
    stored = evaluate_cast(StorageCastOp, q, tensor(qtype, (2, 3)), tensor(IntegerType(1), (2, 3)))
    np.testing.assert_array_equal(stored, q == 1)
    back = evaluate_cast(StorageCastOp, stored, tensor(IntegerType(1), (2, 3)), tensor(qtype, (2, 3)))
    np.testing.assert_array_equal(back, q)


def test_bf16_has_no_numpy_reference():
    qtype = UniformQuantizedType.get(8, True, BFloat16Type(), 0.5)
    with pytest.raises(NotImplementedError, match="bf16"):
        evaluate_cast(QuantizeCastOp, np.zeros(2, np.float32), tensor(BFloat16Type(), (2,)), tensor(qtype, (2,)))


def test_quant_casts_run_in_the_interpreter():
    """qcast then dcast through `bitfold.run` equals QuantizeLinear then DequantizeLinear."""
    qtype = "!quant.uniform<u8:f32:0, {0.5:3, 0.25:128}>"
    module = Parser(full_context(), f"""
    func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {{
      %q = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x{qtype}>
      %y = quant.dcast %q : tensor<2x3x{qtype}> to tensor<2x3xf32>
      func.return %y : tensor<2x3xf32>
    }}""").parse_module()
    x = np.array([[-3.25, 0.25, 100.0], [0.125, -0.375, 31.9]], dtype=np.float32)
    (ours,) = bitfold.run(module, [x]).values()
    scale, zero_point = np.array([0.5, 0.25], np.float32), np.array([3, 128], np.uint8)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "scale", "zero_point"], ["q"], axis=0),
        helper.make_node("DequantizeLinear", ["q", "scale", "zero_point"], ["y"], axis=0),
    ]
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, x.shape)],
        initializer=[numpy_helper.from_array(scale, "scale"), numpy_helper.from_array(zero_point, "zero_point")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    (reference,) = ReferenceEvaluator(model).run(None, {"x": x})
    np.testing.assert_array_equal(ours, reference)


def test_scast_to_unsigned_integers_reads_the_bits_unsigned():
    """u8 storage 200 through `quant.scast` to ui8 stays 200 (to signless i8 it is -56)."""
    from xdsl.dialects.builtin import IntegerType, Signedness

    from bitfold.dialects.quant_semantics import to_storage

    u8 = UniformQuantizedType.get(8, False, Float32Type(), 0.5, 128)
    q = np.array([0, 127, 128, 200, 255], dtype=np.uint8)
    np.testing.assert_array_equal(to_storage(q, u8, IntegerType(8, Signedness.UNSIGNED)), q)
    np.testing.assert_array_equal(to_storage(q, u8), q.astype(np.int8))
