"""onnx shape and data-movement ops against onnxruntime: exact, dtype and shape included."""

import numpy as np
import pytest
from onnx_node_oracle import assert_close, assert_exact, run_both
from xdsl.dialects.builtin import StringAttr
from xdsl.utils.exceptions import VerifyException

RNG = np.random.default_rng(5)


def floats(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def ints(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


@pytest.mark.parametrize(
    ("shape", "target", "allowzero"),
    [
        ((2, 3, 4), (4, 6), 0),
        ((2, 3, 4), (-1, 4), 0),
        ((2, 3, 4), (0, -1), 0),
        ((2, 3, 4), (0, 0, 2, 2), 0),
        ((2, 3, 4), (24,), 1),
        ((0, 3), (3, 0), 1),
        ((2, 3, 4), (4, 0, -1), 0),
    ],
)
def test_reshape(shape, target, allowzero):
    assert_exact("Reshape", [floats(*shape), ints(*target)], allowzero=allowzero)


@pytest.mark.parametrize("axis", [0, 1, 2, 3, -1, -3, -4])
def test_flatten(axis):
    assert_exact("Flatten", [floats(2, 3, 4, 5)], axis=axis)


@pytest.mark.parametrize("perm", [None, [0, 2, 1, 3], [3, 0, 2, 1]])
def test_transpose(perm):
    attributes = {} if perm is None else {"perm": perm}
    assert_exact("Transpose", [RNG.integers(0, 100, (2, 3, 4, 5)).astype(np.int8)], **attributes)


@pytest.mark.parametrize(
    ("axis", "shapes"),
    [(0, [(2, 3), (4, 3)]), (1, [(2, 1, 4), (2, 3, 4), (2, 2, 4)]), (-1, [(3, 2), (3, 5)]), (0, [(5,)])],
)
def test_concat(axis, shapes):
    assert_exact("Concat", [floats(*shape) for shape in shapes], axis=axis)


@pytest.mark.parametrize(
    ("shape", "axes"), [((1, 3, 1, 4), None), ((1, 3, 1, 4), [0]), ((1, 3, 1, 4), [-2, 0]), ((3, 1), [1]), ((1,), None)]
)
def test_squeeze(shape, axes):
    assert_exact("Squeeze", [floats(*shape), None if axes is None else ints(*axes)])


@pytest.mark.parametrize(
    ("shape", "axes"),
    [((3, 4), [0]), ((3, 4), [-1]), ((3, 4), [0, 3]), ((3, 4), [-1, 1]), ((), [0, 1]), ((2,), [2, -3])],
)
def test_unsqueeze(shape, axes):
    assert_exact("Unsqueeze", [floats(*shape), ints(*axes)])


PADS = [
    ([1, 2, 0, 0, 3, 1], None),
    ([0, 1, 2, 0, 1, 1], None),
    ([1, 2], [-1]),
    ([2, 1, 1, 0], [2, 0]),
    ([1, -1, 2, 1], [-3, -1]),
]


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge", "wrap"])
@pytest.mark.parametrize(("pads", "axes"), PADS)
def test_pad(mode, pads, axes):
    data = floats(3, 4, 5)
    pad_inputs = [ints(*pads), None, None if axes is None else ints(*axes)]
    assert_exact("Pad", [data, *pad_inputs], mode=mode)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "wrap"])
def test_pad_negative_pads_crop(mode):
    assert_exact("Pad", [floats(4, 6), ints(-1, 2, 1, -2)], mode=mode)


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.int64])
def test_pad_constant_value(dtype):
    data = RNG.integers(-10, 10, (2, 3)).astype(dtype)
    assert_exact("Pad", [data, ints(1, 0, 2, 1), np.array(7, dtype)])


TRANSFORMS = ["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel", "half_pixel_symmetric"]
NEAREST_MODES = ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("nearest_mode", NEAREST_MODES)
@pytest.mark.parametrize("scales", [(1, 1, 2, 3), (1, 1, 0.5, 0.7), (1, 1, 1.5, 0.25), (1, 1, 3, 1)])
def test_resize_nearest_scales(transform, nearest_mode, scales):
    inputs = [floats(1, 2, 5, 10), None, np.array(scales, np.float32)]
    assert_exact("Resize", inputs, coordinate_transformation_mode=transform, nearest_mode=nearest_mode)


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("nearest_mode", NEAREST_MODES)
@pytest.mark.parametrize("sizes", [(1, 2, 9, 4), (1, 2, 1, 13), (2, 2, 5, 10)])
def test_resize_nearest_sizes(transform, nearest_mode, sizes):
    inputs = [floats(2, 2, 5, 10), None, None, ints(*sizes)]
    assert_exact("Resize", inputs, coordinate_transformation_mode=transform, nearest_mode=nearest_mode)


