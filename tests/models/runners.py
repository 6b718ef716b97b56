"""Oracle runners for the test models: onnxruntime (float, QDQ, QCDQ, QOp) and qonnx's executor (QONNX).

bitfold's results are compared against these, never against numbers the project wrote itself.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

import numpy as np
import onnx
from onnx import helper

from .exact_integer_kernels import exact_integer_kernels
from .float_models import IR_VERSION


def _load(model: str | os.PathLike | onnx.ModelProto) -> onnx.ModelProto:
    return model if isinstance(model, onnx.ModelProto) else onnx.load(os.fspath(model))


def graph_inputs(model: str | os.PathLike | onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """The graph inputs a caller must feed: inputs that are not also initializers."""
    model = _load(model)
    inits = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in inits]


def random_inputs(model: str | os.PathLike | onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    """Deterministic random inputs matching the model's graph inputs (shape and element type).

    Float inputs are standard normal; integer inputs are uniform over [0, 16) (small, and valid for
    both signed and unsigned types). Symbolic or unknown dimensions become 1.
    """
    rng = np.random.default_rng(seed)
    feeds = {}
    for value in graph_inputs(model):
        tensor_type = value.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else 1 for d in tensor_type.shape.dim]
        dtype = helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)
        if np.issubdtype(dtype, np.floating):
            feeds[value.name] = rng.standard_normal(shape).astype(dtype)
        elif dtype == np.bool_:
            feeds[value.name] = rng.integers(0, 2, shape).astype(dtype)
        else:
            feeds[value.name] = rng.integers(0, 16, shape).astype(dtype)
    return feeds


def onnxruntime_session(model: str | os.PathLike | onnx.ModelProto, optimize: bool = False, log_severity: int = 3):
    """An onnxruntime CPU session on the model whose integer kernels are exact on every x86-64 CPU
    (`exact_integer_kernels`: its u8 x s8 nodes as the equivalent u8 x u8 ones).

    By default all graph optimizations are disabled (`ORT_DISABLE_ALL`): onnxruntime executes the
    graph literally, no QDQ fusion into integer kernels, no constant folding, so the numbers are
    those of the ops the file contains. `optimize` keeps onnxruntime's default level, for tests of
    what its default session does; its QDQ fusions may then make u8 x s8 kernels of their own.
    `log_severity` is onnxruntime's (3: errors only, 4: fatal only).
    """
    import onnxruntime as ort

    options = ort.SessionOptions()
    if not optimize:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.log_severity_level = log_severity
    source = exact_integer_kernels(_load(model)).SerializeToString()
    return ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])


def run_onnxruntime(
    model_path: str | os.PathLike | onnx.ModelProto, inputs: Mapping[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Run a model in `onnxruntime_session` (graph optimizations disabled, integer kernels exact on
    every CPU). Returns every graph output by name."""
    session = onnxruntime_session(model_path)
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, dict(inputs)), strict=True))


@contextlib.contextmanager
def qonnx_ir_version_shim() -> Iterator[None]:
    """Make qonnx's executor write single-node models that onnxruntime 1.31 accepts.

    qonnx 1.0 runs every standard ONNX node by wrapping it in a fresh one-node model made by
    `qonnx.util.basic.qonnx_make_model` (so do `QuantAvgPool2d`, `MaxPoolNHWC` and the
    channels-last wrappers). That model gets onnx 1.23's default IR version 14, which onnxruntime 1.31
    refuses ("Unsupported model IR version: 14, max supported IR version: 13"), whatever the IR
    version of the model being executed. Inside this context the helper is wrapped so its models carry
    `IR_VERSION`; the custom ops' numerics (`Quant`, `Trunc`, `BipolarQuant`) are untouched.
    """
    import importlib

    from qonnx.util import basic

    original = basic.qonnx_make_model

    def make_model(graph, **kwargs):
        model = original(graph, **kwargs)
        model.ir_version = min(model.ir_version, IR_VERSION)
        return model

    holders = [basic]
    for module_name in (
        "qonnx.core.onnx_exec",
        "qonnx.core.modelwrapper",
        "qonnx.custom_op.general.maxpoolnhwc",
        "qonnx.custom_op.general.quantavgpool2d",
        "qonnx.custom_op.channels_last.base_wrapped_op",
    ):
        with contextlib.suppress(ImportError):
            module = importlib.import_module(module_name)
            if getattr(module, "qonnx_make_model", None) is original:
                holders.append(module)
    for holder in holders:
        holder.qonnx_make_model = make_model
    try:
        yield
    finally:
        for holder in holders:
            holder.qonnx_make_model = original


def run_qonnx(
    model_path: str | os.PathLike | onnx.ModelProto, inputs: Mapping[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Run a model with qonnx's reference executor (`qonnx.core.onnx_exec.execute_onnx`).

    This is the oracle for QONNX models: `Quant`, `BipolarQuant` and `Trunc` are computed by qonnx's
    own numpy functions, standard nodes one at a time by onnxruntime. The executor needs every tensor
    shape known; the catalogue's QONNX models are saved with shapes inferred. Returns every graph
    output by name.
    """
    from qonnx.core.modelwrapper import ModelWrapper
    from qonnx.core.onnx_exec import execute_onnx

    wrapper = ModelWrapper(model_path if isinstance(model_path, onnx.ModelProto) else os.fspath(Path(model_path)))
    with qonnx_ir_version_shim():
        return execute_onnx(wrapper, dict(inputs))
