"""bitfold-quantize's mixed-precision options: `--budget BYTES` or `--bops N` choose each layer's
weight width among `--bits` (default 2..8), `--binary` (1-bit bipolar) and `--ternary` (2-bit:
bitfold's symmetric narrow 2-bit weights are ternary {-s, 0, +s}); the calculation is
`bitfold.calibration.mixed_precision`.

A width the chosen ONNX form cannot write as that width (QDQ holds int4 weights from opset 21 and
int2 from 25, so a model at opset 13 writes them in int8; QOp's kernels take int8; QCDQ writes
bipolar weights as int8 +-1) would be stored wider than the budget counts it: `writable_widths`
finds those by writing the model with every weight at the width and reading it back, and they
are left out of the candidates with a note on stderr."""

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

import numpy as np
import onnx
from xdsl.dialects.builtin import ModuleOp

from bitfold.backends.onnx.errors import ExportError
from bitfold.calibration.mixed_precision import DEFAULT_WIDTHS, Budget
from bitfold.frontends.onnx import import_model
from bitfold.interpreter import entry_function
from bitfold.passes.calibration.schemes import TERNARY_BITS
from bitfold.passes.layer_report import layer_costs
from bitfold.quantize import QuantizeOptions, quantize_model
from bitfold.report import quant_form

BINARY_BITS = 1


def _positive(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"a budget is a positive integer, got {value}")
    return value


def _widths(text: str) -> tuple[int, ...]:
    widths = tuple(int(part) for part in text.split(","))
    if not all(2 <= bits <= 16 for bits in widths):
        raise argparse.ArgumentTypeError(f"weight widths are 2..16 (1 bit: --binary), got {text}")
    return widths


def add_budget_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("mixed precision (docs/calibration.md)")
    budget = group.add_mutually_exclusive_group()
    budget.add_argument("--budget", type=_positive, metavar="BYTES",
                        help="bytes of all weights (packed at their widths; biases not counted): "
                             "choose each layer's weight width for the best output SQNR")
    budget.add_argument("--bops", type=_positive, metavar="N",
                        help="bit operations (MACs x weight bits x activation bits, as bitfold-report counts them)")
    defaults = ",".join(map(str, DEFAULT_WIDTHS))
    group.add_argument("--bits", type=_widths, metavar="N,N,...",
                       help=f"candidate weight widths, in place of --weights (default {defaults}; 2 is ternary)")
    group.add_argument("--binary", action="store_true", help="also 1-bit bipolar weights {-s, +s}")
    group.add_argument("--ternary", action="store_true", help="also ternary weights {-s, 0, +s} (2 bits)")


def budget_choice(options: argparse.Namespace,
                  parser: argparse.ArgumentParser) -> tuple[Budget, tuple[int, ...]] | None:
    """(budget, candidate widths) from the parsed options, None without a budget."""
    if options.budget is None and options.bops is None:
        if options.bits is not None or options.binary or options.ternary:
            parser.error("--bits, --binary and --ternary choose widths for --budget or --bops")
        return None
    if options.calibrated:
        parser.error("--budget and --bops quantize: not with --calibrated")
    widths = set(options.bits or DEFAULT_WIDTHS)
    widths |= {BINARY_BITS} if options.binary else set()
    widths |= {TERNARY_BITS} if options.ternary else set()
    budget = Budget("bytes", options.budget) if options.budget is not None else Budget("bops", options.bops)
    return budget, tuple(sorted(widths))


def _read_back_widths(model: onnx.ModelProto) -> set[int]:
    """The weight widths of the layers with constant weights of `model` as bitfold reads it."""
    rows = layer_costs(entry_function(quant_form(import_model(model.SerializeToString()))))
    return {row.weight_bits for row in rows if row.macs and row.weight_bytes}


def writable_widths(module: ModuleOp, sample: Mapping[str, np.ndarray], options: QuantizeOptions,
                    widths: Sequence[int], write: Callable[[ModuleOp], onnx.ModelProto]) -> tuple[int, ...]:
    """The widths of `widths` that `write` keeps: the float `module` quantized on `sample` with
    every weight at the width, written and read back, has weights of that width (module docstring);
    a note on stderr names the others."""
    kept, dropped = [], []
    for bits in widths:
        copy = module.clone()
        quantize_model(copy, [sample], replace(options, weight_bits=bits, layer_weight_bits=()))
        try:
            same = _read_back_widths(write(copy)) == {bits}
        except ExportError:
            same = False
        (kept if same else dropped).append(bits)
    if dropped:
        print(f"note: weights of {', '.join(map(str, dropped))} bits are written wider in this form and are not "
              "candidates (--form qonnx or -o OUT.mlir keeps every width)", file=sys.stderr)
    return tuple(kept)
