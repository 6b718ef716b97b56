"""`bitfold-quantize FLOAT.onnx (--calibration DATA.npz | --data-free [--input-range LO,HI] [--sigmas N])
-o OUT [--form qdq|qcdq|qonnx|qop]
[--runtime reference|onnxruntime] [--weights N]
[--activations N] [--per-channel] [--symmetric] [--power-of-two] [--method minmax|percentile|mse]
[--equalize] [--native] [--calibrated] [--budget BYTES | --bops N] [--bits 2,4,8] [--binary] [--ternary]`:
quantize a float model from calibration data. Statistics are collected by running bitfold's
interpreter (or with `--native` the float model compiled for this machine by MLIR/LLVM) on the
samples (`DATA.npz`: one array per model input, samples concatenated along the first axis), recorded
as `!quant.calibrated` types and turned into uniform types by the scheme: activations asymmetric
unsigned (or `--symmetric`: zero point 0), weights symmetric, per tensor (or `--per-channel`), any
bit width 1..16 (default 8), power-of-two scales with `--power-of-two`; biases int32 on the
accumulator grid. `-o OUT.onnx` writes the form chosen by `--form` (default qdq; qdq, qcdq and qop
with `--runtime onnxruntime` rewritten exactly for onnxruntime's integer kernels,
`backends/onnx/onnxruntime_form.py`); `-o OUT.mlir` the canonical quant form (for bitfold-compile,
bitfold-opt), or with `--calibrated` the float model with its statistics. `--data-free` takes the
ranges from the BatchNormalization statistics the model carries instead of samples;
`--budget`/`--bops` choose each layer's weight width for the budget (`bitfold.quantize_budget`);
docs/calibration.md. Errors are one line and exit 1."""

import argparse
import io
from collections.abc import Sequence
from pathlib import Path

import onnx
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from bitfold import __version__
from bitfold.backends.onnx import export_model
from bitfold.backends.onnx.errors import ExportError
from bitfold.backends.onnx.onnxruntime_form import RUNTIMES, for_onnxruntime
from bitfold.backends.onnx.qcdq import QcdqForm
from bitfold.backends.onnx.qdq import QdqForm
from bitfold.backends.onnx.qonnx import QonnxForm
from bitfold.backends.onnx.qop import QopForm
from bitfold.calibration.activation_statistics import DEFAULT_SIGMAS
from bitfold.calibration.mixed_precision import quantize_mixed
from bitfold.diagnostics import add_tensor_cap_argument, exit_with_error, one_line_errors
from bitfold.dialects.tensor_limits import tensor_limits
from bitfold.interpreter import InterpretationInputError, entry_function, input_names
from bitfold.load import load_module
from bitfold.output_files import write_file
from bitfold.passes.calibration.calibrated_to_uniform import CalibrationError
from bitfold.passes.calibration.statistics import METHODS
from bitfold.quantize import (
    DataFreeOptions,
    QuantizeOptions,
    calibrate_data_free,
    calibrate_model,
    quantize_data_free,
    quantize_model,
)
from bitfold.quantize_budget import Budget, add_budget_arguments, budget_choice, writable_widths
from bitfold.samples import calibration_samples

FORMS = {"qdq": QdqForm, "qcdq": QcdqForm, "qonnx": QonnxForm, "qop": QopForm}


def _bits(text: str) -> int:
    bits = int(text)
    if not 1 <= bits <= 16:
        raise argparse.ArgumentTypeError(f"bit widths are 1..16, got {bits}")
    return bits


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bitfold-quantize", description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="a float .onnx model (or .mlir)")
    parser.add_argument("--calibration", metavar="DATA.npz", help="float input samples by input name")
    parser.add_argument("-o", "--output", required=True, help="OUT.onnx (in --form) or OUT.mlir")
    parser.add_argument("--form", choices=sorted(FORMS), default="qdq", help="the ONNX form of OUT.onnx")
    parser.add_argument("--runtime", choices=RUNTIMES, default="reference",
                        help="onnxruntime: OUT.onnx (qdq, qcdq, qop) rewritten exactly for onnxruntime's integer kernels "
                             "(int8 activations, no 4-bit QDQ)")
    parser.add_argument("--weights", type=_bits, default=8, metavar="N", help="weight bits (1..16)")
    parser.add_argument("--activations", type=_bits, default=8, metavar="N", help="activation bits (1..16)")
    parser.add_argument("--per-channel", action="store_true", help="weights per output channel")
    parser.add_argument("--symmetric", action="store_true", help="activations with zero point 0")
    parser.add_argument("--power-of-two", action="store_true", help="scales rounded up to powers of two")
    parser.add_argument("--method", choices=METHODS, default="minmax", help="how a range is chosen")
    parser.add_argument("--equalize", action="store_true",
                        help="cross-layer equalization of consecutive convolutions first (docs/calibration.md)")
    parser.add_argument("--native", action="store_true",
                        help="collect the statistics with the float model compiled for this machine (MLIR/LLVM 22) "
                             "instead of bitfold's interpreter (docs/calibration.md)")
    parser.add_argument("--calibrated", action="store_true",
                        help="write the float model with its !quant.calibrated statistics (OUT.mlir)")
    parser.add_argument("--version", action="version", version=f"bitfold-quantize {__version__}")
    _add_data_free_arguments(parser)
    add_budget_arguments(parser)
    add_tensor_cap_argument(parser)
    return parser


