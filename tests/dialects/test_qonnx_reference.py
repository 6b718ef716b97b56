"""The qonnx ops' `evaluate` against qonnx 1.0's own reference functions, bit for bit
(float32 bit patterns, signed zeros included): every bit width from 1 to 16, signed and
unsigned, narrow, every rounding mode, per-tensor and per-channel scales, odd and fractional
zero points, and inputs placed exactly on rounding ties (x = (k + 1/2) * scale with a scale
of few significant bits, so x / scale is exact) and next to them."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper
from qonnx.custom_op.general.bipolar_quant import binary_quant
from qonnx.custom_op.general.intquant import int_quant
from qonnx.custom_op.general.trunc import trunc_v1, trunc_v2
from qonnx.custom_op.registry import getCustomOp
from xdsl.dialects import test
from xdsl.dialects.builtin import Float32Type, IntegerAttr, StringAttr, TensorType
from xdsl.utils.exceptions import InterpretationError, VerifyException

from bitfold.dialects.qonnx import (
    BipolarQuantOp,
    QuantOp,
    TruncOp,
    TruncV1Op,
    op_class_for,
)

CHANNELS, WIDTH = 3, 8
"""Inputs are CHANNELS x WIDTH; a per-channel parameter has shape (CHANNELS, 1)."""

QONNX_MODES = ["ROUND", "HALF_EVEN", "CEIL", "FLOOR", "UP", "DOWN", "HALF_UP", "HALF_DOWN", "round", "half_up"]
"""Every rounding mode qonnx 1.0 resolves, in both cases."""

FRACTIONS = [0.0, 0.5, -0.5, 0.25, 0.49999997, 0.50000006, 0.9999999]
"""Offsets from an integer grid point: ties, near-ties (f32 neighbours of 1/2), others."""

SETTINGS = settings(max_examples=60, deadline=None)


def evaluate(op_class, operands: list[np.ndarray], attributes: dict[str, int | str]) -> np.ndarray:
    """Build `op_class` on test values of the operands' types and run its `evaluate`."""
    types = [TensorType(Float32Type(), a.shape) for a in operands]
    values = test.TestOp(result_types=types).results
    attrs = {k: StringAttr(v) if isinstance(v, str) else IntegerAttr(v, 64) for k, v in attributes.items()}
    op = op_class.create(operands=list(values), result_types=[types[0]], attributes=attrs)
    op.verify()
    (result,) = op.evaluate(operands)
    return result


def assert_bits_equal(ours: np.ndarray, reference: np.ndarray) -> None:
    reference = np.asarray(reference).astype(np.float32)
    assert ours.dtype == np.float32 and ours.shape == reference.shape
    np.testing.assert_array_equal(ours.view(np.uint32), reference.view(np.uint32), strict=True)


f32 = np.float32


@st.composite
def scales(draw) -> np.ndarray:
    """A scalar or per-channel scale m * 2^e with m of few bits (so ties are exact)."""
    shape = draw(st.sampled_from([(), (CHANNELS, 1)]))
    mantissas = draw(st.lists(st.sampled_from([1, 3, 5, 7, 0.75]), min_size=CHANNELS, max_size=CHANNELS))
    exponents = draw(st.lists(st.integers(-10, 4), min_size=CHANNELS, max_size=CHANNELS))
    values = [m * 2.0**e for m, e in zip(mantissas, exponents)]
    return f32(values[0]) if shape == () else np.array(values, dtype=f32).reshape(shape)


@st.composite
def zero_points(draw, low: int = -20, high: int = 20) -> np.ndarray:
    """Scalar or per-channel; integers (odd ones included) and sometimes half-integers."""
    shape = draw(st.sampled_from([(), (CHANNELS, 1)]))
    values = draw(st.lists(st.integers(low, high), min_size=CHANNELS, max_size=CHANNELS))
    halves = draw(st.sampled_from([0.0, 0.0, 0.0, 0.5]))
    points = np.array(values, dtype=f32) + f32(halves)
    return points[0] if shape == () else points.reshape(shape)


