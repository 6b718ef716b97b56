"""bitfold: a quantization compiler on xDSL.

Public API for embedding bitfold in another xDSL-based compiler:

    from xdsl.context import Context
    import bitfold

    ctx = Context()
    bitfold.register_into(ctx)          # the quant dialect (and, later, onnx / qonnx)
    passes = bitfold.get_all_passes()   # {name: () -> ModulePass subclass}
    outputs = bitfold.run(module, {"x": array})   # execute IR with numpy inputs
"""

from collections.abc import Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from bitfold.registry import get_all_dialects, get_all_passes, get_all_targets

try:
    __version__ = version("bitfold")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__", "get_all_dialects", "get_all_passes", "get_all_targets", "register_into", "run"]


def register_into(ctx: Context) -> None:
    """Register bitfold's dialects in `ctx` (lazily loaded), skipping names already there."""
    for name, factory in get_all_dialects().items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)


def run(module: ModuleOp, inputs: Mapping[str, Any] | Sequence[Any], function: str | None = None) -> dict:
    """Execute `function` (default: the only public one) of `module` on numpy inputs, given by
    argument name or in order; returns {output name: numpy array}. See `bitfold.interpreter`."""
    from bitfold.interpreter import run as run_module

    return run_module(module, inputs, function)
