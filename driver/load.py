"""Read a program for the drivers: `.mlir` text, `.mlirbc` bytecode (through mlir-opt-22), or an `.onnx`
model through the ONNX frontend."""

from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.universe import Universe

import bitfold


def full_context() -> Context:
    """A context with every dialect xDSL's plugins provide, and bitfold's."""
    ctx = Context()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    bitfold.register_into(ctx)
    return ctx


def import_onnx(data: bytes, base_dir: str | Path | None, name: str | None) -> ModuleOp:
    """Import an ONNX model (external data files are looked up in `base_dir`; `name` labels
    the model in error messages)."""
    from bitfold.frontends.onnx import import_model

    return import_model(data, base_dir=base_dir, name=name)


def load_module(path: str) -> ModuleOp:
    """Parse `path` by its extension: `.onnx` through the ONNX frontend, `.mlirbc` through mlir-opt-22
    (`bitfold.mlir_bytecode`), anything else as MLIR text."""
    source = Path(path)
    if source.suffix == ".onnx":
        return import_onnx(source.read_bytes(), source.parent, str(source))
    if source.suffix == ".mlirbc":
        from bitfold.mlir_bytecode import bytecode_to_text

        return Parser(full_context(), bytecode_to_text(source.read_bytes(), str(source)), str(source)).parse_module()
    return Parser(full_context(), source.read_text(), str(source)).parse_module()
