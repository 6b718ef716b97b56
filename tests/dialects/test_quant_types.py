"""The quant types' Python API: construction, the helpers later passes rely on, verification."""

import math
import re

import numpy as np
import pytest
from xdsl.dialects.builtin import Float32Type, IntAttr
from xdsl.utils.exceptions import VerifyException

from bitfold.dialects.quant import BipolarQuantizedType, Granularity, UniformQuantizedType

F32 = Float32Type()


def test_per_tensor_helpers():
    t = UniformQuantizedType.get(8, True, F32, 0.1, -3)
    assert t.kind == Granularity.PER_TENSOR
    assert (t.scale, t.zero_point, t.storage_width, t.is_signed) == (0.1, -3, 8, True)
    assert t.value_range() == (-128, 127) and not t.has_storage_bounds()
    assert str(t) == "!quant.uniform<i8:f32, 1.000000e-01:-3>"


@pytest.mark.parametrize(
    ("bits", "signed", "storage_range", "bit_width", "narrow"),
    [
        (8, True, None, 8, False),
        (8, True, (-8, 7), 4, False),
        (8, True, (-7, 7), 4, True),
        (8, True, (-127, 127), 8, True),
        (8, False, (0, 15), 4, False),
        (8, False, (0, 254), 8, True),
        (4, False, None, 4, False),
        (16, True, (-2048, 2047), 12, False),
    ],
)
def test_bit_width_and_narrow_range_follow_the_storage_range(bits, signed, storage_range, bit_width, narrow):
    t = UniformQuantizedType.get(bits, signed, F32, 1.0, storage_range=storage_range)
    assert t.bit_width == bit_width
    assert t.is_narrow_range == narrow


def test_scheme_detection():
    assert UniformQuantizedType.get(8, True, F32, [0.5, 0.25], [0, 0], axis=0).is_symmetric
    assert not UniformQuantizedType.get(8, False, F32, 0.5, 128).is_symmetric
    assert UniformQuantizedType.get(8, True, F32, [0.5, 2.0**-7], axis=1).has_power_of_two_scales
    assert not UniformQuantizedType.get(8, True, F32, 0.1).has_power_of_two_scales


def test_per_axis_parameters_broadcast_along_their_axis():
    t = UniformQuantizedType.get(8, False, F32, [0.1, 0.2, 0.3], [128, 120, 0], axis=1)
    scales, zero_points = t.parameter_arrays((2, 3, 5))
    assert scales.shape == zero_points.shape == (1, 3, 1)
    assert np.broadcast_to(scales, (2, 3, 5))[1, 2, 4] == 0.3
    assert np.broadcast_to(zero_points, (2, 3, 5))[0, 1, 0] == 120


def test_sub_channel_parameters_repeat_per_block():
    # ONNX blocked quantization: block_size 2 along axis 1 of a 2x4 tensor.
    t = UniformQuantizedType.get(4, True, F32, [[0.5, 0.25], [0.125, 0.0625]], [[1, 2], [0, -1]], block_sizes={0: 1, 1: 2})
    scales, zero_points = t.parameter_arrays((2, 4))
    np.testing.assert_array_equal(scales, [[0.5, 0.5, 0.25, 0.25], [0.125, 0.125, 0.0625, 0.0625]])
    np.testing.assert_array_equal(zero_points, [[1, 1, 2, 2], [0, 0, -1, -1]])


@pytest.mark.parametrize(
    ("scale", "message"),
    [
        (0.0, "scale 0.000000e+00 out of expressed type range"),
        (-1.0, "scale -1.000000e+00 out of expressed type range"),
        (math.nan, "illegal scale: nan"),
        (math.inf, "scale inf out of expressed type range"),
    ],
)
def test_invalid_scales_are_rejected(scale, message):
    with pytest.raises(VerifyException, match=re.escape(message)):
        UniformQuantizedType.get(8, True, F32, scale)


def test_invalid_parameters_are_rejected():
    with pytest.raises(VerifyException, match=r"illegal zero point: 300 out of storage range \[-128:127\]"):
        UniformQuantizedType.get(8, True, F32, 1.0, 300)
    with pytest.raises(VerifyException, match="illegal storage type size: 33"):
        UniformQuantizedType.get(33, True, F32, 1.0)
    with pytest.raises(VerifyException, match="illegal quantized dimension: -1"):
        UniformQuantizedType.get(8, True, F32, [1.0], axis=-1)
    with pytest.raises(VerifyException, match="illegal block size: 0"):
        UniformQuantizedType.get(8, True, F32, [[1.0]], block_sizes={0: 0})
    with pytest.raises(VerifyException, match=r"illegal storage min and storage max: \(7:-8\)"):
        UniformQuantizedType.get(8, True, F32, 1.0, storage_range=(7, -8))


def test_verifier_catches_inconsistent_parameter_tables():
    t = UniformQuantizedType.get(8, True, F32, [1.0, 2.0], axis=0)
    with pytest.raises(VerifyException, match="illegal number of scales and zeroPoints: 2, 1"):
        UniformQuantizedType(*t.parameters[:-1], t.zero_points.__class__([IntAttr(0)]))


def test_bipolar_type():
    t = BipolarQuantizedType.get(F32, [0.5, 0.25], axis=0)
    assert str(t) == "!quant.bipolar<f32:0, {5.000000e-01,2.500000e-01}>"
    assert t.value_range() == (-1, 1) and t.storage_integer_type().width.data == 1
    with pytest.raises(VerifyException, match="illegal scale: nan"):
        BipolarQuantizedType.get(F32, math.nan)
