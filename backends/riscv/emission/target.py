"""The xDSL target `bitfold-riscv-asm`: `bitfold-opt in.mlir -t bitfold-riscv-asm` prints the GNU
as file of `compile_to_assembly` for the module's one public function (the backend's tensor
IR in, assembly out). xDSL already owns the name `riscv-asm` (it prints modules that are
already in the riscv dialects), so bitfold's target has its own name.

The architecture is, in order: the target option (`-t 'bitfold-riscv-asm{arch=rv32im}'`), the module
attribute `riscv.arch` (`module attributes {riscv.arch = "rv32im"}`), else `rv64im`. The symbol
is the option `symbol`, else the function's own name.
"""

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.utils.target import Target

from bitfold.backends.riscv.emission.emit import compile_to_assembly

DEFAULT_ARCH = "rv64im"
ARCH_ATTRIBUTE = "riscv.arch"


def arch_of(module: ModuleOp, option: str | None) -> str:
    if option:
        return option
    attribute = module.attributes.get(ARCH_ATTRIBUTE)
    if isinstance(attribute, StringAttr):
        return attribute.data
    return DEFAULT_ARCH


@dataclass(frozen=True)
class RiscvAsmTarget(Target):
    name = "bitfold-riscv-asm"

    arch: str | None = None
    symbol: str | None = None

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        symbol = self.symbol
        if symbol is None:
            functions = [f for f in module.ops if isinstance(f, func.FuncOp) and f.body.blocks]
            symbol = functions[0].sym_name.data if len(functions) == 1 else "kernel"
        output.write(compile_to_assembly(module, arch_of(module, self.arch), symbol))
