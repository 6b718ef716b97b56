"""External data is read only from inside the model's directory: `../`, absolute locations and
symbolic links are refused in one line, without looking at the outside path (only the model's directory, what is inside it and its
ancestors are looked at)."""

import os
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from bitfold.frontends import FrontendError
from bitfold.frontends.onnx import import_model

WEIGHTS = np.arange(4, dtype=np.float32).reshape(1, 4)


def save_with_location(directory: Path, location: str) -> Path:
    """An Add model whose weight is external data at `location` (w.bin written beside it)."""
    weights = numpy_helper.from_array(WEIGHTS, "w")
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], [weights],
    )
    path = directory / "m.onnx"
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path,
                    save_as_external_data=True, location="w.bin", size_threshold=0)
    model = onnx.load(path, load_external_data=False)
    for entry in model.graph.initializer[0].external_data:
        if entry.key == "location":
            entry.value = location
    onnx.save(model, path)
    return path


@pytest.fixture
def layout(tmp_path):
    """tmp/m (the model's directory, with w.bin and links) and tmp/outside/w.bin."""
    model_dir, outside = tmp_path / "m", tmp_path / "outside"
    model_dir.mkdir()
    outside.mkdir()
    WEIGHTS.tofile(outside / "w.bin")
    (model_dir / "sub").mkdir()
    os.symlink(outside / "w.bin", model_dir / "absolute_link.bin")
    os.symlink("../outside/w.bin", model_dir / "relative_link.bin")
    os.symlink(outside, model_dir / "linked_dir")
    return model_dir, outside


def test_inside_locations_are_read(layout):
    model_dir, _ = layout
    for location in ["w.bin", "sub/../w.bin", "./w.bin"]:
        module = import_model(save_with_location(model_dir, location))
        assert "dense<[[0.0" in str(module)


OUTSIDE = ["../outside/w.bin", "../outside/missing.bin", "{outside}/w.bin", "{outside}/missing.bin",
           "/etc/passwd", "absolute_link.bin", "relative_link.bin", "linked_dir/w.bin", "sub/../../outside/w.bin"]


@pytest.mark.parametrize("location", OUTSIDE)
def test_outside_locations_are_refused_without_looking_outside(layout, monkeypatch, location):
    model_dir, outside = layout
    location = location.format(outside=outside)
    path = save_with_location(model_dir, location)
    looked_at = []
    for name in ("stat", "lstat", "open", "readlink"):
        original = getattr(os, name)
        monkeypatch.setattr(os, name, lambda p, *a, _original=original, **k: looked_at.append(str(p)) or _original(p, *a, **k))
    with pytest.raises(FrontendError) as error:
        import_model(path)
    assert str(error.value) == (f"{path}: external data location '{location}' of tensor 'w' is outside the "
                                "model's directory or a symbolic link")
    assert not [p for p in looked_at if not (Path(p).is_relative_to(model_dir) or model_dir.is_relative_to(p))]


def test_outside_location_through_the_driver_is_one_line(layout, capsys):
    from bitfold.run_main import main

    model_dir, _ = layout
    path = save_with_location(model_dir, "../outside/w.bin")
    with pytest.raises(SystemExit) as exit_status:
        main([str(path)])
    assert exit_status.value.code == 1
    assert capsys.readouterr().err.splitlines() == [
        f"error: {path}: external data location '../outside/w.bin' of tensor 'w' is outside the model's directory or a symbolic link"
    ]


@pytest.mark.parametrize(("offset", "length"), [("-1", "16"), ("0", "x"), ("0", str(2**40))])
def test_malformed_or_oversized_offsets_are_one_line(tmp_path, offset, length):
    path = save_with_location(tmp_path, "w.bin")
    model = onnx.load(path, load_external_data=False)
    tensor = model.graph.initializer[0]
    del tensor.external_data[:]
    for key, value in [("location", "w.bin"), ("offset", offset), ("length", length)]:
        tensor.external_data.add(key=key, value=value)
    onnx.save(model, path)
    with pytest.raises(FrontendError, match="malformed external data|over the cap"):
        import_model(path)
