"""ONNX shape and data-movement ops (conventions in `base.py`). They move elements without
arithmetic, so their references are exact for every element type."""

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    I64,
    AnyFloat,
    DenseArrayBase,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    opt_operand_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from bitfold.dialects.evaluation import named_operands
from bitfold.dialects.onnx.base import OnnxOp, ints_or
from bitfold.dialects.onnx.interpolation import (
    COORDINATE_TRANSFORMATIONS,
    TAPS,
    interpolate,
    interpolation_taps,
    outside_roi,
    source_coordinates,
)


def normalized_axes(axes: Sequence[int] | np.ndarray, rank: int) -> list[int]:
    """`axes` with negative entries counted from the end of a rank-`rank` shape."""
    normalized = []
    for axis in map(int, axes):
        if not -rank <= axis < rank:
            raise ValueError(f"axis {axis} is out of range for rank {rank}")
        normalized.append(axis % rank)
    return normalized


@irdl_op_definition
class ReshapeOp(OnnxOp):
    """reshaped = data with the shape `shape`, elements in row-major order. One entry may be -1
    (inferred from the element count); an entry 0 copies data's dimension at that index, or with
    allowzero 1 is a zero dimension."""

    name = "onnx.Reshape"
    data = operand_def()
    shape = operand_def()
    reshaped = result_def()

    allowzero = attr_def(IntegerAttr[I64])

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        data, shape = operands
        target = [int(size) for size in shape]
        if not self.int_attr("allowzero"):
            target = [data.shape[i] if size == 0 else size for i, size in enumerate(target)]
        return (data.reshape(target),)


@irdl_op_definition
class FlattenOp(OnnxOp):
    """output = input as a 2-D matrix (d0 * ... * d(axis-1)) x (d(axis) * ... * d(n-1)); axis is in
    [-rank, rank], negative counting from the end."""

    name = "onnx.Flatten"
    input = operand_def()
    output = result_def()

    axis = attr_def(IntegerAttr[I64])

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        axis = self.int_attr("axis")
        axis = axis + x.ndim if axis < 0 else axis
        return (x.reshape(math.prod(x.shape[:axis]), math.prod(x.shape[axis:])),)


@irdl_op_definition
class TransposeOp(OnnxOp):
    """transposed[i[perm[0]], ..., i[perm[n-1]]] = data[i[0], ..., i[n-1]]: axis k of the result
    is axis perm[k] of data; perm defaults to the axes reversed."""

    name = "onnx.Transpose"
    data = operand_def()
    transposed = result_def()

    perm = opt_attr_def(DenseArrayBase[I64])

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return (np.transpose(operands[0], ints_or(self.attributes, "perm", None)),)


@irdl_op_definition
class ConcatOp(OnnxOp):
    """concat_result = the inputs joined along `axis` (negative counts from the end)."""

    name = "onnx.Concat"
    inputs = var_operand_def()
    concat_result = result_def()

    axis = attr_def(IntegerAttr[I64])

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return (np.concatenate(operands, axis=self.int_attr("axis")),)


@irdl_op_definition
class SqueezeOp(OnnxOp):
    """squeezed = data without the size-1 axes listed in `axes` (negative counts from the end),
    or without every size-1 axis when `axes` is absent."""

    name = "onnx.Squeeze"
    data = operand_def()
    axes = opt_operand_def()
    squeezed = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        data, axes = values["data"], values["axes"]
        if axes is None:
            return (np.squeeze(data),)
        return (np.squeeze(data, axis=tuple(normalized_axes(axes, data.ndim))),)


@irdl_op_definition
class UnsqueezeOp(OnnxOp):
    """expanded = data with size-1 axes inserted at the positions `axes` of the result
    (rank + len(axes); negative counts from the result's end)."""

    name = "onnx.Unsqueeze"
    data = operand_def()
    axes = operand_def()
    expanded = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        data, axes = operands
        return (np.expand_dims(data, tuple(normalized_axes(axes, data.ndim + len(axes)))),)


