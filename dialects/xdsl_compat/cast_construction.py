"""xDSL 0.74's `UnrealizedConversionCastOp.get(inputs, result_types)` builds each cast through IRDL's
generic builder (`irdl_op_init`: four argument lists checked and assembled, properties and
attributes filtered, for an op of one variadic operand and one variadic result): about twice
what making the same op costs. The RISC-V lowering makes a cast around every operand and result it
converts (about 14,000 on MobileNetV1, most of them in `convert-arith-to-riscv`).

`cast(inputs, result_types)` makes the same op with `Operation.create`: operands `SSAValue.get` of
each input (an op stands for its one result, as IRDL's builder takes it), those result types, no
properties, attributes, regions or successors, which is what IRDL's builder makes of these
arguments. Within `direct_cast_construction()`, `UnrealizedConversionCastOp.get` is `cast`."""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from xdsl.dialects.builtin import UnrealizedConversionCastOp
from xdsl.ir import Attribute, Operation, SSAValue

XDSL_CAST_GET = UnrealizedConversionCastOp.get
"""xDSL 0.74's: `UnrealizedConversionCastOp.build(operands=[inputs], result_types=[result_type])`"""


def cast(inputs: Sequence[SSAValue | Operation], result_type: Sequence[Attribute]) -> UnrealizedConversionCastOp:
    """The op `XDSL_CAST_GET(inputs, result_type)` makes (module docstring)."""
    return UnrealizedConversionCastOp.create(
        operands=[SSAValue.get(value) for value in inputs], result_types=list(result_type)
    )


@contextmanager
def direct_cast_construction() -> Iterator[None]:
    """`UnrealizedConversionCastOp.get` is `cast` within the block; whatever was installed before, after it."""
    installed = UnrealizedConversionCastOp.__dict__["get"]
    UnrealizedConversionCastOp.get = staticmethod(cast)
    try:
        yield
    finally:
        UnrealizedConversionCastOp.get = installed
