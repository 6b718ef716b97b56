"""Float input samples for the tools that run a model on data (bitfold-report, bitfold-quantize).

`--input [NAME=]FILE.npy` options give one sample; a calibration `.npz` holds one array per model
input whose first axis concatenates samples of the input's shape (N samples of a 1x3x32x32
input: an N x 3 x 32 x 32 array)."""

from collections.abc import Sequence

import numpy as np

from bitfold.interpreter import InterpretationInputError


def _load_array(path: str) -> np.ndarray:
    array = np.load(path, allow_pickle=False)
    if not isinstance(array, np.ndarray) or array.dtype.kind not in "biuf":
        raise InterpretationInputError(f"{path}: expected one array of numbers")
    return array


def samples_from(inputs: Sequence[str], calibration: str | None, names: Sequence[str],
                 shapes: Sequence[Sequence[int]]) -> list[dict[str, np.ndarray]]:
    """The float input samples the options give: one from `--input`s, or the calibration
    file's arrays split along their first axis into chunks of the inputs' first dimension."""
    if inputs:
        sample = {}
        for spec in inputs:
            name, sep, path = spec.rpartition("=")
            if not sep:
                if len(names) != 1:
                    raise InterpretationInputError(f"the model has inputs {list(names)}: give --input NAME=FILE.npy")
                name = names[0]
            sample[name] = _load_array(path)
        return [sample]
    if calibration is None:
        return []
    with np.load(calibration, allow_pickle=False) as data:
        missing = [n for n in names if n not in data.files]
        if missing:
            raise InterpretationInputError(f"{calibration} lacks inputs {missing}")
        arrays = {n: np.asarray(data[n]) for n in names}
    counts = {n: arrays[n].shape[0] // max(shape[0], 1) for n, shape in zip(names, shapes, strict=True)}
    if len(set(counts.values())) != 1:
        raise InterpretationInputError(f"{calibration}: the inputs hold different numbers of samples {counts}")
    return [{n: arrays[n][i * shape[0]:(i + 1) * shape[0]] for n, shape in zip(names, shapes, strict=True)}
            for i in range(next(iter(counts.values())))]
