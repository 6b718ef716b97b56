"""`.npy` inputs: real numeric arrays read exactly as numpy reads them; every other file one
`ArrayFileError` line (and one `error:` line, exit 1, from the tools), before allocating."""

import io

import numpy as np
import pytest

from bitfold.array_files import ArrayFileError, load_array
from bitfold.dialects.tensor_limits import tensor_limits
from bitfold.run_main import main as run_main


@pytest.mark.parametrize("array", [
    np.arange(6, dtype=np.int8).reshape(2, 3),
    np.arange(6, dtype=">i4").reshape(3, 2),
    np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4)),
    np.array([True, False]),
    np.array(3.5, dtype=np.float16),
    np.zeros((0, 5), dtype=np.uint64),
])
def test_numeric_arrays_read_as_numpy_reads_them(tmp_path, array):
    np.save(tmp_path / "a.npy", array)
    loaded = load_array(tmp_path / "a.npy")
    expected = np.load(tmp_path / "a.npy", allow_pickle=False)
    np.testing.assert_array_equal(loaded, expected)
    assert loaded.dtype == expected.dtype.newbyteorder("=") and loaded.shape == expected.shape


def npy_bytes(array) -> bytes:
    stream = io.BytesIO()
    np.save(stream, array, allow_pickle=True)
    return stream.getvalue()


def header_claiming(shape) -> bytes:
    """A version 1.0 header for float32 data of `shape` and no data."""
    stream = io.BytesIO()
    np.lib.format.write_array_header_1_0(stream, {"descr": "<f4", "fortran_order": False, "shape": shape})
    return stream.getvalue()


BAD_FILES = {
    "object": (npy_bytes(np.array([{"a": 1}], dtype=object)), "unsupported element type object"),
    "complex": (npy_bytes(np.ones(2, np.complex64)), "unsupported element type complex64"),
    "datetime": (npy_bytes(np.array(["2020-01-01"], dtype="datetime64[D]")), "unsupported element type datetime64[D]"),
    "string": (npy_bytes(np.array(["ab"])), "unsupported element type <U2"),
    "structured": (npy_bytes(np.zeros(2, dtype=[("a", "i4")])), "unsupported element type"),
    "longdouble": (npy_bytes(np.ones(2, np.longdouble)), "unsupported element type float128"),
    "truncated": (npy_bytes(np.ones(100, np.float32))[:-7], "the header promises 400 data bytes, the file holds 393"),
    "too long": (npy_bytes(np.ones(4, np.float32)) + b"x", "the header promises 16 data bytes, the file holds more"),
    "empty": (b"", "not a .npy array file"),
    "bad magic": (b"PK\x03\x04 not npy", "not a .npy array file"),
    "bad header": (b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'  \n", "not a .npy array file"),
    "header not a dict": (b"\x93NUMPY\x01\x00\x10\x00[1, 2, 3]      \n", "not a .npy array file"),
    "version 9": (b"\x93NUMPY\x09\x00\x10\x00" + b" " * 16, "unsupported .npy format version 9.0"),
    "1e6 x 1e6": (header_claiming((10**6, 10**6)), "has 1,000,000,000,000 elements"),
    "negative dim": (header_claiming((-1, 4)), "not a .npy array file"),
}


@pytest.mark.parametrize("case", BAD_FILES)
def test_bad_files_are_one_error(tmp_path, case):
    data, message = BAD_FILES[case]
    path = tmp_path / "bad.npy"
    path.write_bytes(data)
    with pytest.raises(ValueError) as error:
        load_array(path)
    assert str(error.value).startswith(str(path)) and message in str(error.value)
    assert "\n" not in str(error.value)


def test_the_cap_can_be_raised(tmp_path):
    np.save(tmp_path / "a.npy", np.ones(1000, np.int8))
    with tensor_limits(max_bytes=999), pytest.raises(ValueError, match="over the cap"):
        load_array(tmp_path / "a.npy")
    with tensor_limits(max_bytes=1000):
        assert load_array(tmp_path / "a.npy").size == 1000


def test_run_reports_a_bad_input_file_in_one_line(tmp_path, capsys):
    source = tmp_path / "f.mlir"
    source.write_text("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n  func.return %a : tensor<2xf32>\n}\n")
    (tmp_path / "x.npy").write_bytes(BAD_FILES["object"][0])
    with pytest.raises(SystemExit) as exit_status:
        run_main([str(source), "--input", f"a={tmp_path / 'x.npy'}"])
    assert exit_status.value.code == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {tmp_path / 'x.npy'}: unsupported element type object (bool, integers and float16/32/64 only)"
    ]


def test_array_file_error_is_a_value_error():
    assert issubclass(ArrayFileError, ValueError)
