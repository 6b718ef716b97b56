"""A kernel: one public function in the ABI both code generators share (docs/riscv-abi.md), and what
a code generator returns for it.

`kernel_form` makes the backend's tensor IR (docs/integer-ir.md, "After onnx-data-movement-to-linalg")
that function: `bufferize` (destination-passing style, every intermediate in the caller's workspace,
its size recorded on the function) and then `widen-sub-byte-outputs` (i1..i7 outputs one a byte).
Both code generators start from this form.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from bitfold.backends.kernel.bufferize import BufferizePass, workspace_size
from bitfold.backends.kernel.sub_byte_outputs import WidenSubByteOutputsPass

KERNEL_FORM_PASSES = (BufferizePass(), WidenSubByteOutputsPass())
"""From the backend's tensor IR to the kernel ABI's memref form, in order."""


@dataclass(frozen=True)
class Kernel:
    """A compiled function: its assembly text and the bytes of the workspace it takes."""

    assembly: str
    workspace_size: int
    calls: tuple[str, ...] = ()
    """the routines the function calls (libgcc's soft-float ones), which the caller must link"""


def kernel_form(ctx: Context, module: ModuleOp, function: func.FuncOp) -> int:
    """`KERNEL_FORM_PASSES` on `module` (in place); returns the workspace bytes `function` takes."""
    for module_pass in KERNEL_FORM_PASSES:
        module_pass.apply(ctx, module)
    return workspace_size(function)
