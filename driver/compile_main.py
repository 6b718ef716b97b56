"""`bitfold-compile MODEL --target rv32im|rv64im|rv32imc|rv64imc|rv32imf|rv32imfc|rv64imfd|rv32imv|rv64imv|rv64gcv|host -o DIR
[--backend xdsl|llvm] [--vlen N] [--symbol NAME]
[--run INPUT.npy | --run NAME=FILE.npy ...] [--count] [--timeout SECONDS]`: compile an ONNX model (or quant-form `.mlir`) to `DIR/<symbol>.S` and `DIR/<symbol>.h`.
With `--run`, the float inputs are quantized to the integers the function takes (an input the
model itself takes as uint8 / int8 is passed as it is), the assembly runs under qemu
(restricted to the target ISA), the outputs are saved as `DIR/<symbol>.outputs.npz` (storage
integers, by output name) and printed beside the reference: bitfold's interpreter on the same
integer IR (which qemu must equal bit for bit) and the source model itself (in float, or its
own integers where it returns integers). With `--count` too, the run is under bitfold's
instruction counter, which prints the instructions one call of the function executes, and the
bytes of `.text` and `.rodata` of the assembled object (and of the workspace the caller provides).
Errors are one line and exit status 1."""

import argparse
import io
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bitfold import __version__
from bitfold.backends.kernel.harness import HarnessError, compile_object, section_sizes
from bitfold.backends.kernel.harness.toolchain import time_limit
from bitfold.backends.llvm import DEFAULT_VLEN, HOST, LLVM_TARGETS, VLENS, LlvmInputError, harness_target
from bitfold.backends.riscv import ARCHITECTURES, CodegenError
from bitfold.compile import CompiledModel, compile_model
from bitfold.diagnostics import add_tensor_cap_argument, exit_with_error, one_line_errors
from bitfold.dialects.tensor_limits import tensor_limits
from bitfold.garbage_collection import collect_rarely
from bitfold.interpreter import InterpretationInputError, run
from bitfold.load import load_module
from bitfold.output_files import MAX_NAME_BYTES, write_file, write_files
from bitfold.samples import named_arrays


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bitfold-compile", description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="an .onnx model or a quant-form .mlir file")
    parser.add_argument("--target", required=True, choices=sorted(set(LLVM_TARGETS) | set(ARCHITECTURES)),
                        help="rv32imf, rv32imfc, rv64imfd: hardware float (bitfold's code generator); rv32imv, "
                             "rv64imv, rv64gcv (RVV 1.0) and host (x86-64, --run executes it in this process) are "
                             "compiled through MLIR 22 and LLVM 22")
    parser.add_argument("--backend", choices=("xdsl", "llvm"), default="xdsl",
                        help="xdsl: bitfold's own code generator (the scalar targets); llvm: upstream MLIR and LLVM")
    parser.add_argument("--vlen", type=int, choices=VLENS, default=DEFAULT_VLEN,
                        help="with --run on a vector target: qemu's vector register bits")
    parser.add_argument("-o", "--output-dir", required=True, help="directory for <symbol>.S and <symbol>.h")
    parser.add_argument("--symbol", help="the function's name (default: the model's, as a C identifier of at most "
                                         "64 characters, a long name cut and ended by a hash of it)")
    parser.add_argument("--run", action="append", default=[], metavar="[NAME=]FILE.npy",
                        help="run under qemu on these float inputs (NAME= may be left out for one input)")
    parser.add_argument("--integer-only", action="store_true",
                        help="refuse a model that would keep float computation (float islands, docs/float-islands.md): "
                             "one error line naming the first float op")
    parser.add_argument("--count", action="store_true",
                        help="with --run: print the instructions one call executes and the code and data bytes")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="time limit of each external tool run (clang-22, mlir-opt-22, the assembler, qemu); "
                             "0: none; default 120 s times the machine's load per core when above 1")
    add_tensor_cap_argument(parser)
    parser.add_argument("--version", action="version", version=f"bitfold-compile {__version__}")
    return parser


