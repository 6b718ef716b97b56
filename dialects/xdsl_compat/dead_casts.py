"""xDSL 0.74's pattern walkers fail on an `unrealized_conversion_cast` without uses ("insertion
point must have a parent block") when a pattern has erased what it converted.

`erase_unused_casts(module)` drops every such cast, innermost last, before the next walker runs
(the RISC-V float lowering's register shortcut leaves them)."""

from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.rewriter import Rewriter


def erase_unused_casts(module: ModuleOp) -> None:
    """Erase the `unrealized_conversion_cast`s of `module` whose result has no use."""
    for op in reversed(list(module.walk())):
        if isinstance(op, UnrealizedConversionCastOp) and not op.results[0].uses:
            Rewriter.erase_op(op)
