"""The LLVM backend: bitfold's backend-input IR, bufferized by bitfold (the caller-provided workspace),
through upstream `mlir-opt-22`, `mlir-translate-22` and `clang-22 -O3` to assembly for RV32IM/RV64IM
(a second opinion beside the scalar backend), RVV 1.0 (rv32imv, rv64imv, rv64gcv) and the x86-64 host,
with the scalar backend's ABI (docs/riscv-abi.md) and harness; docs/upstream-mlir.md gives the commands.

    compile_kernel(ctx, module, "rv64imv", "my_kernel") -> Kernel(assembly, workspace_size)
    NativeKernel.build(ctx, module, workdir)                # host: a shared object called through ctypes

`compile_kernel` and `NativeKernel` are imported when first used (PEP 562 `__getattr__`): they bring
the bufferizer's vector contraction and MLIR's text form, which the scalar targets never need, so
`bitfold-compile --target rv32im` starts without them.
"""

from importlib import import_module

from bitfold.backends.llvm.input_error import LlvmInputError
from bitfold.backends.llvm.targets import DEFAULT_VLEN, HOST, LLVM_TARGETS, VECTOR_TARGETS, VLENS, harness_target

_LAZY = {"compile_kernel": "bitfold.backends.llvm.emit", "NativeKernel": "bitfold.backends.llvm.native"}
"""name -> the module defining it, imported on first use"""

__all__ = ["DEFAULT_VLEN", "HOST", "LLVM_TARGETS", "VECTOR_TARGETS", "VLENS", "LlvmInputError", "NativeKernel",
           "compile_kernel", "harness_target"]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