C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""What `--symbol` must be (it names the function, `<symbol>.S` and `<symbol>.h`)."""


def _inputs(specs: Sequence[str], compiled: CompiledModel) -> dict[str, np.ndarray]:
    return named_arrays(specs, [p.name for p in compiled.inputs], "--run")


def _agreement(got: np.ndarray, want: np.ndarray) -> str:
    if np.array_equal(got, want):
        return "bit-exact"
    largest = np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))
    return f"DIFFERS in {np.count_nonzero(got != want)} elements (by at most {largest:g})"


def _report(compiled: CompiledModel, outputs, reference, source) -> None:
    """Per output: qemu beside bitfold-run, then beside the source model, dequantized where the
    model returns floats, as the integers themselves where the model returns integers."""
    with np.printoptions(threshold=sys.maxsize, linewidth=120):
        for port, got, want, real, (name, model) in zip(
            compiled.outputs, outputs, reference, compiled.dequantize(outputs), source.items(), strict=True
        ):
            print(f"{port.name}: {port.c_type}{list(port.shape)}, qemu vs bitfold-run: {_agreement(got, want)}")
            print(f"  qemu ({compiled.target}):\n{got}\n  bitfold-run:\n{want}")
            if port.model_integers:
                print(f"  source model ({name}, {model.dtype}), qemu vs source model: {_agreement(got, model)}\n{model}")
            else:
                print(f"  dequantized:\n{real}\n  source model ({name}):\n{model}")


def _print_counts(compiled: CompiledModel, instructions: int, kernel: Path, workdir: str) -> None:
    """One call's executed instructions, and the sizes of the assembled function and its constants."""
    sizes = section_sizes(compile_object(kernel, harness_target(compiled.target), Path(workdir)))
    print(f"{compiled.symbol} on {compiled.target}: {instructions:,} instructions executed by one call")
    print(f"  .text {sizes.get('.text', 0):,} bytes, .rodata {sizes.get('.rodata', 0):,} bytes")
    if hasattr(compiled, "workspace_size"):
        print(f"  workspace {compiled.workspace_size:,} bytes (provided by the caller)")


def main(args: Sequence[str] | None = None) -> None:
    collect_rarely()
    parser = _arguments()
    options = parser.parse_args(args)
    if options.count and not options.run:
        parser.error("--count needs --run: it counts one call on those inputs")
    if options.symbol is not None and not C_IDENTIFIER.fullmatch(options.symbol):
        exit_with_error(f"error: --symbol '{options.symbol}' is not a C identifier")
    if options.symbol is not None and len(options.symbol) > MAX_NAME_BYTES:
        exit_with_error(f"error: --symbol '{options.symbol[:40]}...' is longer than {MAX_NAME_BYTES} characters "
             "(it names the output files)")
    if options.count and options.target == HOST:
        parser.error("--count counts instructions under qemu: not for --target host")
    if options.timeout is not None and options.timeout < 0:
        parser.error("--timeout must be at least 0 (0: no limit)")
    with one_line_errors(InterpretationInputError, CodegenError, HarnessError, LlvmInputError), \
            tensor_limits(max_bytes=options.max_tensor_bytes), time_limit(options.timeout):
        source_module = load_module(options.model)
        compiled = compile_model(source_module.clone(), options.target, options.symbol, options.backend,
                                 integer_only=options.integer_only)
        directory = Path(options.output_dir)
        write_files(directory, {f"{compiled.symbol}.S": compiled.assembly.encode(), f"{compiled.symbol}.h": compiled.header.encode()})
        print(f"{directory / compiled.symbol}.S and .h: {compiled.symbol} takes a workspace of "
              f"{compiled.workspace_size:,} bytes ({compiled.symbol.upper()}_WORKSPACE_SIZE) as its last argument")
        if not options.run:
            return
        inputs = _inputs(options.run, compiled)
        stored = compiled.quantize(inputs)
        with tempfile.TemporaryDirectory() as workdir:
            if options.count:
                counted = compiled.count_qemu(stored, workdir, options.vlen)
                outputs = counted.outputs
            else:
                outputs = compiled.run_native(stored, workdir) if options.target == HOST \
                    else compiled.run_qemu(stored, workdir, options.vlen)
            reference = compiled.run_reference(stored)
            archive = io.BytesIO()
            np.savez(archive, **{p.name: o for p, o in zip(compiled.outputs, outputs, strict=True)})
            write_file(directory / f"{compiled.symbol}.outputs.npz", archive.getvalue())
            _report(compiled, outputs, reference, run(source_module, inputs))
            if options.count:
                _print_counts(compiled, counted.instructions, directory / f"{compiled.symbol}.S", workdir)
        if not all(np.array_equal(o, r) for o, r in zip(outputs, reference, strict=True)):
            exit_with_error("error: the qemu run differs from bitfold-run")
