"""The values a float model's chosen values take on calibration samples, computed by bitfold's
interpreter in chunks of samples at once (`batched`), or one sample at a time
(`bitfold.interpreter.run`) where the model does not batch.

    observe_values(module, values, samples) -> one float64 array per value: what it took on every
    sample, flattened in sample order (the order of concatenating the per-sample arrays)
    observe_values(module, values, samples, extremes_only=True) -> [min, max] of each instead (all
    that MinMax needs, without holding every value)

A model whose batched copy fails to verify or to run (an op whose result shape does not follow
the batch) is run one sample at a time. Chunks hold at most `CHUNK_ELEMENTS` elements of
batch-carrying values (about 128 MiB in float64), so a run's memory does not grow with the
number of samples.

Unless `exact`, a model without float64 values is run with its float reductions accumulated in
float32 (`bitfold.dialects.onnx.nn.accumulating_in`), as onnxruntime computes them: about twice
as fast as the interpreter's float64 (half the memory traffic, single-precision matrix products);
a value then differs from the interpreter's by float32 accumulation error (docs/calibration.md,
tested within a bound). `exact=True` keeps the interpreter's float64 accumulation."""

from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp, TensorType, f64
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import InterpretationError, VerifyException

from bitfold.calibration.batched import batched_module, stacked
from bitfold.calibration.progress import Progress
from bitfold.dialects.onnx.nn import accumulating_in
from bitfold.interpreter import entry_function, run, run_on_samples
from bitfold.passes.utils.observed_values import append_results
from bitfold.verification import verify_program

OBSERVED_PREFIX = "calibration_point"
CHUNK_ELEMENTS = 1 << 24


def _per_sample_elements(module: ModuleOp) -> int:
    """Elements of the tensor results of the entry function's ops that have operands (not the
    constants) for one sample: what one sample adds to a chunk's run."""
    total = 0
    for op in entry_function(module).body.walk():
        for result in op.results if op.operands else ():
            if isinstance(result.type, TensorType):
                total += int(np.prod(result.type.get_shape()))
    return max(total, 1)


def _chunks(count: int, size: int) -> list[range]:
    return [range(start, min(start + size, count)) for start in range(0, count, size)]


def _flat(value: np.ndarray, extremes_only: bool) -> np.ndarray:
    value = np.asarray(value)
    if extremes_only:
        return np.array([value.min(), value.max()], np.float64)
    return value.astype(np.float64).ravel()


def _verified(copy: ModuleOp | None) -> ModuleOp | None:
    """The batched `copy` if it verifies (`verify_program`, once for all its chunks), else None."""
    if copy is None:
        return None
    try:
        verify_program(copy)
    except VerifyException:  # an op whose result shape does not follow the batch
        return None
    return copy


def _run_chunk(observed: ModuleOp, batched: dict[int, ModuleOp | None], chunk: Sequence[Mapping[str, np.ndarray]],
               names: Sequence[str], extremes_only: bool) -> list[np.ndarray]:
    """The observed values on `chunk` (`_flat`), in sample order: one batched run, or one run a
    sample where the model does not batch. `batched` caches the batched copy by chunk size (None:
    the model does not batch at that size; every chunk but the last has the same size)."""
    if len(chunk) > 1 and len(chunk) not in batched:
        batched[len(chunk)] = _verified(batched_module(observed, len(chunk)))
    copy = batched.get(len(chunk))
    if copy is not None:
        try:
            results = run(copy, stacked(chunk), verified=True)
        except InterpretationError:  # an op that does not keep the samples apart
            batched[len(chunk)] = copy = None
    if copy is not None:
        changed = [a != b for a, b in zip(entry_function(observed).function_type.outputs,
                                          entry_function(copy).function_type.outputs, strict=True)]
        carrying = changed[len(changed) - len(names):]
        return [_flat(results[n] if carries or extremes_only else np.tile(results[n], len(chunk)), extremes_only)
                for n, carries in zip(names, carrying, strict=True)]
    return [_flat(values, extremes_only) for values in run_on_samples(observed, chunk, names)]


def _has_float64(module: ModuleOp) -> bool:
    """Whether any value of the entry function is float64 (kept at the interpreter's accumulation)."""
    return any(isinstance(value.type, TensorType) and value.type.element_type == f64 or value.type == f64
               for op in entry_function(module).body.walk() for value in (*op.operands, *op.results))


def observe_values(module: ModuleOp, values: Sequence[SSAValue], samples: Sequence[Mapping[str, np.ndarray]],
                   batch: bool = True, extremes_only: bool = False, exact: bool = False) -> list[np.ndarray]:
    """What each of `values` (of `module`'s entry function) took on every sample, or its extremes
    (module docstring); `batch=False` runs one sample at a time, `exact=True` with the interpreter's
    float64 accumulation (with both: the oracle the fast runs are tested against)."""
    accumulation = accumulating_in(np.float64 if exact or _has_float64(module) else np.float32)
    with accumulation:
        return _observe(module, values, samples, batch, extremes_only)


def _observe(module: ModuleOp, values: Sequence[SSAValue], samples: Sequence[Mapping[str, np.ndarray]],
             batch: bool, extremes_only: bool) -> list[np.ndarray]:
    clones: dict[SSAValue, SSAValue] = {}
    observed = module.clone(value_mapper=clones)
    names = append_results(entry_function(observed), [clones[v] for v in values], OBSERVED_PREFIX)
    size = max(1, CHUNK_ELEMENTS // _per_sample_elements(observed)) if batch else 1
    progress = Progress(len(samples))
    parts: list[list[np.ndarray]] = [[] for _ in names]
    batched: dict[int, ModuleOp | None] = {}
    for chunk in _chunks(len(samples), size):
        taken = _run_chunk(observed, batched, [samples[i] for i in chunk], names, extremes_only)
        for part, chunk_values in zip(parts, taken, strict=True):
            part.append(chunk_values)
        progress.update(len(chunk))
    progress.close()
    if extremes_only:
        return [np.array([min(p[0] for p in part), max(p[1] for p in part)]) for part in parts]
    return [np.concatenate(part) for part in parts]

