"""`read_signed` (dialects/evaluation.py), MLIR's signed reading of the low N bits, against Python's
unbounded integers: (v + 2^(N-1)) mod 2^N - 2^(N-1), for values held in every numpy integer type
(the interpreter's own, and the int64 / uint64 that arithmetic produces) at their extremes."""

import numpy as np
import pytest

from bitfold.dialects.evaluation import read_signed

WIDTHS = (1, 2, 4, 7, 8, 9, 16, 24, 32, 33, 48, 64)
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _values(dtype: str) -> np.ndarray:
    if dtype == "bool":
        return np.array([False, True])
    info = np.iinfo(dtype)
    drawn = np.random.default_rng(0).integers(info.min, info.max, 1000, dtype=dtype, endpoint=True)
    edges = np.array([info.min, info.min + 1, -1 if info.min else 1, 0, 1, info.max - 1, info.max], dtype=dtype)
    return np.concatenate([edges, drawn])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("width", WIDTHS)
def test_read_signed_is_the_low_bits_in_twos_complement(dtype, width):
    values = _values(dtype)
    half, modulus = 1 << (width - 1), 1 << width
    want = [(int(v) + half) % modulus - half for v in values]
    got = read_signed(values, width)
    assert got.dtype == np.int64
    assert got.tolist() == want
