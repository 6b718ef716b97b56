"""`bitfold.dialects.minifloat` against ml_dtypes (what onnx's reference implementation casts with):
every format, saturating or not, on float32 values chosen where rounding decides (every exponent, the
bits below each format's step at, just below and just above the tie) plus the specials; and decoding of
every bit pattern."""

import ml_dtypes
import numpy as np
import onnx
import pytest

from models.minifloat_cases import CASES

from bitfold.dialects.minifloat import FLOAT_STORAGE_TYPES, decode, encode, numpy_float_storage_dtype



def ml_dtypes_cast(x: np.ndarray, dtype: np.dtype, saturate: bool) -> np.ndarray:
    """onnx's reference QuantizeLinear conversion: `saturate_cast` (clip, then cast) for float8 when
    saturating, else ml_dtypes' cast."""
    with np.errstate(invalid="ignore"):
        if saturate and dtype.itemsize == 1 and dtype != np.dtype(ml_dtypes.float4_e2m1fn):
            return onnx.numpy_helper.saturate_cast(x, dtype)
        return x.astype(dtype)


@pytest.mark.parametrize("saturate", [True, False])
@pytest.mark.parametrize("float_type", FLOAT_STORAGE_TYPES, ids=lambda t: t.name)
def test_encode_is_ml_dtypes_rounding(float_type, saturate):
    dtype = numpy_float_storage_dtype(float_type())
    got = encode(CASES, float_type.SEMANTICS, saturate)
    want = ml_dtypes_cast(CASES, dtype, saturate).view(np.uint8)
    wrong = np.flatnonzero(got != want)
    assert wrong.size == 0, [(CASES[i], hex(got[i]), hex(want[i])) for i in wrong[:8]]


@pytest.mark.parametrize("float_type", FLOAT_STORAGE_TYPES, ids=lambda t: t.name)
def test_decode_is_exact(float_type):
    dtype = numpy_float_storage_dtype(float_type())
    codes = np.arange(1 << float_type.SEMANTICS.bitwidth, dtype=np.uint8)
    got, want = decode(codes, float_type.SEMANTICS), codes.view(dtype).astype(np.float32)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    finite = ~np.isnan(want)
    assert got[finite].tobytes() == want[finite].tobytes()
    assert np.array_equal(np.signbit(got[~finite]), np.signbit(want[~finite]))
    assert np.array_equal(decode(codes.view(dtype), float_type.SEMANTICS), got, equal_nan=True)


@pytest.mark.parametrize("float_type", FLOAT_STORAGE_TYPES, ids=lambda t: t.name)
def test_decode_then_encode_is_identity_on_every_non_nan_pattern(float_type):
    semantics = float_type.SEMANTICS
    codes = np.arange(1 << semantics.bitwidth, dtype=np.uint8)
    values = decode(codes, semantics)
    kept = ~np.isnan(values)
    assert np.array_equal(encode(values[kept], semantics, saturate=False), codes[kept])
