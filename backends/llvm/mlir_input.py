"""What upstream `mlir-opt-22` reads: bitfold's kernel ABI form (`bitfold.backends.kernel.kernel_form`) of the
module's one public function, renamed to the kernel's symbol, with `llvm.noalias` on every buffer
argument (docs/riscv-abi.md: outputs and the workspace overlap nothing; inputs are only read, so
inputs sharing memory do not break `noalias`). The function is already the ABI:
`void f(in..., out..., void *workspace)` with the caller-provided workspace.
"""

import re
from io import StringIO

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, UnitAttr
from xdsl.printer import Printer

from bitfold.backends.kernel.kernel import kernel_form
from bitfold.backends.llvm.elementwise_rows import BitfoldLlvmMergeElementwiseRowsPass
from bitfold.backends.llvm.index_to_i32 import BitfoldLlvmIndexToI32Pass
from bitfold.backends.llvm.input_error import LlvmInputError
from bitfold.backends.llvm.layer_labels import labels_as_inline_asm
from bitfold.backends.llvm.truncation_by_bits import BitfoldLlvmFptosiByBitsPass
from bitfold.backends.llvm.vector_contraction import BitfoldLlvmVectorContractionPass
from bitfold.backends.llvm.vector_copy import BitfoldLlvmVectorCopyPass

NOALIAS = "llvm.noalias"




def public_function(module: ModuleOp) -> func.FuncOp:
    functions = [f for f in module.ops if isinstance(f, func.FuncOp) and f.body.blocks and f.sym_visibility is None]
    if len(functions) != 1:
        raise LlvmInputError(f"llvm: expected one public function with a body, found {len(functions)}")
    return functions[0]


def bufferized_kernel(ctx: Context, module: ModuleOp, symbol: str, vector: bool,
                      narrow_index: bool = False) -> tuple[ModuleOp, int]:
    """A bufferized copy of `module` holding only its public function, named `symbol`, its buffer
    arguments `noalias`, its sub-byte outputs in bytes (`kernel_form`); when
    `vector`, its reductions in the outer-product form on scalable vectors (`vector_contraction.py`),
    its elementwise generics over rows x columns as one dim (`elementwise_rows.py`), its copies of short
    rows along their cheapest dim (`vector_copy.py`) and its f32 -> i32
    conversions by bits (`truncation_by_bits.py`: qemu 7.2 aborts on the vector conversion); its loops
    on i32 counters when `narrow_index` (`index_to_i32.py`); and the workspace bytes the function takes."""
    module = module.clone()
    function = public_function(module)
    for other in [f for f in module.ops if isinstance(f, func.FuncOp) and f is not function]:
        module.body.block.erase_op(other)
    workspace = kernel_form(ctx, module, function)
    labels_as_inline_asm(module)
    if vector:
        BitfoldLlvmVectorContractionPass().apply(ctx, module)
        BitfoldLlvmMergeElementwiseRowsPass().apply(ctx, module)
        BitfoldLlvmVectorCopyPass().apply(ctx, module)
        BitfoldLlvmFptosiByBitsPass().apply(ctx, module)
    if narrow_index:
        BitfoldLlvmIndexToI32Pass().apply(ctx, module)
    function = public_function(module)
    function.sym_name = StringAttr(symbol)
    attrs = function.arg_attrs.data if function.arg_attrs else [DictionaryAttr({})] * len(function.args)
    function.arg_attrs = ArrayAttr([DictionaryAttr({**a.data, NOALIAS: UnitAttr()}) for a in attrs])
    return module, workspace


I1_HEX = re.compile(r'dense<"0x([0-9A-Fa-f]*)"> : tensor<([0-9x]*)xi1>')
"""an i1 tensor's hex data as xDSL 0.74 prints it: one byte an element"""


def bit_packed(match: re.Match) -> str:
    """The same i1 data as MLIR 22 reads hex i1 data: bit-packed, element i in bit i % 8 of byte i // 8."""
    elements = np.frombuffer(bytes.fromhex(match.group(1)), dtype=np.uint8) != 0
    packed = np.packbits(elements, bitorder="little").tobytes().hex().upper()
    return f'dense<"0x{packed}"> : tensor<{match.group(2)}xi1>'


def upstream_mlir_text(module: ModuleOp) -> str:
    """`module` as text mlir-opt-22 reads (i1 constants bit-packed)."""
    text = StringIO()
    Printer(text).print_op(module)
    return I1_HEX.sub(bit_packed, text.getvalue()) + "\n"
