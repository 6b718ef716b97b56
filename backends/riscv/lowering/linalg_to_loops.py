"""`bitfold-riscv-linalg-to-loops`: `linalg.generic` on memrefs to `scf.for` nests, each
reduction's accumulator in a register (`bitfold.backends.kernel.linalg_to_loops`, shared with the
LLVM backend)."""

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from bitfold.backends.kernel.linalg_to_loops import lower_generics_to_loops


class BitfoldRiscvLinalgToLoopsPass(ModulePass):
    """`linalg.generic` on memrefs to `scf.for` nests: accumulators in registers where the
    iterators allow it, xDSL's perfect nest otherwise (`lower_generics_to_loops`)."""

    name = "bitfold-riscv-linalg-to-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_generics_to_loops(op)
