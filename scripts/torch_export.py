"""What the torch fixture scripts share: seeded float inputs and `torch.onnx.export` as they all
call it (opset `OPSET`, static shapes, the TorchScript exporter, one input "input", one output
"output")."""

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

OPSET = 17


def random_normal(seed: int, shape: Sequence[int]) -> np.ndarray:
    """Standard-normal float32 values of `shape` from numpy's default generator seeded with `seed`."""
    return np.random.default_rng(seed).standard_normal(tuple(shape)).astype(np.float32)


def export_onnx(model, example: np.ndarray, path: Path) -> None:
    """`torch.onnx.export` of the torch module `model` (in eval mode) at the input `example`."""
    import torch

    torch.onnx.export(model, (torch.from_numpy(example),), os.fspath(path), opset_version=OPSET,
                      input_names=["input"], output_names=["output"], dynamo=False)
