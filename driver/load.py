"""Read a program for the drivers: `.mlir` text, `.mlirbc` bytecode (through mlir-opt-22), or an `.onnx`
model through the ONNX frontend."""

from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.universe import Universe

import bitfold
from bitfold.frontends import FrontendError
from bitfold.parsing import mlir_text, parse_module
from bitfold.verification import verify_program


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
    (`bitfold.mlir_bytecode`), `.mlir` as MLIR text (UTF-8; bitfold's parser, `bitfold.parsing`);
    the module checked by `bitfold.verification.verify_program`. Other extensions are refused."""
    source = Path(path)
    if source.suffix == ".onnx":
        return import_onnx(source.read_bytes(), source.parent, str(source))
    if source.suffix == ".mlirbc":
        from bitfold.mlir_bytecode import bytecode_to_text

        text = bytecode_to_text(source.read_bytes(), str(source))
    elif source.suffix == ".mlir":
        text = mlir_text(source.read_bytes(), str(source))
    else:
        raise FrontendError(f"{source}: unknown input extension '{source.suffix}' (expected .onnx, .mlir or .mlirbc)")
    module = parse_module(full_context(), text, str(source))
    verify_program(module)
    return module
