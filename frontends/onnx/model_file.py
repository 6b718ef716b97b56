"""Read an ONNX model: parse it, load its external data and check it."""

import os
from pathlib import Path, PurePosixPath

import onnx
from google.protobuf.message import DecodeError
from onnx import external_data_helper

from bitfold.dialects.tensor_limits import check_tensor
from bitfold.frontends import FrontendError
from bitfold.frontends.onnx.domains import import_missing_qonnx_domains


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def parse_model(data: bytes, label: str) -> onnx.ModelProto:
    """The ModelProto in `data`, without external data."""
    try:
        model = onnx.load_model_from_string(data)
    except (DecodeError, ValueError, RuntimeError) as error:
        raise FrontendError(f"{label}: not an ONNX model (truncated or not a ModelProto: {_first_line(error)})") from None
    if model.ir_version == 0 or not model.HasField("graph"):
        raise FrontendError(f"{label}: not an ONNX model (no IR version or no graph)")
    graph = model.graph
    names = [graph.name, *(t.name for t in graph.initializer), *(v.name for v in [*graph.input, *graph.output])]
    names += [text for n in graph.node for text in (n.name, n.op_type, n.domain, *n.input, *n.output)]
    if any(not isinstance(name, str) for name in names):  # protobuf hands invalid UTF-8 back as bytes
        raise FrontendError(f"{label}: a name in the graph is not UTF-8 text")
    return model


def _external_tensors(model: onnx.ModelProto) -> list[onnx.TensorProto]:
    tensors = [t for t in model.graph.initializer]
    tensors += [a.t for node in model.graph.node for a in node.attribute if a.HasField("t")]
    return [t for t in tensors if external_data_helper.uses_external_data(t)]


def _location_inside(base_dir: Path, location: str) -> Path | None:
    """`base_dir / location` if it stays inside `base_dir`, else None: relative, no `..` above
    `base_dir`, and no component a symbolic link (onnx refuses links too). The components are
    looked at one at a time from `base_dir` on (an lstat each), so nothing outside `base_dir`
    is ever looked at."""
    if not location or PurePosixPath(location).is_absolute() or "\\" in location or "\0" in location:
        return None
    base = Path(os.path.realpath(base_dir))
    current = base
    for part in PurePosixPath(location).parts:
        if part == "..":
            if current == base:
                return None
            current = current.parent
        elif part != ".":
            current = current / part
            if current.is_symlink():
                return None
    return current


def _external_file(tensor: onnx.TensorProto, base_dir: Path | None, label: str) -> Path:
    """The external data file of `tensor`, checked to lie inside `base_dir`, to exist and to
    hold no more than the tensor cap from its offset."""
    entries = {e.key: e.value for e in tensor.external_data}
    location = entries.get("location", "")
    if base_dir is None:
        raise FrontendError(f"{label}: tensor '{tensor.name}' is stored in '{location}' but no directory was given to find it in")
    path = _location_inside(base_dir, location)
    if path is None:
        raise FrontendError(f"{label}: external data location '{location}' of tensor '{tensor.name}' is outside the model's directory or a symbolic link")
    if not path.is_file():
        raise FrontendError(f"{label}: external data file '{base_dir / location}' of tensor '{tensor.name}' not found")
    offset, length = entries.get("offset", "0"), entries.get("length")
    if not offset.isdigit() or (length is not None and not length.isdigit()):
        raise FrontendError(f"{label}: tensor '{tensor.name}' has a malformed external data offset or length")
    available = max(path.stat().st_size - int(offset), 0)
    check_tensor([int(length) if length is not None else available], 1, f"{label}: external data of tensor '{tensor.name}'")
    return path


def load_external_data(model: onnx.ModelProto, base_dir: Path | None, label: str) -> None:
    """Read the data of tensors stored outside the model from files inside `base_dir`."""
    tensors = _external_tensors(model)
    if not tensors:
        return
    for tensor in tensors:
        _external_file(tensor, base_dir, label)
    try:
        external_data_helper.load_external_data_for_model(model, str(base_dir))
    except (OSError, ValueError, onnx.checker.ValidationError) as error:
        raise FrontendError(f"{label}: cannot load external data: {_first_line(error)}") from None


def check_model(model: onnx.ModelProto, label: str) -> None:
    """onnx's checker (structure, names, types; not shape inference)."""
    try:
        onnx.checker.check_model(model)
    except (onnx.checker.ValidationError, ValueError) as error:
        raise FrontendError(f"{label}: invalid ONNX model: {_first_line(error)}") from None


def read_model(source: bytes | str | Path, base_dir: str | Path | None, label: str | None) -> tuple[onnx.ModelProto, str]:
    """The checked model in `source` (bytes, or a file whose directory is the default
    `base_dir`), and the label naming it in errors (`label`, the file, or "ONNX model")."""
    if isinstance(source, bytes):
        data = source
        label = label or "ONNX model"
    else:
        path = Path(source)
        label = label or str(path)
        base_dir = path.parent if base_dir is None else base_dir
        try:
            data = path.read_bytes()
        except OSError as error:
            raise FrontendError(f"{label}: {error.strerror}") from None
    model = parse_model(data, label)
    load_external_data(model, None if base_dir is None else Path(base_dir), label)
    import_missing_qonnx_domains(model)
    check_model(model, label)
    return model, label
