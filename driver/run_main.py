"""`bitfold-run FILE [--input NAME=file.npy ...] [--output-dir DIR] [--function NAME]`:
execute a `.mlir` or `.onnx` file with bitfold's interpreter. Without `--output-dir` the
outputs are printed; with it each is saved as `DIR/<output name>.npy`. Errors are one line
and exit status 1."""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bitfold import __version__
from bitfold.diagnostics import one_line_errors
from bitfold.interpreter import InterpretationInputError, run
from bitfold.load import load_module


def _parse_inputs(specs: Sequence[str]) -> dict[str, np.ndarray]:
    inputs = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise InterpretationInputError(f"--input takes NAME=file.npy, got '{spec}'")
        inputs[name] = np.load(path)
    return inputs


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bitfold-run", description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="a .mlir or .onnx file")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy",
                        help="value of the function argument NAME (repeat for each input)")
    parser.add_argument("--output-dir", help="save each output as DIR/<name>.npy instead of printing")
    parser.add_argument("--function", help="function to run (default: the only public one)")
    parser.add_argument("--version", action="version", version=f"bitfold-run {__version__}")
    return parser


def main(args: Sequence[str] | None = None) -> None:
    options = _arguments().parse_args(args)
    with one_line_errors(InterpretationInputError):
        module = load_module(options.file)
        outputs = run(module, _parse_inputs(options.input), options.function)
    if options.output_dir:
        directory = Path(options.output_dir)
        directory.mkdir(parents=True, exist_ok=True)
        for name, value in outputs.items():
            np.save(directory / f"{name}.npy", value)
        return
    with np.printoptions(threshold=sys.maxsize):
        for name, value in outputs.items():
            print(f"{name}: {value.dtype}{list(value.shape)}\n{value}")
