"""The upstream tools from bitfold's bufferized IR to an object, one consistent Debian toolchain
(`mlir-22-tools`, `llvm-22`, `clang-22`; scripts/setup.sh installs them):

    mlir-opt-22 --pass-pipeline='builtin.module(<LLVM_LOWERING with index-bitwidth=XLEN>)' kernel.mlir
    mlir-translate-22 --mlir-to-llvmir kernel.llvm.mlir
    clang-22 <target flags> -O3 -S -fno-addrsig -Wno-override-module -mllvm -disable-loop-idiom-all kernel.ll

`LLVM_LOWERING` lowers linalg to loops, then everything to the LLVM dialect; memref arguments become bare
pointers (`use-bare-ptr-memref-call-conv`), so the function keeps bitfold's ABI. `-disable-loop-idiom-all`
keeps copy and fill loops as loops: the function calls nothing (no `memcpy`/`memset`), as the scalar
backend's leaf functions. `-fno-addrsig` keeps the assembly readable by GNU as (no `.addrsig`).
"""

from collections.abc import Sequence
from pathlib import Path

from bitfold.backends.kernel.harness.toolchain import run_tool
from bitfold.backends.llvm.targets import LlvmTarget

MLIR_OPT = "mlir-opt-22"
MLIR_TRANSLATE = "mlir-translate-22"
CLANG = "clang-22"
OPTIMIZATION = "-O3"
LLVM_LOWERING = (
    "convert-linalg-to-loops",
    "lower-affine",
    "convert-scf-to-cf",
    "convert-vector-to-llvm",
    "expand-strided-metadata",
    "finalize-memref-to-llvm{{index-bitwidth={index}}}",
    "convert-arith-to-llvm{{index-bitwidth={index}}}",
    "convert-math-to-llvm",
    "convert-func-to-llvm{{use-bare-ptr-memref-call-conv=1 index-bitwidth={index}}}",
    "convert-cf-to-llvm{{index-bitwidth={index}}}",
    "reconcile-unrealized-casts",
)
CLANG_FLAGS = ("-fno-addrsig", "-Wno-override-module", "-ffp-contract=off", "-fno-fast-math", "-mllvm", "-disable-loop-idiom-all")


def pass_pipeline(index_bits: int) -> str:
    """`mlir-opt-22 --pass-pipeline=...` from bitfold's bufferized IR to the LLVM dialect."""
    return "builtin.module(" + ",".join(p.format(index=index_bits) for p in LLVM_LOWERING) + ")"


def to_llvm_dialect(source: Path, index_bits: int) -> Path:
    output = source.with_suffix(".llvm.mlir")
    run_tool("lowering to the LLVM dialect", [MLIR_OPT, f"--pass-pipeline={pass_pipeline(index_bits)}", source,
                                              "-o", output])
    return output


def to_llvm_ir(source: Path) -> Path:
    output = source.with_name(source.name.removesuffix(".llvm.mlir") + ".ll")
    run_tool("translating to LLVM IR", [MLIR_TRANSLATE, "--mlir-to-llvmir", source, "-o", output])
    return output


def clang_command(target: LlvmTarget, extra: Sequence[str] = ()) -> list[str]:
    return [CLANG, *target.clang_flags, OPTIMIZATION, *CLANG_FLAGS, *extra]


def compile_llvm_ir(source: Path, target: LlvmTarget, output: Path, extra: Sequence[str] = ()) -> Path:
    """clang-22 -O3 on `source` (.ll) for `target`: `-S` in `extra` gives assembly, else an object."""
    run_tool(f"compiling LLVM IR for {target.name}", [*clang_command(target, extra), source, "-o", output])
    return output
