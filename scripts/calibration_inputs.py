"""The onnxruntime `CalibrationDataReader` the fixture scripts hand to `quantize_static`: one
feed `{input_name: make_input(seed)}` per seed, in order, then None."""

from collections.abc import Callable, Iterable

import numpy as np


class SeededCalibrationInputs:
    """Calibration feeds made from seeds (`make_input(seed)` is the float input array)."""

    def __init__(self, make_input: Callable[[int], np.ndarray], seeds: Iterable[int], input_name: str = "input"):
        self._samples = iter([{input_name: make_input(seed)} for seed in seeds])

    def get_next(self):
        return next(self._samples, None)
