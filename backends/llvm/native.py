"""Run a model on the machine itself: the LLVM backend's host object as a shared library, called
through ctypes with the ABI of every bitfold kernel (docs/riscv-abi.md):

    clang-22 --target=x86_64-unknown-linux-gnu -O3 ... -shared -fPIC kernel.ll -o kernel.so
    kernel(in0, ..., out0, ..., workspace)

Buffers are contiguous numpy arrays of the element types the function takes; the workspace is a fresh
zero-filled numpy buffer of `workspace_size` bytes, aligned to 16.
"""

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from bitfold.backends.llvm.emit import llvm_ir, llvm_target
from bitfold.backends.llvm.targets import HOST
from bitfold.backends.llvm.toolchain import compile_llvm_ir

WORKSPACE_ALIGNMENT = 16
SHARED_OBJECT_FLAGS = ("-shared", "-fPIC")


@dataclass(frozen=True)
class NativeKernel:
    """A compiled host function: `self(inputs, output_layouts)` calls it once."""

    function: ctypes._CFuncPtr
    workspace_size: int

    @classmethod
    def build(cls, ctx: Context, module: ModuleOp, symbol: str, workdir: Path) -> "NativeKernel":
        """Compile `module`'s public function for the host into `workdir/<symbol>.so` and load it."""
        target = llvm_target(HOST)
        workdir = Path(workdir)
        workdir.mkdir(parents=True, exist_ok=True)
        source, workspace = llvm_ir(ctx, module, target, symbol, workdir)
        library = compile_llvm_ir(source, target, source.with_suffix(".so"), SHARED_OBJECT_FLAGS)
        function = getattr(ctypes.CDLL(str(library.resolve())), symbol)
        function.restype = None
        return cls(function, workspace)

    def __call__(self, inputs: Sequence[np.ndarray], outputs: Sequence[tuple[Sequence[int], np.dtype]]) -> list[np.ndarray]:
        """The outputs of one call on `inputs` (arrays of the function's argument element types)."""
        arguments = [np.ascontiguousarray(a) for a in inputs]
        results = [np.empty(tuple(shape), dtype) for shape, dtype in outputs]
        raw = np.zeros(self.workspace_size + WORKSPACE_ALIGNMENT, np.uint8)
        start = -raw.ctypes.data % WORKSPACE_ALIGNMENT
        workspace = raw[start:]
        pointers = [ctypes.c_void_p(a.ctypes.data) for a in (*arguments, *results, workspace)]
        self.function(*pointers)
        return results