@pytest.mark.parametrize(
    ("tf_mode", "half_pixel_mode"), [("floor", "round_prefer_ceil"), ("round_prefer_floor", "ceil")]
)
@pytest.mark.parametrize("scales", [(1, 1, 2, 4), (1, 1, 0.5, 0.25), (1, 1, 4, 0.5)])
def test_resize_tf_half_pixel_for_nearest(tf_mode, half_pixel_mode, scales):
    # No oracle knows this mode any more (Resize-13 dropped it; onnxruntime 1.31 and onnx's
    # reference refuse it). With power-of-two scales every coordinate is exact, and its
    # (x + 0.5) / s is half_pixel's coordinate plus 0.5, so its floor and round_prefer_floor
    # pick what half_pixel's round_prefer_ceil and ceil pick: onnxruntime computes those.
    inputs = [floats(1, 2, 8, 12), None, np.array(scales, np.float32)]
    op, _, expected = run_both("Resize", inputs, nearest_mode=half_pixel_mode)
    op.attributes["coordinate_transformation_mode"] = StringAttr("tf_half_pixel_for_nearest")
    op.attributes["nearest_mode"] = StringAttr(tf_mode)
    np.testing.assert_array_equal(op.evaluate(inputs[::2])[0], expected[0])


@pytest.mark.parametrize("policy", ["stretch", "not_larger", "not_smaller"])
@pytest.mark.parametrize(("axes", "sizes"), [([2, 3], (7, 4)), ([3, 2], (3, 11)), ([2, 3], (10, 3))])
def test_resize_sizes_on_axes_and_aspect_ratio(policy, axes, sizes):
    inputs = [floats(1, 3, 5, 6), None, None, ints(*sizes)]
    assert_exact("Resize", inputs, axes=axes, keep_aspect_ratio_policy=policy)


def test_resize_negative_axes():
    # Only with stretch: both oracles mishandle negative axes under the other policies.
    assert_exact("Resize", [floats(1, 3, 5, 6), None, None, ints(3, 11)], axes=[-1, -2])


def test_resize_scales_on_axes_and_integer_data():
    data = RNG.integers(0, 255, (2, 3, 4)).astype(np.uint8)
    assert_exact("Resize", [data, None, np.array([2.5], np.float32)], axes=[1], nearest_mode="ceil")


INTERPOLATING_TRANSFORMS = [*TRANSFORMS, "tf_crop_and_resize"]
ROI = np.array([0, 0, 0.2, -0.1, 1, 1, 0.9, 0.8], np.float32)
"""tf_crop_and_resize's region: rows 0.2..0.9, columns -0.1..0.8 (some outputs extrapolate)"""


def interpolation_inputs(transform: str, shape: tuple[int, ...], scales=None, sizes=None) -> list:
    roi = ROI if transform == "tf_crop_and_resize" else None
    return [floats(*shape), roi, None if scales is None else np.array(scales, np.float32),
            None if sizes is None else ints(*sizes)]  # fmt: skip


@pytest.mark.parametrize(("oracle", "scales"), [
    ("onnxruntime", (1, 1, 2, 2)), ("onnxruntime", (1, 1, 0.5, 0.7)), ("onnxruntime", (1, 1, 1.5, 3)),
    ("reference", (1, 1, 2, 2)), ("reference", (1, 1, 0.4, 1.5)),
])  # fmt: skip
@pytest.mark.parametrize("transform", INTERPOLATING_TRANSFORMS)
def test_resize_linear_scales(oracle, transform, scales):
    """onnx's reference takes align_corners' and tf_crop_and_resize's output length as
    scale * in unrounded; onnxruntime (and bitfold) the output size: they agree where
    scale * in is whole."""
    inputs = interpolation_inputs(transform, (1, 2, 5, 6), scales=scales)
    assert_close("Resize", inputs, atol=1e-6, oracle=oracle, mode="linear", coordinate_transformation_mode=transform,
                 extrapolation_value=-3.0)  # fmt: skip


