"""The layer labels of `backends.kernel.harness.layer_markers.mark_layers` (`riscv.label` ops, which upstream
MLIR does not know) for the LLVM backend: each becomes an `llvm.inline_asm` with side effects whose
text is the label (`bitfold_layer_<i>:`), so it reaches the assembly as the same local symbol and
bitfold-report splits the executed instructions by layer as on the scalar targets.

The split is approximate there: the markers sit between the layers' loop nests and clobber memory
(no load or store moves across one), but LLVM lays out blocks in its own order, so a block of one
layer (a loop's exit or preheader) may land after the next label. A label LLVM duplicated would
be defined twice and the assembler refuses it."""

from xdsl.dialects import llvm, riscv
from xdsl.dialects.builtin import ModuleOp
from xdsl.rewriter import Rewriter

from bitfold.backends.kernel.harness.layer_markers import LABEL_PREFIX

MEMORY_CLOBBER = "~{memory}"


def labels_as_inline_asm(module: ModuleOp) -> None:
    """Replace every layer `riscv.label` of `module` by its inline-asm marker (module docstring)."""
    for op in list(module.walk()):
        if isinstance(op, riscv.LabelOp) and op.label.data.startswith(LABEL_PREFIX):
            Rewriter.replace_op(op, llvm.InlineAsmOp(f"{op.label.data}:", MEMORY_CLOBBER, [], has_side_effects=True))
