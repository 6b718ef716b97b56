"""The RISC-V code generator: the backend's tensor IR (docs/integer-ir.md, "After
onnx-data-movement-to-linalg") to a GNU as file for RV32IM (ilp32) or RV64IM (lp64).

    compile_to_assembly(module, "rv64im", "my_kernel") -> str

The module holds one public `func.func` on statically shaped tensors of i1..i32 (i64 on RV64
only). The generated function is a leaf in the kernel ABI's destination-passing style
(`bitfold.backends.kernel`, whose `kernel_form` runs first, then `pipeline.py`'s passes):

    void my_kernel(const int8_t *in0, ..., int32_t *out0, ..., void *workspace);

inputs first, then one output buffer per result, each of the tensor's shape, row-major, one
element per 1, 2, 4 or 8 bytes (i1..i8 one a byte, i16 two, i32 four, i64 eight; sub-byte
values sign-extended in their byte, i1 as 0/1), then the workspace the intermediate results
live in (`compile_kernel(...).workspace_size` bytes, docs/riscv-abi.md); `compile_kernel` returns
a `bitfold.backends.kernel.Kernel`. The file has `.text`
with one `.globl` function and `.rodata` for the weights (sub-byte weights packed, low bits
first); no `.data`, no `.bss`: the function keeps no state and is reentrant.
"""

from bitfold.backends.riscv.emission.emit import compile_kernel, compile_to_assembly
from bitfold.backends.kernel.isa import ARCHITECTURES
from bitfold.backends.riscv.pipeline import CodegenError

__all__ = ["ARCHITECTURES", "CodegenError", "compile_kernel", "compile_to_assembly"]