PAD_MODES = ("constant", "reflect", "edge", "wrap")
"""ONNX Pad's modes; numpy.pad's modes of the same names compute them."""


@irdl_op_definition
class PadOp(OnnxOp):
    """output = data with `pads[i]` elements added before and `pads[len(axes) + i]` after axis
    `axes[i]` (default: every axis in order; negative counts from the end). A negative pad
    removes elements; removal happens before padding. Added elements are `constant_value`
    (default 0), or for mode reflect the mirror image without the edge element, edge the edge
    element, wrap the elements from the opposite side."""

    name = "onnx.Pad"
    data = operand_def()
    pads = operand_def()
    constant_value = opt_operand_def()
    axes = opt_operand_def()
    output = result_def()

    mode = attr_def(StringAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        data, pads, axes = values["data"], values["pads"], values["axes"]
        axes = range(data.ndim) if axes is None else normalized_axes(axes, data.ndim)
        widths = [[0, 0] for _ in range(data.ndim)]
        for i, axis in enumerate(axes):
            widths[axis] = [int(pads[i]), int(pads[len(axes) + i])]
        kept = tuple(slice(max(0, -begin), size - max(0, -end)) for (begin, end), size in zip(widths, data.shape))
        added = [(max(0, begin), max(0, end)) for begin, end in widths]
        mode = self.string_attr("mode")
        if mode not in PAD_MODES:
            raise ValueError(f"{self.name}: unknown mode '{mode}'")
        if mode != "constant":
            return (np.pad(data[kept], added, mode=mode),)
        # constant_value has data's type, or (signless storage after quant-to-integer) its bits
        fill = 0 if values["constant_value"] is None else values["constant_value"].reshape(()).astype(data.dtype)
        return (np.pad(data[kept], added, mode="constant", constant_values=fill),)


def _nearest(coordinates: np.ndarray, mode: str) -> np.ndarray:
    """The int64 indices `nearest_mode` picks for the coordinates (rounded exactly, in float64)."""
    wide = coordinates.astype(np.float64)
    rounding = {
        "round_prefer_floor": lambda c: np.ceil(c - 0.5),
        "round_prefer_ceil": lambda c: np.floor(c + 0.5),
        "floor": np.floor,
        "ceil": np.ceil,
    }
    if mode not in rounding:
        raise ValueError(f"onnx.Resize: unknown nearest_mode '{mode}'")
    return rounding[mode](wide).astype(np.int64)


@irdl_op_definition
class ResizeOp(OnnxOp):
    """Y = X resized along `axes` (default all; negative counts from the end).

    Output sizes: `sizes`; or floor(in * scale) for `scales` (the product in float32, as
    onnxruntime computes it). With `sizes`, scale = out / in in float32, except that with
    keep_aspect_ratio_policy not_larger / not_smaller every resized axis takes the smallest /
    largest of those ratios and the size floor(scale * in + 0.5) (product in float32).

    mode nearest: Y at output index x reads X at index
    clamp(nearest_mode(c(x)), 0, in - 1) along each resized axis, where the float32 coordinate
    c(x) (`interpolation.source_coordinates`) follows coordinate_transformation_mode: half_pixel
    (x + 0.5) / scale - 0.5; pytorch_half_pixel the same, or 0 when out is 1;
    half_pixel_symmetric the same shifted to keep the centre; asymmetric x / scale;
    align_corners x * (in - 1) / (out - 1), or 0 when out is 1; tf_half_pixel_for_nearest
    (x + 0.5) / scale (opset 11 and 12 only); tf_crop_and_resize maps the output onto the
    region `roi` (starts then ends, normalized) and writes extrapolation_value outside the
    input. nearest_mode: round_prefer_floor / round_prefer_ceil round to nearest with ties
    down / up, floor, ceil.

    modes linear and cubic (cubic_coeff_a, exclude_outside) weigh the taps of
    `interpolation.interpolation_taps` axis after axis, computed in float64 and rounded once to
    X's float type. antialias 1 has no reference (refused by the verifier), nor do linear and
    cubic on integer tensors."""

    name = "onnx.Resize"
    x = operand_def()
    roi = opt_operand_def()
    scales = opt_operand_def()
    sizes = opt_operand_def()
    y = result_def()

    antialias = attr_def(IntegerAttr[I64])
    axes = opt_attr_def(DenseArrayBase[I64])
    coordinate_transformation_mode = attr_def(StringAttr)
    cubic_coeff_a = attr_def(FloatAttr[Float32Type])
    exclude_outside = attr_def(IntegerAttr[I64])
    extrapolation_value = attr_def(FloatAttr[Float32Type])
    keep_aspect_ratio_policy = attr_def(StringAttr)
    mode = attr_def(StringAttr)
    nearest_mode = attr_def(StringAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        mode = self.string_attr("mode")
        if mode != "nearest" and mode not in TAPS:
            raise VerifyException(f"unknown mode '{mode}'")
        if (transform := self.string_attr("coordinate_transformation_mode")) not in COORDINATE_TRANSFORMATIONS:
            raise VerifyException(f"unknown coordinate_transformation_mode '{transform}'")
        if mode != "nearest" and self.int_attr("antialias"):
            raise VerifyException(f"mode {mode} with antialias 1 is not supported")
        element = self.x.type.get_element_type() if isinstance(self.x.type, TensorType) else None
        if mode != "nearest" and element is not None and not isinstance(element, AnyFloat):
            raise VerifyException(f"mode {mode} on {element} is not supported (float tensors only)")

    def selects_elements(self) -> bool:
        """Whether every output element is an input element (mode nearest, no extrapolation)."""
        return self.string_attr("mode") == "nearest" and (
            self.string_attr("coordinate_transformation_mode") != "tf_crop_and_resize")

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        x = values["x"]
        maps = self.axis_maps(x.shape, values["roi"], values["scales"], values["sizes"])
        for axis, indices, weights, outside in maps:
            if weights is None:
                x = np.take(x, indices[:, 0], axis=axis)
            else:
                x = interpolate(x.astype(np.float64), axis, indices, weights)
            if outside.any():
                x[(slice(None),) * axis + (outside,)] = self.float_attr("extrapolation_value")
        return (x.astype(values["x"].dtype),)

    def axis_maps(self, shape: Sequence[int], roi: np.ndarray | None, scales: np.ndarray | None,
                  sizes: np.ndarray | None) -> list[tuple[int, np.ndarray, np.ndarray | None, np.ndarray]]:
        """Per resized axis: (axis, indices (out, taps), float64 weights (out, taps) or None for
        nearest, the outputs outside tf_crop_and_resize's region); an axis that linear or cubic
        maps onto itself (weight 1 on its own element) is left out."""
        axes = normalized_axes(ints_or(self.attributes, "axes", range(len(shape))), len(shape))
        in_sizes = [shape[axis] for axis in axes]
        out_sizes, scales = self._output_sizes_and_scales(in_sizes, scales, sizes)
        transform = self.string_attr("coordinate_transformation_mode")
        mode = self.string_attr("mode")
        maps = []
        for i, (axis, in_size, out_size, scale) in enumerate(zip(axes, in_sizes, out_sizes, scales)):
            coordinates = source_coordinates(transform, out_size, in_size, scale, self._roi(roi, i, axis, len(shape)))
            cropped = transform == "tf_crop_and_resize"
            outside = outside_roi(coordinates, in_size) if cropped else np.zeros(out_size, bool)
            if mode == "nearest":
                source = np.clip(_nearest(coordinates, self.string_attr("nearest_mode")), 0, in_size - 1)
                maps.append((axis, source[:, None], None, outside))
            else:
                indices, weights = interpolation_taps(mode, coordinates, in_size, self.float_attr("cubic_coeff_a"),
                                                      bool(self.int_attr("exclude_outside")))  # fmt: skip
                unit = np.zeros_like(weights)
                unit[:, 0] = 1
                same = out_size == in_size and np.array_equal(indices[:, 0], np.arange(in_size))
                if same and (weights == unit).all():
                    continue  # an axis the resize leaves as it is (scale 1)
                maps.append((axis, indices, weights, outside))
        return maps

    def _roi(self, roi: np.ndarray | None, index: int, axis: int, rank: int) -> tuple[float, float]:
        """(start, end) of the region along the `index`-th resized axis (`axis` of the input)."""
        if self.string_attr("coordinate_transformation_mode") != "tf_crop_and_resize":
            return (0.0, 1.0)
        if roi is None or not roi.size:
            raise ValueError(f"{self.name}: tf_crop_and_resize needs roi")
        half = roi.size // 2
        position = axis if half == rank else index
        return (float(roi[position]), float(roi[half + position]))

    def _output_sizes_and_scales(
        self, in_sizes: list[int], scales: np.ndarray | None, sizes: np.ndarray | None
    ) -> tuple[list[int], list[np.float32]]:
        """Output sizes and float32 scales of the resized axes (see the class docstring)."""
        if sizes is not None and sizes.size:
            ratios = [np.float32(out) / np.float32(size) for out, size in zip(sizes, in_sizes)]
            policy = self.string_attr("keep_aspect_ratio_policy")
            if policy == "stretch":
                return [int(size) for size in sizes], ratios
            scale = {"not_larger": min, "not_smaller": max}[policy](ratios)
            return [math.floor(float(scale * np.float32(size)) + 0.5) for size in in_sizes], [scale] * len(in_sizes)
        if scales is None or not scales.size:
            raise ValueError(f"{self.name}: neither scales nor sizes given")
        scales = [np.float32(scale) for scale in scales]
        return [int(np.float32(size) * scale) for size, scale in zip(in_sizes, scales)], scales


@irdl_op_definition
class DepthToSpaceOp(OnnxOp):
    """output[n, c, h * b + i, w * b + j] = input[n, k, h, w] for blocksize b and an input of
    C channels: k = (i * b + j) * C / b**2 + c in mode DCR (depth-column-row), k = c * b**2 + i * b + j
    in mode CRD (column-row-depth)."""

    name = "onnx.DepthToSpace"
    input = operand_def()
    output = result_def()

    blocksize = attr_def(IntegerAttr[I64])
    mode = attr_def(StringAttr)

    def block_permutation(self, shape: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """(blocks, perm, result shape): the op is input.reshape(blocks).transpose(perm)
        .reshape(result shape), row-major."""
        n, c, h, w = shape
        b = self.int_attr("blocksize")
        mode = self.string_attr("mode")
        if mode == "DCR":
            return (n, b, b, c // b**2, h, w), (0, 3, 4, 1, 5, 2), (n, c // b**2, h * b, w * b)
        if mode == "CRD":
            return (n, c // b**2, b, b, h, w), (0, 1, 4, 2, 5, 3), (n, c // b**2, h * b, w * b)
        raise ValueError(f"{self.name}: unknown mode '{mode}'")

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        blocks, perm, shape = self.block_permutation(x.shape)
        return (x.reshape(blocks).transpose(perm).reshape(shape),)


@irdl_op_definition
class SpaceToDepthOp(OnnxOp):
    """output[n, (i * b + j) * C + c, h, w] = input[n, c, h * b + i, w * b + j] for blocksize b
    and an input of C channels (DepthToSpace's inverse in mode DCR)."""

    name = "onnx.SpaceToDepth"
    input = operand_def()
    output = result_def()

    blocksize = attr_def(IntegerAttr[I64])

    def block_permutation(self, shape: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
        """(blocks, perm, result shape) as for DepthToSpace."""
        n, c, h, w = shape
        b = self.int_attr("blocksize")
        return (n, c, h // b, b, w // b, b), (0, 3, 5, 1, 2, 4), (n, c * b * b, h // b, w // b)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        blocks, perm, shape = self.block_permutation(x.shape)
        return (x.reshape(blocks).transpose(perm).reshape(shape),)


@irdl_op_definition
class SliceOp(OnnxOp):
    """output = data[starts[i] : ends[i] : steps[i]] along axis `axes[i]` (default: axes 0, 1,
    ... in order; steps default 1, never 0). Negative starts and ends count from the end of the
    axis; both are then clamped into it as Python slices are: [0, n] for a positive step,
    [-1, n - 1] for a negative one (so INT64_MAX / INT64_MIN mean "to the end / beginning")."""

    name = "onnx.Slice"
    data = operand_def()
    starts = operand_def()
    ends = operand_def()
    axes = opt_operand_def()
    steps = opt_operand_def()
    output = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        data, starts, ends = values["data"], values["starts"].reshape(-1), values["ends"].reshape(-1)
        axes = range(len(starts)) if values["axes"] is None else normalized_axes(values["axes"].reshape(-1), data.ndim)
        steps = [1] * len(starts) if values["steps"] is None else values["steps"].reshape(-1)
        index = [slice(None)] * data.ndim
        for axis, start, end, step in zip(axes, starts, ends, steps, strict=True):
            if int(step) == 0:
                raise ValueError(f"{self.name}: step 0 on axis {axis}")
            index[axis] = slice(int(start), int(end), int(step))
        return (data[tuple(index)],)


@irdl_op_definition
class SplitOp(OnnxOp):
    """outputs = input cut along `axis` (negative counts from the end) into pieces of the sizes
    `split`, or, without it, into as many pieces as there are outputs, each of
    ceil(n / outputs) elements but the last, which holds the rest (opset 18's num_outputs rule;
    older opsets require equal pieces, a case of it)."""

    name = "onnx.Split"
    input = operand_def()
    split = opt_operand_def()
    outputs = var_result_def()

    axis = attr_def(IntegerAttr[I64])
    num_outputs = opt_attr_def(IntegerAttr[I64])

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        x = values["input"]
        (axis,) = normalized_axes([self.int_attr("axis")], x.ndim)
        if values["split"] is not None:
            sizes = [int(size) for size in values["split"].reshape(-1)]
        else:
            count = len(self.outputs)
            piece = -(-x.shape[axis] // count)
            sizes = [piece] * (count - 1) + [x.shape[axis] - piece * (count - 1)]
        if sum(sizes) != x.shape[axis] or min(sizes) < 0:
            raise ValueError(f"{self.name}: sizes {sizes} do not split axis {axis} of {x.shape[axis]} elements")
        return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))


@irdl_op_definition
class GatherOp(OnnxOp):
    """output = the slices of data along `axis` at `indices` (negative counts from the end of
    the axis): output[i_0, ..., j_0, ..., j_m, ..., i_r] = data[i_0, ..., indices[j], ..., i_r],
    of shape data.shape[:axis] + indices.shape + data.shape[axis + 1:]."""

    name = "onnx.Gather"
    data = operand_def()
    indices = operand_def()
    output = result_def()

    axis = attr_def(IntegerAttr[I64])

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        data, indices = operands
        (axis,) = normalized_axes([self.int_attr("axis")], data.ndim)
        size = data.shape[axis]
        indices = indices.astype(np.int64)
        if indices.size and (indices.min() < -size or indices.max() >= size):
            raise ValueError(f"{self.name}: an index is outside [-{size}, {size - 1}]")
        return (np.take(data, np.where(indices < 0, indices + size, indices), axis=axis),)


OPS = [
    ReshapeOp,
    FlattenOp,
    TransposeOp,
    ConcatOp,
    SqueezeOp,
    UnsqueezeOp,
    PadOp,
    ResizeOp,
    DepthToSpaceOp,
    SpaceToDepthOp,
    SliceOp,
    SplitOp,
    GatherOp,
]
