"""`.rodata` text (`emission/emit.py`): each constant's elements in decimal, 16 a line, at the
directive of its element size; `decimal_strings` is Python's `str` of each element whether or not
it goes through its table of the value range."""

import numpy as np
import pytest
from xdsl.dialects import memref
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, MemRefType, StringAttr, TensorType, UnitAttr, i8, i32

from bitfold.backends.riscv.emission.emit import data_sections, decimal_strings

RNG = np.random.default_rng(7)


@pytest.mark.parametrize(
    "values",
    [
        RNG.integers(-128, 128, 1000),  # bytes: through the table
        np.array([], dtype=np.int64),
        np.full(40, 5),
        np.array([-(2**31), 2**31 - 1, 7]),  # a wide range: element by element
        np.arange(-70_000, 70_000, 3),
        np.array([2**62, -(2**63), 0]),
    ],
)
def test_decimal_strings_are_str_of_each_element(values):
    assert decimal_strings(values.astype(np.int64)) == [str(v) for v in values.tolist()]


def _global(name: str, values: list[int], element) -> memref.GlobalOp:
    memref_type = MemRefType(element, [len(values)])
    data = DenseIntOrFPElementsAttr.from_list(TensorType(element, [len(values)]), values)
    return memref.GlobalOp.get(StringAttr(name), memref_type, data, StringAttr("private"), UnitAttr())


def test_data_sections_write_sixteen_values_a_line():
    weights = [(-1) ** k * k for k in range(20)]
    text = data_sections([_global("w", weights, i8), _global("b", [70_000, -5], i32)])
    assert text == (
        ".section .rodata\n.p2align 0\nw:\n"
        "    .byte 0, -1, 2, -3, 4, -5, 6, -7, 8, -9, 10, -11, 12, -13, 14, -15\n"
        "    .byte 16, -17, 18, -19\n"
        ".p2align 2\nb:\n    .word 70000, -5\n"
    )
