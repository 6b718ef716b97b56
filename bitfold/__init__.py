"""bitfold: a quantization compiler on xDSL.

Public API for embedding bitfold in another xDSL-based compiler:

    from xdsl.context import Context
    import bitfold

    ctx = Context()
    bitfold.register_into(ctx)          # the quant dialect (and, later, onnx / qonnx)
    passes = bitfold.get_all_passes()   # {name: () -> ModulePass subclass}
"""

from xdsl.context import Context

from bitfold.registry import get_all_dialects, get_all_passes, get_all_targets

__all__ = ["get_all_dialects", "get_all_passes", "get_all_targets", "register_into"]


def register_into(ctx: Context) -> None:
    """Register bitfold's dialects in `ctx` (lazily loaded), skipping names already there."""
    for name, factory in get_all_dialects().items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
