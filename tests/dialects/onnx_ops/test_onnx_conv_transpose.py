"""`onnx.ConvTranspose` (`dialects/onnx/conv_transpose.py`) against onnxruntime and onnx's
reference evaluator over a grid of groups, strides, pads, dilations, output_padding,
output_shape and auto_pad (sums of products: `assert_close_sums`)."""

import numpy as np
import pytest
from onnx_node_oracle import assert_close_sums

RNG = np.random.default_rng(20)

CASES = [
    ((1, 3, 5, 6), (3, 4, 3, 3), True, {}),
    ((2, 3, 5, 6), (3, 2, 3, 2), True, {"strides": [2, 3], "pads": [1, 0, 2, 1]}),
    ((1, 2, 4, 4), (2, 3, 3, 3), False, {"strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1]}),
    ((1, 4, 5, 5), (4, 3, 3, 3), True, {"group": 2, "strides": [2, 2], "dilations": [2, 1]}),
    ((1, 6, 4, 5), (6, 1, 4, 4), True, {"group": 6, "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ((1, 3, 4, 5), (3, 2, 3, 3), True, {"strides": [2, 2], "output_shape": [9, 12]}),
    ((1, 3, 4, 5), (3, 2, 3, 3), True, {"strides": [3, 2], "auto_pad": "SAME_UPPER"}),
    ((1, 3, 4, 5), (3, 2, 2, 3), True, {"strides": [2, 2], "auto_pad": "SAME_LOWER"}),
    ((1, 3, 4, 5), (3, 2, 3, 3), False, {"strides": [2, 1], "auto_pad": "VALID"}),
    ((2, 3, 7), (3, 5, 4), True, {"strides": [3], "pads": [2, 1], "dilations": [2], "output_padding": [2]}),
    ((1, 2, 3, 3, 4), (2, 2, 2, 3, 2), True, {"strides": [2, 1, 2], "pads": [0, 1, 1, 1, 0, 0]}),
]


def floats(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize(("oracle", "x_shape", "w_shape", "bias", "attributes"), [
    *[("onnxruntime", *case) for case in CASES],
    *[("reference", *case) for case in CASES if case[3].get("group", 1) == 1],
])  # fmt: skip
def test_conv_transpose(oracle, x_shape, w_shape, bias, attributes):
    """onnx 1.23's reference evaluator gets group > 1 wrong (it fails, or disagrees with
    onnxruntime): onnxruntime alone there."""
    groups = attributes.get("group", 1)
    inputs = [floats(*x_shape), floats(*w_shape), floats(w_shape[1] * groups) if bias else None]
    assert_close_sums("ConvTranspose", inputs, oracle=oracle, **attributes)