@st.composite
def inputs(draw, scale: np.ndarray, grid: int) -> np.ndarray:
    """CHANNELS x WIDTH float32: (k + fraction) * scale for k in [-grid, grid], mixed with
    arbitrary floats (signed zeros, infinities)."""
    ks = draw(st.lists(st.integers(-grid, grid), min_size=CHANNELS * WIDTH, max_size=CHANNELS * WIDTH))
    fractions = draw(st.lists(st.sampled_from(FRACTIONS), min_size=CHANNELS * WIDTH, max_size=CHANNELS * WIDTH))
    positions = (np.array(ks, dtype=np.float64) + np.array(fractions)).reshape(CHANNELS, WIDTH)
    x = (positions * np.broadcast_to(scale, (CHANNELS, 1)).astype(np.float64)).astype(f32)
    raw = draw(st.lists(st.floats(width=32, allow_nan=False), min_size=WIDTH, max_size=WIDTH))
    row = draw(st.integers(0, CHANNELS - 1))
    x[row] = np.array(raw, dtype=f32)
    return x


@SETTINGS
@given(
    data=st.data(),
    bits=st.integers(1, 16),
    signed=st.integers(0, 1),
    narrow=st.integers(0, 1),
    mode=st.sampled_from(QONNX_MODES),
)
def test_quant_matches_int_quant(data, bits, signed, narrow, mode):
    scale = data.draw(scales())
    zeropt = data.draw(zero_points())
    x = data.draw(inputs(scale, 2 ** bits + 4))
    bitwidth = f32(bits)
    attributes = {"signed": signed, "narrow": narrow, "rounding_mode": mode}
    ours = evaluate(QuantOp, [x, scale, zeropt, bitwidth], attributes)
    assert_bits_equal(ours, int_quant(x, scale, zeropt, bitwidth, signed, narrow, mode))


@SETTINGS
@given(data=st.data())
def test_bipolar_quant_matches_binary_quant(data):
    scale = data.draw(scales())
    x = data.draw(inputs(scale, 4))
    x[0, :3] = [-0.0, -1e-45, 1e-45]
    assert_bits_equal(evaluate(BipolarQuantOp, [x, scale], {}), binary_quant(x, scale))


@SETTINGS
@given(
    data=st.data(),
    input_bits=st.integers(2, 16),
    mode=st.sampled_from(QONNX_MODES),
    bit_width_type=st.sampled_from([np.float32, np.int32]),
)
def test_trunc_v1_matches_trunc_v1(data, input_bits, mode, bit_width_type):
    output_bits = data.draw(st.integers(1, input_bits))
    scale = data.draw(scales())
    zeropt = data.draw(zero_points())
    x = data.draw(inputs(scale, 2 ** input_bits))
    in_bw, out_bw = bit_width_type(input_bits), bit_width_type(output_bits)
    ours = evaluate(TruncV1Op, [x, scale, zeropt, in_bw, out_bw], {"rounding_mode": mode})
    assert_bits_equal(ours, trunc_v1(x, scale, zeropt, in_bw, out_bw, mode))


@SETTINGS
@given(
    data=st.data(),
    input_bits=st.integers(2, 16),
    signed=st.integers(0, 1),
    narrow=st.integers(0, 1),
    mode=st.sampled_from(QONNX_MODES),
    shift=st.integers(-2, 12),
    off_power=st.sampled_from([1.0, 1.0, 1.3, 0.7]),
)
def test_trunc_matches_trunc_v2(data, input_bits, signed, narrow, mode, shift, off_power):
    """out_scale = scale * 2^shift, or off a power of two (qonnx rounds log2 of the ratio)."""
    output_bits = data.draw(st.integers(1, input_bits))
    scale = data.draw(scales())
    zeropt = data.draw(zero_points())
    x = data.draw(inputs(scale, 2 ** input_bits))
    out_scale = (scale * f32(2.0**shift * off_power)).astype(f32)
    in_bw, out_bw = f32(input_bits), f32(output_bits)
    attributes = {"rounding_mode": mode, "narrow": narrow, "signed": signed}
    ours = evaluate(TruncOp, [x, scale, zeropt, in_bw, out_scale, out_bw], attributes)
    assert_bits_equal(ours, trunc_v2(x, scale, zeropt, in_bw, narrow, signed, out_scale, out_bw, mode))