@pytest.mark.parametrize("transform", INTERPOLATING_TRANSFORMS)
@pytest.mark.parametrize("sizes", [(1, 2, 9, 4), (1, 2, 1, 13)])
def test_resize_linear_sizes(transform, sizes):
    inputs = interpolation_inputs(transform, (1, 2, 5, 6), sizes=sizes)
    assert_close("Resize", inputs, atol=1e-6, mode="linear", coordinate_transformation_mode=transform)


def test_resize_trilinear():
    inputs = [floats(1, 2, 3, 4, 5), None, np.array([1, 1, 2, 1.5, 0.6], np.float32)]
    assert_close("Resize", inputs, atol=1e-6, oracle="reference", mode="linear")


@pytest.mark.parametrize("exclude_outside", [0, 1])
@pytest.mark.parametrize("transform", ["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"])
@pytest.mark.parametrize("scales", [(1, 1, 2, 2), (1, 1, 1.5, 0.8)])
def test_resize_cubic(exclude_outside, transform, scales):
    inputs = [floats(1, 2, 5, 6), None, np.array(scales, np.float32)]
    assert_close("Resize", inputs, atol=1e-5, mode="cubic", coordinate_transformation_mode=transform,
                 exclude_outside=exclude_outside, cubic_coeff_a=-0.5)  # fmt: skip


def test_resize_nearest_tf_crop_and_resize():
    inputs = interpolation_inputs("tf_crop_and_resize", (1, 2, 5, 6), scales=(1, 1, 2, 1.5))
    assert_exact("Resize", inputs, coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=7.0)


def test_resize_antialias_is_refused():
    with pytest.raises(VerifyException, match="mode linear with antialias 1 is not supported"):
        run_both("Resize", [floats(1, 1, 4, 4), None, np.array([1, 1, 0.5, 0.5], np.float32)], mode="linear",
                 antialias=1)  # fmt: skip


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
@pytest.mark.parametrize(("shape", "blocksize"), [((1, 8, 2, 3), 2), ((2, 18, 3, 2), 3), ((1, 4, 1, 1), 2)])
def test_depth_to_space(mode, shape, blocksize):
    assert_exact("DepthToSpace", [floats(*shape)], mode=mode, blocksize=blocksize)


@pytest.mark.parametrize(("shape", "blocksize"), [((1, 2, 4, 6), 2), ((2, 1, 6, 3), 3), ((1, 3, 2, 2), 2)])
def test_space_to_depth(shape, blocksize):
    assert_exact("SpaceToDepth", [floats(*shape)], blocksize=blocksize)


INT64_MAX, INT64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min
SLICES = [
    ([0, 1], [2, 3], None, None),
    ([1], [-1], [2], None),
    ([-3, 0], [INT64_MAX, 4], [1, 2], [1, 2]),
    ([INT64_MAX], [INT64_MIN], [1], [-1]),
    ([4, -1], [0, -7], [-1, 0], [-2, -1]),
    ([10], [20], [0], None),
    ([0, 0, 1], [1, 3, 5], [0, 1, 2], [1, 1, 3]),
]


@pytest.mark.parametrize(("starts", "ends", "axes", "steps"), SLICES)
def test_slice(starts, ends, axes, steps):
    inputs = [floats(2, 3, 5), ints(*starts), ints(*ends), None if axes is None else ints(*axes)]
    assert_exact("Slice", [*inputs, None if steps is None else ints(*steps)])


@pytest.mark.parametrize(
    ("shape", "axis", "split", "outputs"),
    [((4, 6), 1, [1, 2, 3], 3), ((4, 6), 0, None, 2), ((5, 2), -2, [5, 0], 2), ((2, 3, 4), 2, [1, 3], 2)],
)
def test_split(shape, axis, split, outputs):
    count = {"num_outputs": outputs} if split is None else {}
    sizes = None if split is None else ints(*split)
    assert_exact("Split", [floats(*shape), sizes], outputs=outputs, axis=axis, **count)


def test_split_uneven_num_outputs():
    # opset 18: without `split`, pieces of ceil(7 / 3) = 3 and the rest
    assert_exact("Split", [floats(7, 2), None], outputs=3, axis=0, num_outputs=3)


@pytest.mark.parametrize(
    ("axis", "indices"),
    [(0, np.array(1)), (1, np.array([2, 0, -1])), (-1, np.array([[0, 3], [4, -5]])), (2, np.array([], np.int64))],
)
def test_gather(axis, indices):
    assert_exact("Gather", [RNG.integers(-100, 100, (2, 3, 5)).astype(np.int8), indices.astype(np.int64)], axis=axis)