def _range(text: str) -> tuple[float, float]:
    try:
        low, high = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a range is LO,HI (two numbers), got {text!r}") from None
    if not low < high:
        raise argparse.ArgumentTypeError(f"a range needs LO < HI, got {text!r}")
    return low, high


def _sigmas(text: str) -> float:
    sigmas = float(text)
    if not sigmas > 0:
        raise argparse.ArgumentTypeError(f"--sigmas needs a positive number, got {text!r}")
    return sigmas


def _add_data_free_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-free", action="store_true",
                        help="no samples: ranges from the model's BatchNormalization statistics, equalization and "
                             "bias correction (docs/calibration.md)")
    parser.add_argument("--input-range", type=_range, metavar="LO,HI",
                        help="with --data-free: the range of the float model inputs "
                             "(--input-range=-1,1 when LO is negative)")
    parser.add_argument("--sigmas", type=_sigmas, metavar="N",
                        help=f"with --data-free: ranges are mean +- N standard deviations (default {DEFAULT_SIGMAS:g})")


def _data_free_options(options: argparse.Namespace) -> DataFreeOptions | None:
    """The data-free settings, None to calibrate on `--calibration`; one error line for a bad mix."""
    if options.calibration is not None and options.data_free:
        exit_with_error("error: --calibration and --data-free are mutually exclusive: give one")
    if options.calibration is None and not options.data_free:
        exit_with_error("error: give --calibration DATA.npz, or --data-free to use the model's BatchNormalization "
                        "statistics")
    if options.native and (options.data_free or options.budget is not None or options.bops is not None):
        exit_with_error("error: --native runs the --calibration samples for uniform widths: not with --data-free, "
                        "--budget or --bops")
    if not options.data_free:
        if options.input_range is not None or options.sigmas is not None:
            exit_with_error("error: --input-range and --sigmas go with --data-free")
        return None
    if options.budget is not None or options.bops is not None:
        exit_with_error("error: --budget and --bops measure each layer on --calibration samples: not with --data-free")
    if options.method == "percentile":
        exit_with_error("error: --data-free ranges come from BatchNormalization statistics: --method minmax or mse "
                        "(weights only)")
    return DataFreeOptions(options.input_range, DEFAULT_SIGMAS if options.sigmas is None else options.sigmas)


def _calibrate(module, options: argparse.Namespace, scheme: QuantizeOptions, data_free: DataFreeOptions | None,
               budget: tuple[Budget, tuple[int, ...]] | None) -> None:
    """Calibrate (`--calibrated`) or quantize `module` from samples, without (`--data-free`), or with
    each layer's weight width chosen for `budget` (`--budget`/`--bops`)."""
    if data_free is not None:
        (calibrate_data_free if options.calibrated else quantize_data_free)(module, scheme, data_free)
        return
    function = entry_function(module)
    shapes = [arg.type.get_shape() for arg in function.args]
    samples = calibration_samples(options.calibration, input_names(function), shapes)
    if budget is not None:
        widths = budget[1]
        if Path(options.output).suffix == ".onnx":
            widths = writable_widths(module, samples[0], scheme, widths, lambda m: _written(m, options))
        quantize_mixed(module, samples, scheme, budget[0], widths)
        return
    (calibrate_model if options.calibrated else quantize_model)(module, samples, scheme, native=options.native)


def _written(module: ModuleOp, options: argparse.Namespace) -> onnx.ModelProto:
    """The quant-form `module` as the ONNX model `--form` and `--runtime` ask for."""
    model = export_model(module, FORMS[options.form]())
    return for_onnxruntime(model) if options.runtime == "onnxruntime" else model


def main(args: Sequence[str] | None = None) -> None:
    parser = _arguments()
    options = parser.parse_args(args)
    output = Path(options.output)
    if output.suffix not in (".onnx", ".mlir"):
        parser.error("-o names an .onnx or .mlir file")
    if options.calibrated and output.suffix != ".mlir":
        parser.error("--calibrated writes IR: -o OUT.mlir")
    if options.runtime == "onnxruntime" and (output.suffix != ".onnx" or options.form == "qonnx"):
        parser.error("--runtime onnxruntime rewrites a QDQ, QCDQ or QOp model: -o OUT.onnx with --form qdq, qcdq or qop")
    budget = budget_choice(options, parser)
    scheme = QuantizeOptions(options.activations, options.weights, options.per_channel, options.symmetric,
                             options.power_of_two, options.method, options.equalize)
    data_free = _data_free_options(options)
    with one_line_errors(InterpretationInputError, CalibrationError, ExportError), \
            tensor_limits(max_bytes=options.max_tensor_bytes):
        module = load_module(options.model)
        _calibrate(module, options, scheme, data_free, budget)
        if output.suffix == ".onnx":
            write_file(output, _written(module, options).SerializeToString())
        else:
            text = io.StringIO()
            Printer(text).print_op(module)
            write_file(output, (text.getvalue() + "\n").encode())
