"""Compile a quantized model for any target, one entry point: the backend-input pipeline with integer
inputs and outputs (`passes/pipelines.py`), the kernel ABI (`backends/kernel`: bufferize, ports, C
header), then the code generator: bitfold's (`backends/riscv`) for the scalar RISC-V targets, upstream
MLIR/LLVM's (`backends/llvm`) for RVV, the host, and the scalar targets on request.

    lowered = lower_model(module)                # the integer IR every target starts from, and its ports
    compiled = compile_model(module, "rv32im")   # or "rv64imv", "host", backend="llvm", ...
    compiled.assembly, compiled.header          # the .S and .h texts
    compiled.workspace_size                     # bytes of the workspace the function takes last
    compiled.quantize(inputs)                   # model inputs -> the storage integers it takes
    compiled.run_reference(stored)              # bitfold's interpreter on the same integer IR
    compiled.run_qemu(stored, workdir)          # the assembly under qemu (backends.kernel.harness)
    compiled.count_qemu(stored, workdir)        # the same, and the instructions one call executes
    compiled.run_native(stored, workdir)        # target "host" (LLVM backend): called in this process
    compiled.native_kernel(workdir)             # the same, built once to call many times
"""

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from bitfold.backend_input import lower_to_backend_input
from bitfold.backends import llvm
from bitfold.backends.kernel.harness import Counted, count_assembly, run_assembly
from bitfold.backends.kernel.header import c_header
from bitfold.backends.kernel.ports import Port, buffer_bytes, buffer_values, ports
from bitfold.backends.llvm import DEFAULT_VLEN, harness_target
from bitfold.backends.riscv import ARCHITECTURES, compile_kernel
from bitfold.interpreter import InterpretationInputError, entry_function, input_names, output_names, run
from bitfold.load import full_context


def _stored_input(port: Port, values: np.ndarray) -> np.ndarray:
    """The integers a model that takes storage integers is given, as the port's dtype."""
    stored = values.astype(port.dtype)
    if not np.issubdtype(values.dtype, np.integer) or not np.array_equal(stored, values):
        raise InterpretationInputError(
            f"input '{port.name}': the model takes {port.c_type} integers, got {values.dtype} values that are not all "
            f"{port.c_type}"
        )
    return stored


MAX_SYMBOL_CHARS = 64
"""Longest symbol `c_symbol` derives: it names the output files (`<symbol>.outputs.npz` and a
temporary beside it stay far below file systems' 255 bytes a name)."""

SYMBOL_DIGEST_CHARS = 8
"""Hex digits of sha256(name) that end a shortened symbol, so long names stay distinct."""


def c_symbol(name: str) -> str:
    """A C identifier from a function name: every character but ASCII letters, digits and `_`
    becomes `_`, `model_` goes before a leading digit; a result longer than `MAX_SYMBOL_CHARS`
    is cut to its first 55 characters, `_` and the first 8 hex digits of sha256(name)."""
    symbol = re.sub(r"[^A-Za-z0-9_]", "_", name)
    symbol = symbol if re.match(r"[A-Za-z_]", symbol) else f"model_{symbol}"
    if len(symbol) <= MAX_SYMBOL_CHARS:
        return symbol
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:SYMBOL_DIGEST_CHARS]
    return f"{symbol[:MAX_SYMBOL_CHARS - SYMBOL_DIGEST_CHARS - 1]}_{digest}"


