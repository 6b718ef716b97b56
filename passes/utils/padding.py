"""Spatial padding of storage integers, as a sliding window reads them."""

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, StringAttr, TensorType, i32, i64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from bitfold.dialects.onnx.nn import SlidingWindow
from bitfold.dialects.onnx.shape import PadOp
from bitfold.passes.utils.linalg_building import integer_constant


def padded(rewriter: PatternRewriter, storage: SSAValue, fill: int | float, window: SlidingWindow) -> SSAValue:
    """The storage integers (or floats) padded with `fill` as the window needs (begin: the
    pads; end: what the last window reads beyond the input), or themselves."""
    ends = window.pads_needed_at_end
    if not any(window.pads_begin) and not any(ends):
        return storage
    pads = np.array([0, 0, *window.pads_begin, 0, 0, *ends], dtype=np.int64)
    element = storage.type.element_type
    shape = [*storage.type.get_shape()[:2], *(i + b + e for i, b, e in zip(window.input_shape, window.pads_begin, ends))]
    pad = PadOp.create(
        operands=[storage, integer_constant(rewriter, pads, i64), integer_constant(rewriter, np.array(fill), element)],
        properties={"operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 1, 1, 0])},
        attributes={"mode": StringAttr("constant")},
        result_types=[TensorType(element, shape)],
    )
    rewriter.insert(pad)
    return pad.output


def padded_taps(window: SlidingWindow) -> np.ndarray:
    """padded[o_1..o_d, k_1..k_d]: whether the window at output position o reads tap k from
    the padding (outside the input), as booleans of shape (*output_shape, *kernel)."""
    spatial = len(window.input_shape)
    padded = np.zeros((*window.output_shape, *window.kernel), dtype=bool)
    for axis in range(spatial):
        out = np.arange(window.output_shape[axis]).reshape(-1, 1)
        tap = np.arange(window.kernel[axis]).reshape(1, -1)
        position = out * window.strides[axis] - window.pads_begin[axis] + tap * window.dilations[axis]
        outside = (position < 0) | (position >= window.input_shape[axis])
        shape = [1] * (2 * spatial)
        shape[axis], shape[spatial + axis] = outside.shape
        padded |= outside.reshape(shape)
    return padded
