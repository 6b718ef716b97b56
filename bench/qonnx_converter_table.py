"""Which form conversions qonnx's own converters accept, and whether their result computes the
source model's numbers, against bitfold's exporters: a markdown table for the README.

Models: the test catalogue's QDQ, QCDQ and QONNX models and qonnx's shipped non-FloatQuant
models. qonnx: `QuantToQCDQ` on QONNX models, `QCDQToQuant` on QDQ / QCDQ models (from
`qonnx.transformation.qonnx_to_qcdq` / `qcdq_to_qonnx`). bitfold: import, `onnx-to-quant`,
`canonicalize`, then each target form. A cell is `-` (the converter does not apply), `refused`
(an error; bitfold's is the one-line reason), `changed` (it ran, but the result's outputs
differ from the source's under the oracles, for seed 0), or `same` (bit for bit).

    python bench/qonnx_converter_table.py [--limit N]
"""

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from models.qonnx_models import SHIPPED_QONNX_MODELS  # noqa: E402
from models.recipes import ModelCatalogue, form_of, names  # noqa: E402
from models.runners import run_onnxruntime, run_qonnx  # noqa: E402

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
    from qonnx.core.modelwrapper import ModelWrapper
    from qonnx.transformation.qcdq_to_qonnx import QCDQToQuant
    from qonnx.transformation.qonnx_to_qcdq import QuantToQCDQ

    from models.runners import qonnx_ir_version_shim

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


def bitfold_cells(path: Path, form: str, expected, inputs) -> list[str]:
    """One verdict per target form."""
    from bitfold.backends.onnx import export_model
    from bitfold.backends.onnx.targets import OnnxQcdqTarget, OnnxQdqTarget, OnnxQonnxTarget, OnnxQopTarget
    from bitfold.frontends.onnx import import_model
    from bitfold.load import full_context
    from bitfold.registry import get_all_passes

    try:
        to_quant = get_all_passes()["onnx-to-quant"]()
    except (ImportError, AttributeError):
        return ["n/a (no onnx-to-quant yet)"] * len(TARGETS)
    from xdsl.transforms.canonicalize import CanonicalizePass

    cells = []
    for target, target_class in zip(TARGETS, (OnnxQdqTarget, OnnxQcdqTarget, OnnxQonnxTarget, OnnxQopTarget), strict=True):
        try:
            module = import_model(path)
            ctx = full_context()
            to_quant().apply(ctx, module)
            CanonicalizePass().apply(ctx, module)
            converted = export_model(module, target_class.FORM())
            cells.append(_verdict(converted, target, expected, inputs))
        except Exception as error:
            cells.append(f"refused: {str(error).splitlines()[0][:80]}")
    return cells


def rows(limit: int | None):
    catalogue = ModelCatalogue(tempfile.mkdtemp(prefix="bitfold-bench-"))
    chosen = names("qdq") + names("qcdq") + names("qonnx")
    for name in chosen[:limit]:
        form = form_of(name)
        yield name, form, catalogue.path(name), catalogue.inputs(name, 0)
    for shipped in SHIPPED_QONNX_MODELS[:limit]:
        if "FloatQuant" in shipped.ops:
            continue
        model = onnx.load(shipped.path) if shipped.runs else shipped.cleaned_model()
        feeds = shipped.feeds() if shipped.runs else shipped.cleaned_feeds(model)
        path = Path(tempfile.mkdtemp()) / "model.onnx"
        onnx.save(model, path)
        yield f"qonnx:{shipped.relpath}", "qonnx", path, feeds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="models of each set (default: all)")
    limit = parser.parse_args().limit
    print("| model | form | qonnx QuantToQCDQ | qonnx QCDQToQuant | " + " | ".join(f"bitfold -> {t}" for t in TARGETS) + " |")
    print("| --- " * (4 + len(TARGETS)) + "|")
    for name, form, path, inputs in rows(limit):
        model = onnx.load(path)
        expected = _outputs(model, form, inputs)
        quant_to_qcdq, qcdq_to_quant = qonnx_cell(model, form, expected, inputs)
        cells = bitfold_cells(path, form, expected, inputs)
        print(f"| {name} | {form} | {quant_to_qcdq} | {qcdq_to_quant} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
