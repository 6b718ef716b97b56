"""Float input samples for the tools that run a model on data (bitfold-compile --run,
bitfold-report, bitfold-quantize).

`[NAME=]FILE.npy` options give one sample (`named_arrays`; NAME may be left out for a model with
one input); a calibration `.npz` holds one array per model input whose first axis concatenates
samples of the input's shape (N samples of a 1x3x32x32 input: an N x 3 x 32 x 32 array). Files
are read by `bitfold.array_files` (headers checked before allocation, no pickles)."""

from collections.abc import Sequence

import numpy as np

from bitfold.array_files import load_archive, load_array
from bitfold.interpreter import InterpretationInputError


def named_arrays(specs: Sequence[str], names: Sequence[str], option: str) -> dict[str, np.ndarray]:
    """The arrays `option`'s `[NAME=]FILE.npy` specs give, one for each of the model's input `names`."""
    arrays = {}
    for spec in specs:
        name, sep, path = spec.rpartition("=")
        if not sep:
            if len(names) != 1:
                raise InterpretationInputError(f"the model has inputs {list(names)}: give {option} NAME=FILE.npy for each")
            name = names[0]
        arrays[name] = load_array(path)
    missing = [n for n in names if n not in arrays]
    if missing:
        raise InterpretationInputError(f"{option} lacks inputs {missing}")
    return arrays


def calibration_samples(path: str, names: Sequence[str], shapes: Sequence[Sequence[int]]) -> list[dict[str, np.ndarray]]:
    """The samples of the calibration archive `path` (module docstring), at least one."""
    archive = load_archive(path)
    missing = [n for n in names if n not in archive]
    if missing:
        raise InterpretationInputError(f"{path} lacks inputs {missing}")
    counts = {n: archive[n].shape[0] // max(shape[0], 1) if archive[n].ndim else 0
              for n, shape in zip(names, shapes, strict=True)}
    if len(set(counts.values())) != 1 or not next(iter(counts.values()), 0):
        raise InterpretationInputError(f"{path}: expected the same number (at least one) of samples of each input, "
                                       f"found {counts}")
    return [{n: archive[n][i * shape[0]:(i + 1) * shape[0]] for n, shape in zip(names, shapes, strict=True)}
            for i in range(next(iter(counts.values())))]


def samples_from(inputs: Sequence[str], calibration: str | None, names: Sequence[str],
                 shapes: Sequence[Sequence[int]]) -> list[dict[str, np.ndarray]]:
    """The samples the options give: one from `--input`s, else the calibration archive's, else none."""
    if inputs:
        return [named_arrays(inputs, names, "--input")]
    return calibration_samples(calibration, names, shapes) if calibration is not None else []
