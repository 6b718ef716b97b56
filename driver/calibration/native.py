"""The values a float model's chosen values take on calibration samples, computed by the model
compiled once for this machine: a copy returning every chosen value (`append_results`) goes through
`onnx-to-backend-input` (every op a float island, docs/float-islands.md) and the LLVM backend's
host target into a shared object, called once a sample (`backends.llvm.native`).

    observe_native(module, values, samples) -> what `observe_values` returns (one float64 array
    per value, flattened in sample order; or [min, max] of each with `extremes_only`)

The compiled code computes IEEE binary32 per op in the IR's order (docs/float-islands.md), so a
value differs from the interpreter's float32-accumulated one by the order of float32 sums only
(tested within the bound the batched observation keeps, docs/calibration.md)."""

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from bitfold.backends.llvm import HOST
from bitfold.calibration.observe import OBSERVED_PREFIX
from bitfold.calibration.progress import Progress
from bitfold.compile import compile_model
from bitfold.interpreter import entry_function
from bitfold.passes.utils.observed_values import append_results


def observe_native(module: ModuleOp, values: Sequence[SSAValue], samples: Sequence[Mapping[str, np.ndarray]],
                   extremes_only: bool = False) -> list[np.ndarray]:
    """What each of `values` (of `module`'s entry function) took on every sample, or its [min, max]
    (module docstring)."""
    clones: dict[SSAValue, SSAValue] = {}
    observed = module.clone(value_mapper=clones)
    names = append_results(entry_function(observed), [clones[v] for v in values], OBSERVED_PREFIX)
    compiled = compile_model(observed, HOST)
    positions = [[p.name for p in compiled.outputs].index(name) for name in names]
    progress = Progress(len(samples))
    lows = [np.inf] * len(names)
    highs = [-np.inf] * len(names)
    parts: list[list[np.ndarray]] = [[] for _ in names]
    with tempfile.TemporaryDirectory() as workdir:
        kernel = compiled.native_kernel(Path(workdir))
        for sample in samples:
            outputs = kernel(compiled.quantize(sample), compiled.layouts)
            for i, position in enumerate(positions):
                value = outputs[position]
                if extremes_only:
                    lows[i], highs[i] = min(lows[i], float(value.min())), max(highs[i], float(value.max()))
                else:
                    parts[i].append(value.astype(np.float64).ravel())
            progress.update(1)
    progress.close()
    if extremes_only:
        return [np.array([low, high]) for low, high in zip(lows, highs, strict=True)]
    return [np.concatenate(part) for part in parts]
