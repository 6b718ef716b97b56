"""onnx Min, Max, Round, ReduceMin and ReduceMax against onnxruntime: exact."""

import numpy as np
import pytest
from onnx_node_oracle import assert_exact

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("op_type", ["Min", "Max"])
@pytest.mark.parametrize("shapes", [[(3, 4)], [(3, 4), (4,)], [(2, 1, 3), (1, 5, 1), (3,)]])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint8])
def test_variadic_min_max_broadcast(op_type, shapes, dtype):
    inputs = [(RNG.standard_normal(s) * 50).astype(dtype) for s in shapes]
    assert_exact(op_type, inputs)


def test_round_ties_to_even():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4999998, -0.0, 7.0, 1e20], dtype=np.float32)
    assert_exact("Round", [x])


@pytest.mark.parametrize("op_type", ["ReduceMin", "ReduceMax"])
@pytest.mark.parametrize(("axes", "keepdims"), [(None, 1), (None, 0), ([1], 1), ([-1, 0], 0), ([0, 2], 1)])
def test_reductions(op_type, axes, keepdims):
    data = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    axes_input = None if axes is None else np.array(axes, dtype=np.int64)
    assert_exact(op_type, [data, axes_input], keepdims=keepdims)


@pytest.mark.parametrize("op_type", ["ReduceMin", "ReduceMax"])
def test_empty_axes_with_noop_returns_the_data(op_type):
    data = RNG.integers(0, 255, (2, 3), dtype=np.uint8)
    assert_exact(op_type, [data, np.array([], dtype=np.int64)], noop_with_empty_axes=1)
