"""What upstream `mlir-opt-22` reads: bitfold's bufferized IR (`bitfold.passes.bufferize`) of the
module's one public function, renamed to the kernel's symbol, with `llvm.noalias` on every buffer
argument (docs/riscv-abi.md: outputs and the workspace overlap nothing; inputs are only read, so
inputs sharing memory do not break `noalias`). The function is already the ABI:
`void f(in..., out..., void *workspace)` with the caller-provided workspace.
"""

from io import StringIO

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, UnitAttr
from xdsl.printer import Printer

from bitfold.backends.llvm.vector_contraction import VectorContractionPass
from bitfold.passes.bufferize import BufferizePass, workspace_size

NOALIAS = "llvm.noalias"


class LlvmInputError(Exception):
    """A module the LLVM backend cannot compile (one line, naming the function or op)."""


def public_function(module: ModuleOp) -> func.FuncOp:
    functions = [f for f in module.ops if isinstance(f, func.FuncOp) and f.body.blocks and f.sym_visibility is None]
    if len(functions) != 1:
        raise LlvmInputError(f"llvm: expected one public function with a body, found {len(functions)}")
    return functions[0]


def bufferized_kernel(ctx: Context, module: ModuleOp, symbol: str, vector: bool) -> tuple[ModuleOp, int]:
    """A bufferized copy of `module` holding only its public function, named `symbol`, its buffer
    arguments `noalias`, its reductions in the outer-product form on scalable vectors when `vector`
    (`vector_contraction.py`); and the workspace bytes the function takes."""
    module = module.clone()
    function = public_function(module)
    for other in [f for f in module.ops if isinstance(f, func.FuncOp) and f is not function]:
        module.body.block.erase_op(other)
    BufferizePass().apply(ctx, module)
    if vector:
        VectorContractionPass().apply(ctx, module)
    function = public_function(module)
    function.sym_name = StringAttr(symbol)
    attrs = function.arg_attrs.data if function.arg_attrs else [DictionaryAttr({})] * len(function.args)
    function.arg_attrs = ArrayAttr([DictionaryAttr({**a.data, NOALIAS: UnitAttr()}) for a in attrs])
    return module, workspace_size(function)


def mlir_text(module: ModuleOp) -> str:
    text = StringIO()
    Printer(text).print_op(module)
    return text.getvalue() + "\n"