@pytest.mark.parametrize("mode", ["HALF_UP", "HALF_DOWN", "ROUND", "UP"])
def test_where_qonnx_rounding_is_not_exact(mode):
    """qonnx's half-up rounds 0.49999997 (largest f32 below 1/2) to 1, and both half modes
    move odd integers in [2^23, 2^24) to an even neighbour (`round_with`); Trunc v1 does not
    clamp, so such integers reach its rounding."""
    x = f32([0.49999997, -0.49999997, 0.5, 2.5])
    quant_operands = [x, f32(1), f32(0), f32(4)]
    ours = evaluate(QuantOp, quant_operands, {"signed": 1, "narrow": 0, "rounding_mode": mode})
    assert_bits_equal(ours, int_quant(*quant_operands, 1, 0, mode))
    large = f32([2**23 + 1, 2**23 + 3, -(2**23) - 1, 2**24 - 1])
    trunc_operands = [large, f32(1), f32(0), f32(24), f32(24)]
    ours = evaluate(TruncV1Op, trunc_operands, {"rounding_mode": mode})
    assert_bits_equal(ours, trunc_v1(*trunc_operands, mode))


# ----------------------------------------------------------------------------------------
# The importer's contract: op classes by qonnx's registry, attribute defaults by qonnx's
# ----------------------------------------------------------------------------------------

QONNX_DOMAIN = "qonnx.custom_op.general"
QONNX_CLASSES = {"IntQuant": QuantOp, "BipolarQuant": BipolarQuantOp, "Trunc_v1": TruncV1Op, "Trunc_v2": TruncOp}


@pytest.mark.parametrize("op_type", ["Quant", "IntQuant", "BipolarQuant", "Trunc"])
@pytest.mark.parametrize("version", [1, 2, 3])
def test_op_class_follows_qonnx_registry(op_type, version):
    node = helper.make_node(op_type, ["x"], ["y"], domain=QONNX_DOMAIN)
    qonnx_class = type(getCustomOp(node, version)).__name__
    assert op_class_for(op_type, version) is QONNX_CLASSES[qonnx_class]


@pytest.mark.parametrize("op_type", ["MultiThreshold", "Relu"])
def test_other_op_types_are_unsupported(op_type):
    assert op_class_for(op_type, 1) is None


@pytest.mark.parametrize(("op_type", "version"), [("IntQuant", 1), ("BipolarQuant", 1), ("Trunc", 1), ("Trunc", 2)])
def test_attribute_defaults_follow_qonnx(op_type, version):
    """qonnx 1.0 gives IntQuant's required `narrow` the default 1; its specification
    (docs/qonnx-custom-ops/intquant_v1.md) says 0, which is what bitfold fills."""
    qonnx_op = getCustomOp(helper.make_node(op_type, ["x"], ["y"], domain=QONNX_DOMAIN), version)
    expected = {name: spec[2] for name, spec in qonnx_op.get_nodeattr_types().items()}
    if op_type == "IntQuant":
        expected["narrow"] = 0
    defaults = op_class_for(op_type, version).ATTRIBUTE_DEFAULTS
    assert {name: _python_value(attr) for name, attr in defaults.items()} == expected


def _python_value(attr) -> int | str:
    return attr.data if isinstance(attr, StringAttr) else attr.value.data


def test_unknown_rounding_mode_is_rejected():
    with pytest.raises(VerifyException, match="unknown rounding_mode 'NEAREST'"):
        evaluate(TruncV1Op, [f32([1.0]), f32(1), f32(0), f32(8), f32(4)], {"rounding_mode": "NEAREST"})


def test_flag_attributes_are_zero_or_one():
    with pytest.raises(VerifyException, match="'signed' must be 0 or 1, got 2"):
        evaluate(QuantOp, [f32([1.0]), f32(1), f32(0), f32(8)], {"signed": 2, "narrow": 0, "rounding_mode": "ROUND"})


def test_bit_width_must_be_a_positive_integer():
    with pytest.raises(InterpretationError, match=r"'bitwidth' must be an integer in \[1, 64\]"):
        evaluate(QuantOp, [f32([1.0]), f32(1), f32(0), f32(2.5)], {"signed": 1, "narrow": 0, "rounding_mode": "ROUND"})
