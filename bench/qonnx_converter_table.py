"""Which form conversions qonnx's own converters accept, and whether their result computes the
source model's numbers, against bitfold's exporters: a markdown table for the README.

Models: the test catalogue's QDQ, QCDQ, QONNX and QOp models and qonnx's shipped
non-FloatQuant models. qonnx: `QuantToQCDQ` on QONNX models, `QCDQToQuant` on QDQ / QCDQ / QOp
models (from `qonnx.transformation.qonnx_to_qcdq` / `qcdq_to_qonnx`), seed 0: `-` (the
converter does not apply), `refused`, `not converted`, `broken`, `changed` or `same`. bitfold:
import, `onnx-to-quant`, `canonicalize`, then each target form, judged as the round-trip test
judges it on seeds 0 and 1 (`tests/backends/onnx_round_trip_cells.py`): `same` (bit for bit),
`rounding` (float outputs after the last quantizer differ by float rounding only), `1 step`,
`changed`, or `refused: <the exporter's one-line reason>`.

    python bench/qonnx_converter_table.py [--limit N]
"""

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "backends"))

from models.recipes import ModelCatalogue, names
from models.runners import run_onnxruntime, run_qonnx

TARGETS = ("qdq", "qcdq", "qonnx", "qop")


def _outputs(model: onnx.ModelProto, form: str, inputs) -> dict[str, np.ndarray]:
    return (run_qonnx if form == "qonnx" else run_onnxruntime)(model, inputs)


def _verdict(converted: onnx.ModelProto, form: str, expected, inputs) -> str:
    try:
        actual = _outputs(converted, form, inputs)
    except Exception as error:  # the oracle cannot run what the converter wrote
        return f"broken ({type(error).__name__})"
    same = actual.keys() == expected.keys() and all(np.array_equal(actual[k], expected[k]) for k in expected)
    return "same" if same else "changed"


def qonnx_cell(model: onnx.ModelProto, form: str, expected, inputs) -> tuple[str, str]:
    """(QuantToQCDQ, QCDQToQuant) verdicts."""
    from models.runners import qonnx_ir_version_shim
    from qonnx.core.modelwrapper import ModelWrapper
    from qonnx.transformation.qcdq_to_qonnx import QCDQToQuant
    from qonnx.transformation.qonnx_to_qcdq import QuantToQCDQ

    transformation, target = (QuantToQCDQ(), "qcdq") if form == "qonnx" else (QCDQToQuant(), "qonnx")
    try:
        with qonnx_ir_version_shim():
            converted = ModelWrapper(onnx.ModelProto.FromString(model.SerializeToString())).transform(transformation).model
        converted.ir_version = min(converted.ir_version, 13)
        if not any(n.op_type in ("Quant", "QuantizeLinear") for n in converted.graph.node) or \
                [n.op_type for n in converted.graph.node] == [n.op_type for n in model.graph.node]:
            verdict = "not converted"
        else:
            verdict = _verdict(converted, target, expected, inputs)
    except Exception as error:
        verdict = f"refused ({type(error).__name__})"
    return (verdict, "-") if form == "qonnx" else ("-", verdict)


def bitfold_cells(trips, name: str) -> list[str]:
    """One verdict per target form (the round-trip test's)."""
    return [trips.cell(name, target).verdict[:100] for target in TARGETS]


def _kind(verdict: str) -> str:
    """A cell's verdict without its detail: same, rounding, refused, changed, broken, ..."""
    return verdict.split(":")[0].split(" (")[0]


def print_summary(rows: list[tuple[str, list[str]]]) -> None:
    """Per source form and converter, how many models end in each verdict."""
    columns = ["qonnx QuantToQCDQ", "qonnx QCDQToQuant"] + [f"bitfold -> {t}" for t in TARGETS]
    print("\n| source form (models) | " + " | ".join(columns) + " |")
    print("| --- " * (1 + len(columns)) + "|")
    for form in sorted({form for form, _ in rows}):
        cells = [verdicts for f, verdicts in rows if f == form]
        counts = []
        for column in range(len(columns)):
            kinds = [_kind(c[column]) for c in cells if c[column] != "-"]
            counts.append(", ".join(f"{kinds.count(k)} {k}" for k in sorted(set(kinds))) or "-")
        print(f"| {form} ({len(cells)}) | " + " | ".join(counts) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="models of each set (default: all)")
    limit = parser.parse_args().limit
    from onnx_round_trip_cells import SHIPPED, SOURCE_FORMS, RoundTrips, source_form

    trips = RoundTrips(ModelCatalogue(tempfile.mkdtemp(prefix="bitfold-bench-")))
    chosen = [n for form in SOURCE_FORMS for n in names(form)[:limit]] + [f"qonnx:{m.relpath}" for m in SHIPPED[:limit]]
    print("| model | form | qonnx QuantToQCDQ | qonnx QCDQToQuant | " + " | ".join(f"bitfold -> {t}" for t in TARGETS) + " |")
    print("| --- " * (4 + len(TARGETS)) + "|")
    rows = []
    for name in chosen:
        form, model, inputs = source_form(name), onnx.load(trips.path(name)), trips.inputs(name, 0)
        quant_to_qcdq, qcdq_to_quant = qonnx_cell(model, form, trips.expected(name, 0), inputs)
        cells = bitfold_cells(trips, name)
        rows.append((form if not name.startswith("qonnx:") else "qonnx (shipped)", [quant_to_qcdq, qcdq_to_quant, *cells]))
        print(f"| {name} | {form} | {quant_to_qcdq} | {qcdq_to_quant} | " + " | ".join(cells) + " |", flush=True)
    print_summary(rows)


if __name__ == "__main__":
    main()
