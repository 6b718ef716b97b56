"""Every file the tools write lands inside the directory asked for, whole or not at all
(`bitfold.output_files`)."""

import os
from pathlib import Path
from urllib.parse import unquote

import numpy as np
import onnx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from onnx import TensorProto, helper

from bitfold.compile import MAX_SYMBOL_CHARS, SYMBOL_DIGEST_CHARS, c_symbol
from bitfold.compile_main import main as compile_main
from bitfold.opt_main import main as opt_main
from bitfold.output_files import OutputNameError, PendingTextOutput, safe_file_name, write_files
from bitfold.run_main import main as run_main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cnn_depthwise_qdq.onnx"


def tree(directory: Path) -> set[str]:
    return {str(p.relative_to(directory)) for p in directory.rglob("*")}


@given(st.text(min_size=1, max_size=16))  # at most 16 * 4 UTF-8 bytes * 3 < MAX_NAME_BYTES
def test_safe_file_name_is_one_name_that_percent_decodes_to_the_name(name):
    escaped = safe_file_name(name)
    assert "/" not in escaped and "\0" not in escaped
    assert not escaped.startswith(".")
    assert unquote(escaped, errors="surrogatepass") == name  # urllib's percent decoding: escaping is injective


def test_overlong_names_are_refused():
    with pytest.raises(OutputNameError):
        safe_file_name("é" * 100)


def identity_model(path: Path, output_names: list[str]) -> Path:
    nodes = [helper.make_node("Identity", ["x"], [name]) for name in output_names]
    outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [2]) for name in output_names]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])], outputs)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


HOSTILE_NAMES = ["../../evil", "/tmp/absolute", "a/b", "..", ".hidden", "ünï cødé", "%2E"]


def test_run_writes_escaped_names_inside_the_output_directory(tmp_path, capsys):
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    model = identity_model(tmp_path / "m.onnx", HOSTILE_NAMES)
    x = np.array([1.5, -2.0], np.float32)
    np.save(tmp_path / "x.npy", x)
    before = tree(tmp_path)
    run_main([str(model), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir", str(work / "out")])
    listed = dict(line.split(": ", 1) for line in capsys.readouterr().out.splitlines())
    assert set(listed) == set(HOSTILE_NAMES)
    assert tree(tmp_path) - before == {"a/b/out", *(f"a/b/out/{Path(p).name}" for p in listed.values())}
    for name, path in listed.items():
        assert Path(path).parent == work / "out"
        np.testing.assert_array_equal(np.load(path), x)
        assert unquote(Path(path).name.removesuffix(".npy")) == name


def test_write_files_writes_all_or_none(tmp_path):
    with pytest.raises(TypeError):
        write_files(tmp_path / "out", {"first.npy": b"data", "second.npy": "not bytes"})  # type: ignore[dict-item]
    assert tree(tmp_path) == {"out"}
    written = write_files(tmp_path / "out", {"first.npy": b"data"})
    assert written == [tmp_path / "out" / "first.npy"] and written[0].read_bytes() == b"data"
    assert oct(written[0].stat().st_mode & 0o777) == oct(0o666 & ~current_umask())


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("name", ["../x", "a/b", "", ".", ".."])
def test_write_files_refuses_paths(tmp_path, name):
    with pytest.raises(OutputNameError):
        write_files(tmp_path, {name: b""})
    assert tree(tmp_path) == set()


def test_pending_output_reaches_the_file_only_on_commit(tmp_path):
    stream = PendingTextOutput(tmp_path / "o.mlir")
    stream.write("text\n")
    stream.flush()  # as a binary target does before writing to the buffer
    stream.buffer.write(b"bytes")
    stream.close()
    assert tree(tmp_path) == set()
    stream.commit()
    assert (tmp_path / "o.mlir").read_bytes() == b"text\nbytes"


def test_opt_leaves_output_file_untouched_when_it_fails(tmp_path, capsys):
    source = tmp_path / "bad.mlir"
    source.write_text("func.func @f() { func.retur }\n")
    output = tmp_path / "o.mlir"
    output.write_text("previous\n")
    with pytest.raises(SystemExit) as exit_status:
        opt_main([str(source), "-o", str(output)])
    assert exit_status.value.code == 1
    assert output.read_text() == "previous\n"
    assert tree(tmp_path) == {"bad.mlir", "o.mlir"}
    source.write_text("func.func @f() {\n  func.return\n}\n")
    opt_main([str(source), "-o", str(output)])
    assert "func.func @f()" in output.read_text()
    assert tree(tmp_path) == {"bad.mlir", "o.mlir"}
    capsys.readouterr()


@pytest.mark.parametrize("symbol", ["a;b", "../../x", "x/y", "1abc", ""])
def test_compile_symbol_must_be_a_c_identifier(tmp_path, capsys, symbol):
    model = identity_model(tmp_path / "m.onnx", ["y"])
    with pytest.raises(SystemExit) as exit_status:
        compile_main([str(model), "--target", "rv32im", "-o", str(tmp_path / "out"), "--symbol", symbol])
    assert exit_status.value.code == 1
    assert capsys.readouterr().err.splitlines() == [f"error: --symbol '{symbol}' is not a C identifier"]
    assert tree(tmp_path) == {"m.onnx"}


def test_compile_bounds_the_symbol_a_long_graph_name_gives(tmp_path, capsys):
    """A graph name far over a file name's 255 bytes becomes a symbol of at most MAX_SYMBOL_CHARS
    (its start, then a digest of the whole name), which names the files; an explicit --symbol
    over MAX_NAME_BYTES is refused."""
    proto = onnx.load(EXAMPLE)
    proto.graph.name = "g" * 300
    model = tmp_path / "m.onnx"
    onnx.save(proto, model)
    compile_main([str(model), "--target", "rv32im", "-o", str(tmp_path / "out")])
    symbol = c_symbol("g" * 300)
    assert len(symbol) == MAX_SYMBOL_CHARS
    assert symbol.startswith("g" * (MAX_SYMBOL_CHARS - SYMBOL_DIGEST_CHARS - 1) + "_")
    assert symbol != c_symbol("g" * 299 + "h")
    assert c_symbol("g" * MAX_SYMBOL_CHARS) == "g" * MAX_SYMBOL_CHARS
    assert tree(tmp_path / "out") == {f"{symbol}.S", f"{symbol}.h"}
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_status:
        compile_main([str(model), "--target", "rv32im", "-o", str(tmp_path / "out"), "--symbol", "s" * 201])
    assert exit_status.value.code == 1
    assert capsys.readouterr().err.splitlines() == [f"error: --symbol '{'s' * 40}...' is longer than 200 characters "
                                                    "(it names the output files)"]
