"""`cast` makes the op xDSL's `UnrealizedConversionCastOp.get` makes (the oracle: the same inputs,
the printed op, operands, result types, properties and attributes compared), and
`direct_cast_construction` installs it only within its block."""

import pytest
from xdsl.dialects import riscv
from xdsl.dialects import test as test_dialect
from xdsl.dialects.builtin import IndexType, UnrealizedConversionCastOp, i32

from bitfold.dialects.xdsl_compat import cast_construction

REGISTER = riscv.Registers.UNALLOCATED_INT


def arguments():
    two = test_dialect.TestOp(result_types=[i32, IndexType()])
    one = test_dialect.TestOp(result_types=[i32])
    return [
        ((two.results[0],), (REGISTER,)),
        (tuple(two.results), (REGISTER, REGISTER)),
        ((one,), (IndexType(),)),  # an op stands for its one result
        ((), ()),
    ]


@pytest.mark.parametrize("index", range(4))
def test_the_op_xdsls_get_makes(index):
    inputs, types = arguments()[index]
    expected = cast_construction.XDSL_CAST_GET(inputs, types)
    made = cast_construction.cast(inputs, types)
    assert type(made) is UnrealizedConversionCastOp
    assert str(made) == str(expected)
    assert list(made.operands) == list(expected.operands) and made.result_types == expected.result_types
    assert made.properties == expected.properties and made.attributes == expected.attributes
    assert not made.regions and not made.successors
    made.verify()


def test_installed_within_the_block_only():
    with cast_construction.direct_cast_construction():
        assert UnrealizedConversionCastOp.get is cast_construction.cast
    assert UnrealizedConversionCastOp.get is cast_construction.XDSL_CAST_GET
