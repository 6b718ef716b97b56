"""`bitfold-quantize FLOAT.onnx --calibration DATA.npz -o OUT [--form qdq|qcdq|qonnx|qop]
[--runtime reference|onnxruntime] [--weights N]
[--activations N] [--per-channel] [--symmetric] [--power-of-two] [--method minmax|percentile|mse]
[--equalize] [--calibrated] [--budget BYTES | --bops N] [--bits 2,4,8] [--binary] [--ternary]`: quantize a
float model from calibration data. Statistics are collected by running
bitfold's interpreter on the samples (`DATA.npz`: one array per model input, samples concatenated
along the first axis), recorded as `!quant.calibrated` types and turned into uniform types by the
scheme: activations asymmetric unsigned (or `--symmetric`: zero point 0), weights symmetric, per
tensor (or `--per-channel`), any bit width 1..16 (default 8), power-of-two scales with
`--power-of-two`; biases int32 on the accumulator grid. `-o OUT.onnx` writes the form chosen by
`--form` (default qdq; qdq, qcdq and qop with `--runtime onnxruntime` rewritten exactly for
onnxruntime's integer kernels, `backends/onnx/onnxruntime_form.py`); `-o OUT.mlir` the canonical quant form (for bitfold-compile, bitfold-opt),
or with `--calibrated` the float model with its statistics. `--budget`/`--bops`: each layer's weight width
chosen for the budget (`bitfold.quantize_budget`, docs/calibration.md). Errors are one line and exit 1."""

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
from bitfold.calibration.mixed_precision import quantize_mixed
from bitfold.diagnostics import add_tensor_cap_argument, one_line_errors
from bitfold.dialects.tensor_limits import tensor_limits
from bitfold.interpreter import InterpretationInputError, entry_function, input_names
from bitfold.load import load_module
from bitfold.output_files import write_file
from bitfold.passes.calibration.calibrated_to_uniform import CalibrationError
from bitfold.passes.calibration.statistics import METHODS
from bitfold.quantize import QuantizeOptions, calibrate_model, quantize_model
from bitfold.quantize_budget import add_budget_arguments, budget_choice, writable_widths
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
    parser.add_argument("--calibration", required=True, metavar="DATA.npz", help="float input samples by input name")
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
    parser.add_argument("--calibrated", action="store_true",
                        help="write the float model with its !quant.calibrated statistics (OUT.mlir)")
    parser.add_argument("--version", action="version", version=f"bitfold-quantize {__version__}")
    add_budget_arguments(parser)
    add_tensor_cap_argument(parser)
    return parser


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
    with one_line_errors(InterpretationInputError, CalibrationError, ExportError), \
            tensor_limits(max_bytes=options.max_tensor_bytes):
        module = load_module(options.model)
        function = entry_function(module)
        shapes = [arg.type.get_shape() for arg in function.args]
        samples = calibration_samples(options.calibration, input_names(function), shapes)
        if budget is not None:
            widths = budget[1]
            if output.suffix == ".onnx":
                widths = writable_widths(module, samples[0], scheme, widths, lambda m: _written(m, options))
            quantize_mixed(module, samples, scheme, budget[0], widths)
        else:
            (calibrate_model if options.calibrated else quantize_model)(module, samples, scheme)
        if output.suffix == ".onnx":
            write_file(output, _written(module, options).SerializeToString())
        else:
            text = io.StringIO()
            Printer(text).print_op(module)
            write_file(output, (text.getvalue() + "\n").encode())
