"""`bitfold-run FILE [--input NAME=file.npy ...] [--output-dir DIR] [--function NAME] [--native]`:
execute a `.mlir` or `.onnx` file with bitfold's interpreter, or with `--native` a quantized model
compiled for this machine through MLIR and LLVM (`bitfold.native`: its integer IR, float inputs
quantized and float outputs dequantized, bit-exact to the interpreter on that IR). Without `--output-dir` the
outputs are printed; with it each is saved as `DIR/<escaped output name>.npy` (the name
escaped to one file name by `bitfold.output_files.safe_file_name`: `../y` -> `%2E.%2Fy.npy`),
all written or none, and the files are listed as `<output name>: <path>`. Errors are one line
and exit status 1."""

import argparse
import io
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bitfold import __version__
from bitfold.array_files import load_array
from bitfold.backends.kernel.harness import HarnessError
from bitfold.backends.llvm import LlvmInputError
from bitfold.backends.riscv import CodegenError
from bitfold.diagnostics import add_tensor_cap_argument, one_line_errors
from bitfold.dialects.tensor_limits import tensor_limits
from bitfold.interpreter import InterpretationInputError, run
from bitfold.load import load_module
from bitfold.native import run_native
from bitfold.output_files import OutputNameError, safe_file_name, write_files


def _parse_inputs(specs: Sequence[str]) -> dict[str, np.ndarray]:
    inputs = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise InterpretationInputError(f"--input takes NAME=file.npy, got '{spec}'")
        inputs[name] = load_array(path)
    return inputs


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bitfold-run", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="a .mlir or .onnx file")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy",
                        help="value of the function argument NAME (repeat for each input)")
    parser.add_argument("--output-dir", help="save each output as DIR/<escaped name>.npy instead of printing")
    parser.add_argument("--function", help="function to run (default: the only public one)")
    parser.add_argument("--native", action="store_true",
                        help="compile the quantized model for this machine (x86-64) and run that instead")
    add_tensor_cap_argument(parser)
    parser.add_argument("--version", action="version", version=f"bitfold-run {__version__}")
    return parser


def _npy_bytes(value: np.ndarray) -> bytes:
    stream = io.BytesIO()
    np.save(stream, value, allow_pickle=False)
    return stream.getvalue()


def save_outputs(outputs: dict[str, np.ndarray], directory: str | Path) -> dict[str, Path]:
    """Save each output as `directory/<safe_file_name(name)>.npy`, all or none; returns
    {output name: path}."""
    files = {name: f"{safe_file_name(name)}.npy" for name in outputs}
    paths = write_files(directory, {files[name]: _npy_bytes(value) for name, value in outputs.items()})
    return dict(zip(files, paths, strict=True))


def main(args: Sequence[str] | None = None) -> None:
    parser = _arguments()
    options = parser.parse_args(args)
    if options.native and options.function:
        parser.error("--native runs the model's one public function: no --function")
    with one_line_errors(InterpretationInputError, OutputNameError, CodegenError, HarnessError, LlvmInputError), tensor_limits(max_bytes=options.max_tensor_bytes):
        module = load_module(options.file)
        inputs = _parse_inputs(options.input)
        outputs = run_native(module, inputs) if options.native else run(module, inputs, options.function)
        if options.output_dir:
            for name, path in save_outputs(outputs, options.output_dir).items():
                print(f"{name}: {path}")
            return
    with np.printoptions(threshold=sys.maxsize):
        for name, value in outputs.items():
            print(f"{name}: {value.dtype}{list(value.shape)}\n{value}")
