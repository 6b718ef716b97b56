"""`transposed_elements`: a constant's elements with its axes permuted, as numpy's `transpose`
computes them, from whole-byte storage (numpy) and from a splat (element by element)."""

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType, Signedness, TensorType, i8, i16, i32

from bitfold.backends.llvm.vector_contraction import transposed_elements
from bitfold.dialects.onnx.constant import dense_attr, dense_to_numpy

RNG = np.random.default_rng(3)


@pytest.mark.parametrize(
    ("element", "low", "high"),
    [(i8, -128, 128), (IntegerType(8, Signedness.UNSIGNED), 0, 256), (i16, -(2**15), 2**15), (i32, -(2**31), 2**31)],
)
@pytest.mark.parametrize(
    ("shape", "order"), [([4, 3, 5, 2], [1, 2, 3, 0]), ([7, 9], [1, 0]), ([3, 1, 1, 8], [0, 2, 3, 1])]
)
def test_transposed_elements_are_numpy_transpose(element, low, high, shape, order):
    values = RNG.integers(low, high, shape)
    result = transposed_elements(dense_attr(values, element), element, shape, order)
    assert result.type == TensorType(element, [shape[a] for a in order])
    np.testing.assert_array_equal(dense_to_numpy(result), values.transpose(order))


def test_a_splat_is_broadcast_then_transposed():
    splat = DenseIntOrFPElementsAttr.from_list(TensorType(i8, [2, 3]), [5])
    result = transposed_elements(splat, i8, [2, 3], [1, 0])
    np.testing.assert_array_equal(dense_to_numpy(result), np.full((3, 2), 5))
