"""`bitfold-report MODEL [--target rv32im ...] [--input [NAME=]x.npy ...] [--calibration data.npz]
[--json FILE] [--plot FILE]`: one row per layer of the model (ONNX or quant-form `.mlir`): MACs,
BOPs (MACs x weight bits x activation bits), weight bits and packed bytes, activation and output
bits, output bytes, the bytes of layer outputs alive after it; with `--target`, the instructions
each layer executes on that RISC-V target (one call under qemu, bitfold's instruction counter);
with inputs, each layer's quantization error against the float network (largest difference in
output steps, SQNR in dB) and against the integer code. A model with float islands gets a
`float` column flagging the layers whose code computes in f32, and a summary line with their share
of the instructions. `--calibration` takes an `.npz` with one
array per model input whose first axis concatenates samples of the input's shape. `--json` writes
`{"layers": [...], "total": {...}}`, `--plot` a PNG or SVG of cost and error per layer
(matplotlib). The calculation: `bitfold.report.model_report`. Errors are one line and exit 1."""

import argparse
import io
import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bitfold import __version__
from bitfold.backends.kernel.harness import HarnessError
from bitfold.backends.llvm import VECTOR_TARGETS
from bitfold.backends.riscv import ARCHITECTURES, CodegenError
from bitfold.diagnostics import add_tensor_cap_argument, one_line_errors
from bitfold.dialects.tensor_limits import tensor_limits
from bitfold.interpreter import InterpretationInputError, entry_function, input_names
from bitfold.load import load_module
from bitfold.output_files import write_file
from bitfold.report import Report, model_report
from bitfold.samples import samples_from


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bitfold-report", description=__doc__.split("\n\n")[0])
    parser.add_argument("model", help="an .onnx model or a quant-form .mlir file")
    parser.add_argument("--target", choices=sorted({*ARCHITECTURES, *VECTOR_TARGETS}),
                        help="count instructions per layer on this target (vector targets: an approximate split)")
    parser.add_argument("--input", action="append", default=[], metavar="[NAME=]FILE.npy",
                        help="one float input sample (NAME= may be left out for one input)")
    parser.add_argument("--calibration", metavar="DATA.npz", help="float input samples by input name")
    parser.add_argument("--json", metavar="FILE", help="write the report as JSON")
    parser.add_argument("--plot", metavar="FILE", help="draw cost and error per layer (.png or .svg)")
    parser.add_argument("--version", action="version", version=f"bitfold-report {__version__}")
    add_tensor_cap_argument(parser)
    return parser


def _cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "float" if value else ""
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return "inf" if math.isinf(value) else f"{value:.2f}"
    return f"{value:,}"


def format_table(report: Report) -> str:
    """The report as an aligned text table with a total row."""
    columns = [("layer", "name"), ("op", "op"), ("MACs", "macs"), ("BOPs", "bops"), ("w bits", "weight_bits"),
               ("w bytes", "weight_bytes"), ("a bits", "activation_bits"), ("out bits", "output_bits"),
               ("out bytes", "output_bytes"), ("live bytes", "live_bytes")]
    if any(row.float_island for row in report.layers):
        columns.append(("float", "float_island"))
    if report.target is not None:
        columns.append((f"instr ({report.target})", "instructions"))
    if any(row.sqnr_db is not None or row.float_max_steps is not None for row in report.layers):
        columns += [("err steps", "float_max_steps"), ("SQNR dB", "sqnr_db"), ("int err steps", "integer_max_steps")]
    rows = [[_cell(getattr(row, key)) for _, key in columns] for row in report.layers]
    total = {"name": "total", "macs": report.total["macs"], "bops": report.total["bops"],
             "weight_bytes": report.total["weight_bytes"], "live_bytes": report.total["workspace_bytes"],
             "instructions": report.total["instructions"], "float_island": False}
    rows.append([_cell(total.get(key)) for _, key in columns])
    header = [title for title, _ in columns]
    widths = [max(len(line[i]) for line in [header, *rows]) for i in range(len(columns))]
    lines = ["  ".join(cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths)))
             for line in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.insert(len(lines) - 1, lines[1])
    return "\n".join([*lines, *_float_summary(report)])


def _float_summary(report: Report) -> list[str]:
    """One line on the float-island layers and their share of the instructions (none without islands)."""
    islands = sum(row.float_island for row in report.layers)
    if not islands:
        return []
    line = f"float islands: {islands} of {len(report.layers)} layers"
    total, in_float = report.total["instructions"], report.total.get("float_instructions")
    if total:
        line += f", {in_float:,} of {total:,} instructions ({100 * in_float / total:.1f}%)"
    return [line]


def plot(report: Report, image_format: str) -> bytes:
    """Per-layer MACs (and instructions) above, SQNR below, as an image (`png` or `svg`)."""
    try:
        import matplotlib
    except ImportError:
        raise InterpretationInputError("--plot needs matplotlib (pip install matplotlib)") from None
    matplotlib.use("Agg")
    from matplotlib import pyplot

    names = [row.name for row in report.layers]
    positions = np.arange(len(names))
    figure, (cost, error) = pyplot.subplots(2, 1, sharex=True, figsize=(max(6, len(names) * 0.5), 6))
    cost.bar(positions - 0.2, [row.macs for row in report.layers], 0.4, label="MACs")
    if report.target is not None:
        cost.bar(positions + 0.2, [row.instructions or 0 for row in report.layers], 0.4,
                 label=f"instructions ({report.target})")
    cost.set_yscale("symlog")
    cost.legend()
    error.bar(positions, [row.sqnr_db if row.sqnr_db is not None else 0 for row in report.layers])
    error.set_ylabel("SQNR vs float (dB)")
    error.set_xticks(positions, names, rotation=90)
    figure.tight_layout()
    image = io.BytesIO()
    figure.savefig(image, format=image_format)
    pyplot.close(figure)
    return image.getvalue()


def main(args: Sequence[str] | None = None) -> None:
    options = _arguments().parse_args(args)
    with one_line_errors(InterpretationInputError, CodegenError, HarnessError), \
            tensor_limits(max_bytes=options.max_tensor_bytes):
        module = load_module(options.model)
        function = entry_function(module)
        shapes = [arg.type.get_shape() for arg in function.args]
        samples = samples_from(options.input, options.calibration, input_names(function), shapes)
        report = model_report(module, options.target, samples)
        print(format_table(report))
        if options.json:
            write_file(options.json, (json.dumps(report.as_json(), indent=2) + "\n").encode())
        if options.plot:
            write_file(options.plot, plot(report, Path(options.plot).suffix.lstrip(".") or "png"))
