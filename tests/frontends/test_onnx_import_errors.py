"""Every bad model gets one line naming the file or node, from the API and from both drivers
(exit status 1, nothing on stdout, no traceback)."""

import os
import subprocess

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from bitfold.frontends import FrontendError
from bitfold.frontends.onnx import import_model


def make_model(nodes, initializers=(), opsets=(("", 13),)) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    graph = helper.make_graph(nodes, "g", [x], [y], list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])


def relu_model_bytes() -> bytes:
    return make_model([helper.make_node("Relu", ["x"], ["y"], name="r")]).SerializeToString()


def write_truncated(path):
    data = relu_model_bytes()
    path.write_bytes(data[: len(data) // 2])


def write_not_onnx(path):
    path.write_bytes(b"this is not an ONNX model\n")


def write_unsupported_op(path):
    onnx.save(make_model([helper.make_node("Acosh", ["x"], ["y"], name="n3")]), path)


def write_unknown_onnx_version(path):
    onnx.save(make_model([helper.make_node("Relu", ["x"], ["y"], name="r")], opsets=[("", 99)]), path)


def write_unknown_domain(path):
    node = helper.make_node("Frob", ["x"], ["y"], name="n1", domain="com.example")
    onnx.save(make_model([node], opsets=[("", 13), ("com.example", 1)]), path)


def write_unsupported_qonnx_op(path):
    node = helper.make_node("MultiThreshold", ["x", "x"], ["y"], name="n3",
                            domain="qonnx.custom_op.general")
    onnx.save(make_model([node], opsets=[("", 13), ("qonnx.custom_op.general", 1)]), path)


def write_missing_external_data(path):
    weights = numpy_helper.from_array(np.ones((1, 4), np.float32), "w")
    model = make_model([helper.make_node("Add", ["x", "w"], ["y"], name="a")], [weights])
    onnx.save_model(model, path, save_as_external_data=True, location="weights.bin", size_threshold=0)
    os.remove(path.parent / "weights.bin")


def write_float_mod_without_fmod(path):
    two = numpy_helper.from_array(np.full((1, 4), 2, np.float32), "two")
    onnx.save(make_model([helper.make_node("Mod", ["x", "two"], ["y"], name="m", fmod=0)], [two]), path)


CASES = {
    "truncated": (write_truncated, "{path}: not an ONNX model (truncated or not a ModelProto"),
    "not_onnx": (write_not_onnx, "{path}: not an ONNX model"),
    "unsupported_op": (write_unsupported_op, "unsupported op 'Acosh' (domain 'ai.onnx') at node 'n3'"),
    "unknown_onnx_version": (write_unknown_onnx_version, "{path}: unsupported version 99 of domain 'ai.onnx'"),
    "unknown_domain": (write_unknown_domain, "unsupported op 'Frob' (domain 'com.example') at node 'n1'"),
    "unsupported_qonnx_op": (
        write_unsupported_qonnx_op, "unsupported op 'MultiThreshold' (domain 'qonnx.custom_op.general') at node 'n3'"
    ),
    "float_mod_without_fmod": (write_float_mod_without_fmod, "node 'm' (Mod): fmod must be 1 for floating-point inputs"),
    "missing_external_data": (write_missing_external_data, "external data file '{dir}/weights.bin' of tensor 'w' not found"),
}


@pytest.fixture(params=sorted(CASES))
def bad_model(request, tmp_path):
    write, message = CASES[request.param]
    path = tmp_path / "model.onnx"
    write(path)
    return path, message.format(path=path, dir=tmp_path)


def test_import_model_names_the_problem(bad_model):
    path, message = bad_model
    with pytest.raises(FrontendError) as error:
        import_model(path)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("tool", ["bitfold-opt", "bitfold-run"])
def test_driver_prints_one_line(bad_model, tool):
    path, message = bad_model
    done = subprocess.run([tool, str(path)], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    # The drivers hand the frontend the file's bytes, not its name: the reason is checked here,
    # the file name by test_import_model_names_the_problem.
    assert message.removeprefix(f"{path}: ").split(" (")[0].split("'")[0] in lines[0]
