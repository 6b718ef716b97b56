"""xDSL 0.74's verifier does not check dominance: `ModuleOp.verify()` accepts a use before its
definition in the same block (MLIR: "operand #0 does not dominate this use").

`check_dominance(module)`: an operand defined in the same block must be defined before its use,
one defined in an enclosing block before the op holding the use, a block argument must belong to
a block enclosing the use (values flowing between blocks of one multi-block region are not
checked)."""

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException


def _dominates(value: SSAValue, user: Operation) -> bool:
    if isinstance(value, BlockArgument):
        return value.block.find_ancestor_op_in_block(user) is not None
    definition = value.owner
    assert isinstance(definition, Operation)
    block = definition.parent_block()
    if block is None:
        return False
    holder = block.find_ancestor_op_in_block(user)
    if holder is not None:
        return holder is not definition and definition.is_before_in_block(holder)
    ancestor: Operation | None = user  # another block: accepted within the same region
    while ancestor is not None and ancestor.parent_region() is not block.parent:
        ancestor = ancestor.parent_op()
    return ancestor is not None


def check_dominance(module: ModuleOp) -> None:
    """Raise `VerifyException` at the first use its definition does not dominate."""
    for op in module.walk():
        for index, operand in enumerate(op.operands):
            if not _dominates(operand, op):
                raise VerifyException(f"'{op.name}' op operand #{index} does not dominate this use")