@dataclass
class LoweredModel:
    """A model lowered to the code generators' input, integer IR with integer ports (module docstring)."""

    module: ModuleOp
    symbol: str
    inputs: list[Port]
    outputs: list[Port]

    def quantize(self, inputs: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        """The model's inputs (by name) as the stored integers the function takes: float inputs
        quantized by the model's input quantizer, integer inputs as they are."""
        return [
            _stored_input(p, np.asarray(inputs[p.name])) if p.model_integers
            else buffer_values(p.quantize(np.asarray(inputs[p.name])), p)
            for p in self.inputs
        ]

    def dequantize(self, outputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        return [p.dequantize(np.asarray(o)) for o, p in zip(outputs, self.outputs, strict=True)]

    def run_reference(self, stored: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The integer IR (the one the assembly was made from), run by bitfold's interpreter."""
        results = run(self.module, list(stored))
        return [buffer_bytes(np.asarray(results[p.name]), p) for p in self.outputs]


@dataclass
class CompiledModel(LoweredModel):
    """A model compiled for one target (module docstring)."""

    target: str
    assembly: str
    header: str
    workspace_size: int
    """bytes of the workspace the caller passes as the last argument (docs/riscv-abi.md)"""

    @property
    def layouts(self) -> list[tuple[tuple[int, ...], np.dtype]]:
        return [(p.shape, p.dtype) for p in self.outputs]

    def run_qemu(self, stored: Sequence[np.ndarray], workdir: str | Path, vlen: int = DEFAULT_VLEN) -> list[np.ndarray]:
        """The assembly, linked into a harness and run under qemu restricted to the target ISA
        (vector registers of `vlen` bits on the vector targets)."""
        target = harness_target(self.target, vlen)
        return run_assembly(self.assembly, target, self.symbol, list(stored), self.layouts, Path(workdir))

    def count_qemu(self, stored: Sequence[np.ndarray], workdir: str | Path, vlen: int = DEFAULT_VLEN) -> Counted:
        """`run_qemu` under the instruction counter: the outputs and the instructions executed inside
        the function (one call)."""
        target = harness_target(self.target, vlen)
        return count_assembly(self.assembly, target, self.symbol, list(stored), self.layouts, Path(workdir))

    def native_kernel(self, workdir: str | Path) -> "llvm.NativeKernel":
        """Target `host`: the function as a shared object in `workdir`, loaded into this process
        (`backends.llvm.native`), to call many times."""
        return llvm.NativeKernel.build(full_context(), self.module, self.symbol, Path(workdir))

    def run_native(self, stored: Sequence[np.ndarray], workdir: str | Path) -> list[np.ndarray]:
        """Target `host`: one call of `native_kernel(workdir)`."""
        return self.native_kernel(workdir)(list(stored), self.layouts)


def lower_model(module: ModuleOp, symbol: str | None = None, integer_only: bool = False) -> LoweredModel:
    """Lower `module` (ONNX-imported or quant-form IR), in place, to the code generators' input with
    integer inputs and outputs: the target-independent stages every target starts from.
    `integer_only`: refuse float islands (docs/float-islands.md) instead of keeping them."""
    source_type = entry_function(module).function_type
    lower_to_backend_input(full_context(), module, integer_only=integer_only)
    function = entry_function(module)
    return LoweredModel(
        module,
        symbol or c_symbol(function.sym_name.data),
        ports(input_names(function), function.function_type.inputs, function.arg_attrs, source_type.inputs),
        ports(output_names(function), function.function_type.outputs, function.res_attrs, source_type.outputs),
    )


def compile_model(
    module: ModuleOp, target: str, symbol: str | None = None, backend: str = "xdsl", integer_only: bool = False
) -> CompiledModel:
    """`lower_model`, then assembly and a header for `target`: with `backend` "xdsl" (bitfold's
    own code generator) "rv32im", "rv64im", or either with compressed instructions, "rv32imc",
    "rv64imc", or hardware float "rv32imf", "rv32imfc", "rv64imfd"; with "llvm" (upstream MLIR 22
    and LLVM 22, `backends.llvm`) those and "rv32imv", "rv64imv", "rv64gcv" (RVV 1.0) and "host"
    (x86-64). The LLVM-only targets imply "llvm".
    `integer_only`: refuse float islands (docs/float-islands.md) instead of compiling them."""
    lowered = lower_model(module, symbol, integer_only)
    if backend == "llvm" or target not in ARCHITECTURES:
        kernel = llvm.compile_kernel(full_context(), module, target, lowered.symbol)
    else:
        kernel = compile_kernel(module, target, lowered.symbol)
    header = c_header(lowered.symbol, [p.buffer() for p in lowered.inputs], [p.buffer() for p in lowered.outputs],
                      kernel.workspace_size, kernel.calls)
    return CompiledModel(**vars(lowered), target=target, assembly=kernel.assembly, header=header,
                         workspace_size=kernel.workspace_size)

