"""The error contract of bitfold's tools, checked on one fuzz case at a time.

A case runs a tool's `main` in-process inside a sandbox `root/a/b/case` (inputs in `in/`,
outputs asked for in `out/`) under a per-case alarm and a 64 MiB tensor cap. Its outcome:
- `ok`: exit status 0 (then, for ONNX cases, the outputs written must agree with the oracle:
  onnxruntime for standard models, qonnx's executor for QONNX ones);
- `error`: exit status 1 and exactly one stderr line `error: ...` (or `file:line:col: error: ...`);
- `traceback`: any other exception, exit status or stderr;
- `hang`: over the alarm;
- `memory`: the out-of-memory error line, or the process's peak memory grown by more than
  `MEMORY_GROWTH` during the case (a blow-up past the cap that did not fail);
- `outside write`: anything created or changed under `root` but outside `out/`, or a hostile
  absolute output name created;
- `oracle refuses` / `mismatch`: exit 0 on a model the oracle refuses, or different outputs.
"""

import contextlib
import io
import os
import re
import resource
import signal
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx

from bitfold.dialects.tensor_limits import tensor_limits

CASE_SECONDS = 20
FUZZ_CAP_BYTES = 64 << 20
ONE_LINE = re.compile(r"^(\S[^\n]*: )?error: .")
ABSOLUTE_NAMES = ("/tmp/bitfold-fuzz-absolute",)
OUTCOMES = ("ok", "error", "traceback", "hang", "memory", "outside write", "oracle refuses", "mismatch")
MEMORY_GROWTH = 4 * FUZZ_CAP_BYTES


class Hang(Exception):
    pass


@dataclass
class Result:
    outcome: str
    detail: str = ""
    stdout: str = ""


def _tree(root: Path, skip: Path) -> dict[str, tuple[int, int]]:
    """Path -> (size, modification time) of the files under `root` outside `skip` (directories
    by name only: their times change as `skip` is written)."""
    return {str(p): (0, 0) if p.is_dir() and not p.is_symlink() else (p.lstat().st_size, p.lstat().st_mtime_ns)
            for p in root.rglob("*") if not p.is_relative_to(skip)}


def _on_alarm(signum, frame):
    raise Hang()


def run_tool(main: Callable[[Sequence[str]], None], args: Sequence[str], root: Path, case: Path) -> Result:
    """Run `main(args)` from `case` as working directory and classify it (see the module docstring)."""
    before = _tree(root, case / "out")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux reports KiB
    stdout, stderr = io.StringIO(), io.StringIO()
    previous_directory, previous_handler = os.getcwd(), signal.signal(signal.SIGALRM, _on_alarm)
    status: object = 0
    os.chdir(case)
    signal.alarm(CASE_SECONDS)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr), tensor_limits(max_bytes=FUZZ_CAP_BYTES):
            main(list(args))
    except SystemExit as exit_status:
        status = exit_status.code
    except Hang:
        return Result("hang", " ".join(args))
    except Exception as error:  # noqa: BLE001 - every other exception is a traceback the user would see
        return Result("traceback", f"{type(error).__name__}: {str(error)[:200]}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous_handler)
        os.chdir(previous_directory)
    if _tree(root, case / "out") != before or any(Path(n).exists() or Path(n + ".npy").exists() for n in ABSOLUTE_NAMES):
        return Result("outside write", str(set(_tree(root, case / "out")) ^ set(before)))
    lines = stderr.getvalue().splitlines()
    if resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - peak > MEMORY_GROWTH or "out of memory" in stderr.getvalue():
        return Result("memory", " ".join(args))
    if status in (0, None):
        return Result("ok", stdout=stdout.getvalue())
    if status == 1 and len(lines) == 1 and ONE_LINE.match(lines[0]):
        return Result("error", lines[0])
    return Result("traceback", f"exit {status}: {stderr.getvalue()[:300]}")


def graph_inputs(model: onnx.ModelProto, rng: np.random.Generator) -> dict[str, np.ndarray] | None:
    """Random float inputs of the shapes the graph declares, or None where they are not
    plain float tensors of known, small shape."""
    initializers = {t.name for t in model.graph.initializer}
    inputs = {}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tensor.shape.dim]
        if tensor.elem_type != onnx.TensorProto.FLOAT or any(d < 1 or d > 64 for d in dims) or np.prod(dims) > 4096:
            return None
        inputs[value.name] = rng.normal(0, 2, dims).astype(np.float32)
    return inputs


def oracle_outputs(model: onnx.ModelProto, inputs: dict[str, np.ndarray]) -> list[np.ndarray] | None:
    """The outputs of onnxruntime (standard domains; the graph executed literally, with onnxruntime's
    graph optimizations only where the literal session refuses the model) or qonnx's executor
    (QONNX models), in graph output order; None where the oracle refuses the model."""
    domains = {n.domain for n in model.graph.node}
    try:
        if domains & {"qonnx.custom_op.general", "onnx.brevitas", "finn.custom_op.general"}:
            from qonnx.core.modelwrapper import ModelWrapper
            from qonnx.core.onnx_exec import execute_onnx
            from qonnx.transformation.infer_shapes import InferShapes

            for node in model.graph.node:  # Brevitas' name, which bitfold reads as DOWN (`dialects/qonnx.py`)
                for attribute in node.attribute:
                    if attribute.name == "rounding_mode" and attribute.s.upper() == b"ROUND_TO_ZERO":
                        attribute.s = b"DOWN"
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                results = execute_onnx(ModelWrapper(model).transform(InferShapes()), dict(inputs))
            return [np.asarray(results[o.name]) for o in model.graph.output]
        # the graph executed literally first (integer kernels exact on every CPU: `onnxruntime_session`);
        # onnxruntime's default session only where the literal one refuses the model
        for optimize in (False, True):
            with contextlib.suppress(Exception):
                return _onnxruntime(model, inputs, optimize)
    except Exception:  # noqa: BLE001 - any failure of the oracle is its refusal
        return None
    return None


def _onnxruntime(model: onnx.ModelProto, inputs: dict[str, np.ndarray], optimize: bool) -> list[np.ndarray]:
    from models.runners import onnxruntime_session

    return list(onnxruntime_session(model, optimize, log_severity=4).run(None, inputs))


def agree(got: np.ndarray, want: np.ndarray) -> bool:
    """Equal shapes; integers within one step (the documented 1-LSB float32 requantization
    cases), floats within 1e-5 relative / 1e-6 absolute or one quantization step of the
    result where it is a dequantized value, NaN where the oracle has NaN."""
    want = np.asarray(want)
    if got.shape != want.shape:
        return False
    if np.issubdtype(want.dtype, np.integer) or want.dtype == bool:
        return bool(np.all(np.abs(got.astype(np.int64) - want.astype(np.int64)) <= 1))
    got, want = got.astype(np.float64), want.astype(np.float64)
    levels = np.unique(want[np.isfinite(want)])
    step = np.min(np.diff(levels)) if levels.size > 1 else 0.0
    return bool(np.allclose(got, want, rtol=1e-5, atol=max(1e-6, step * 1.0001), equal_nan=True))
