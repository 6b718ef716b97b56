"""The names of bitfold's dialects, passes and targets, with factories that import lazily
(so that `xdsl-opt` start-up does not pay for what a run does not use)."""

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.utils.target import Target


def _quant() -> Dialect:
    from bitfold.dialects.quant import Quant

    return Quant


def _onnx() -> Dialect:
    from bitfold.dialects.onnx import Onnx

    return Onnx


def _qonnx() -> Dialect:
    from bitfold.dialects.qonnx import QOnnx

    return QOnnx


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """bitfold's dialects by name."""
    return {"quant": _quant, "onnx": _onnx, "qonnx": _qonnx}


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """bitfold's passes by name (none yet; `canonicalize` applies the quant patterns)."""
    return {}


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    """bitfold's output targets by name."""
    return {}
