"""The fuzz corpus: case `i` of a kind is fully determined by (kind, i).

- `onnx`: a mutated seed model (`mutations.mutate_model`) run by bitfold-run with random
  inputs and `--output-dir out`; where it exits 0, its outputs against the oracle.
- `mlir`: mutated IR text (the example, and each seed model imported and printed) through
  bitfold-opt (`-p onnx-to-quant,canonicalize-quant -o out/o.mlir`) and bitfold-run.
- `npy`: a mutated `.npy` input of the QDQ seed model through bitfold-run.
- `compile`: a mutated seed model through bitfold-compile (no --run) into `out/`.
"""

import random
import shutil
from pathlib import Path

import numpy as np
import onnx

from bitfold.compile_main import main as compile_main
from bitfold.frontends.onnx import import_model
from bitfold.opt_main import main as opt_main
from bitfold.run_main import main as run_main

from .contract import Result, agree, graph_inputs, oracle_outputs, run_tool
from .mutations import EXAMPLES, mutate_model, mutate_npy, mutate_text, seed_models

KINDS = ("onnx", "mlir", "npy", "compile")
_SEEDS: dict[str, onnx.ModelProto] = {}
_TEXTS: list[str] = []


def seeds() -> dict[str, onnx.ModelProto]:
    if not _SEEDS:
        _SEEDS.update(seed_models())
    return _SEEDS


def seed_texts() -> list[str]:
    if not _TEXTS:
        _TEXTS.append((EXAMPLES / "fake_quant_layer.mlir").read_text())
        _TEXTS.extend(str(import_model(m.SerializeToString())) for m in seeds().values())
    return _TEXTS


def _sandbox(root: Path, index: int) -> Path:
    case = root / "a" / "b" / f"case{index}"
    shutil.rmtree(case, ignore_errors=True)
    (case / "in").mkdir(parents=True)
    (case / "in" / "weights.bin").write_bytes(np.arange(64, dtype=np.float32).tobytes())
    (case / "in" / "link.bin").symlink_to(root / "outside.bin")
    return case


def _save_inputs(case: Path, inputs: dict[str, np.ndarray]) -> list[str]:
    arguments = []
    for number, (name, value) in enumerate(inputs.items()):
        path = case / "in" / f"input{number}.npy"
        np.save(path, value)
        arguments += ["--input", f"{name}={path}"]
    return arguments


def _check_outputs(result: Result, case: Path, inputs: dict[str, np.ndarray]) -> Result:
    """An `ok` ONNX case against the oracle: `oracle refuses` or `mismatch` where they differ."""
    try:
        model = onnx.load(case / "in" / "m.onnx")  # with its external data, as bitfold read it
    except Exception:  # noqa: BLE001 - onnx cannot load it: the oracle refuses
        return Result("oracle refuses", result.detail)
    expected = oracle_outputs(model, inputs)
    if expected is None:
        return Result("oracle refuses", result.detail)
    listed = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    for output, want in zip(model.graph.output, expected, strict=True):
        if output.name not in listed or not agree(np.load(case / listed[output.name]), want):
            return Result("mismatch", f"output {output.name!r}")
    return result


def onnx_case(root: Path, index: int) -> Result:
    rng = random.Random(index)
    name = rng.choice(sorted(seeds()))
    data, mutators = mutate_model(rng, seeds()[name])
    case = _sandbox(root, index)
    (case / "in" / "m.onnx").write_bytes(data)
    try:
        model = onnx.load_from_string(data)
        inputs = graph_inputs(model, np.random.default_rng(index)) or {}
    except Exception:  # noqa: BLE001 - unparsable bytes: the tool must say so
        inputs = {}
    result = run_tool(run_main, [str(case / "in" / "m.onnx"), *_save_inputs(case, inputs), "--output-dir", "out"], root, case)
    result.detail = f"{name} {'+'.join(mutators)}: {result.detail}"
    return _check_outputs(result, case, inputs) if result.outcome == "ok" else result


def mlir_case(root: Path, index: int) -> Result:
    rng = random.Random(index)
    text = mutate_text(rng, rng.choice(seed_texts()))
    case = _sandbox(root, index)
    path = case / "in" / "m.mlir"
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    if rng.random() < 0.5:
        return run_tool(opt_main, [str(path), "-p", "onnx-to-quant,canonicalize-quant", "-o", "out/o.mlir"], root, case)
    return run_tool(run_main, [str(path), "--output-dir", "out"], root, case)


def npy_case(root: Path, index: int) -> Result:
    rng = random.Random(index)
    model = seeds()["qdq_chain"]
    case = _sandbox(root, index)
    (case / "in" / "m.onnx").write_bytes(model.SerializeToString())
    array = np.random.default_rng(index).normal(0, 2, (2, 4)).astype(np.float32)
    (case / "in" / "x.npy").write_bytes(mutate_npy(rng, array))
    result = run_tool(run_main, [str(case / "in" / "m.onnx"), "--input", f"x={case / 'in' / 'x.npy'}", "--output-dir", "out"], root, case)
    if result.outcome != "ok":
        return result
    return _check_outputs(result, case, {"x": np.load(case / "in" / "x.npy").astype(np.float32)})


def compile_case(root: Path, index: int) -> Result:
    rng = random.Random(index)
    name = rng.choice(["qdq_chain", "qcdq_per_axis", "qlinear_matmul"])
    data, mutators = mutate_model(rng, seeds()[name])
    case = _sandbox(root, index)
    (case / "in" / "m.onnx").write_bytes(data)
    result = run_tool(compile_main, [str(case / "in" / "m.onnx"), "--target", "rv32im", "-o", "out"], root, case)
    result.detail = f"{name} {'+'.join(mutators)}: {result.detail}"
    return result


RUNNERS = {"onnx": onnx_case, "mlir": mlir_case, "npy": npy_case, "compile": compile_case}


def run_case(kind: str, root: Path, index: int) -> Result:
    """Case `index` of `kind` in the sandbox `root` (created by the caller, with `outside.bin`)."""
    result = RUNNERS[kind](root, index)
    shutil.rmtree(root / "a" / "b" / f"case{index}", ignore_errors=True)
    return result
