"""`bitfold-riscv-sink-constants`: constants next to the loop nests that use them.

LICM hoists every `li`/`la` out of every loop to the function's top level and CSE then merges
equal ones: a constant one requantization uses, or two nests share, lives from the function's
entry to its last use, holding a register through every hot loop between. This pass gives
each loop nest that uses such a constant a copy of its own right before it, so that a constant
lives through one nest only (uses outside loops keep the original). Inside the nest the
copy stays where LICM put it: out of the loops.
"""

from xdsl.context import Context
from xdsl.dialects import riscv_func, riscv_scf, rv32, rv64
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.backends.riscv.lowering.instructions import LaOp
from bitfold.backends.riscv.regalloc.loop_value_copies import ancestor_in

CONSTANTS = (rv32.LiOp, rv64.LiOp, LaOp)


def sink_constants(function: riscv_func.FuncOp) -> None:
    block = function.body.block
    for constant in [op for op in block.ops if isinstance(op, CONSTANTS)]:
        nests: dict[Operation, list] = {}
        for use in list(constant.results[0].uses):
            user = ancestor_in(block, use.operation)
            if isinstance(user, riscv_scf.ForOp | riscv_scf.RofOp):
                nests.setdefault(user, []).append(use)
        for nest, uses in nests.items():
            copy = constant.clone()
            Rewriter.insert_op(copy, InsertPoint.before(nest))
            for use in uses:
                use.operation.operands[use.index] = copy.results[0]
        if not constant.results[0].uses:
            Rewriter.erase_op(constant)


class BitfoldRiscvSinkConstantsPass(ModulePass):
    """Function-level `li`/`la` copied before each loop nest using them (module docstring)."""

    name = "bitfold-riscv-sink-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in [f for f in op.walk() if isinstance(f, riscv_func.FuncOp) and f.body.blocks]:
            sink_constants(function)
