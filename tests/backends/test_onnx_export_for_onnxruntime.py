"""`-t 'onnx-qdq{runtime=onnxruntime}'`, `onnx-qcdq{...}` and `onnx-qop{...}`
(`backends/onnx/onnxruntime_form.py`): the written model, run in onnxruntime's DEFAULT session
(graph optimizations on, so its QDQ fusions into u8 x s8 / s8 x s8 kernels happen), equals
bitfold-run on the source model, on weights and activations that saturate onnxruntime's u8 x s8
path on x86 CPUs without VNNI (int8 weights all -128 / 127, uint8 activations at 255).

onnxruntime runs in one subprocess under `qemu-x86_64 -cpu Haswell` (AVX2, no VNNI: the
saturating path) where qemu-x86_64 is installed (scripts/setup.sh installs qemu-user), natively
otherwise; so on any machine with qemu this checks the non-VNNI path."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import bitfold
from bitfold.backends.onnx import ExportError
from bitfold.backends.onnx.onnxruntime_form import for_onnxruntime
from bitfold.frontends.onnx import import_model
from bitfold.opt_main import main as opt_main

RNG = np.random.default_rng(22)
QUANTIZE = "onnx-to-quant,canonicalize-quant"
FORMS = ("onnx-qdq", "onnx-qcdq", "onnx-qop")


def qdq(name: str, x: str, scale: float, zero_point: np.ndarray, output: str) -> tuple[list, list]:
    """QuantizeLinear then DequantizeLinear of `x` (nodes, initializers)."""
    parameters = [numpy_helper.from_array(np.array(scale, np.float32), f"{name}_s"),
                  numpy_helper.from_array(zero_point, f"{name}_z")]
    return ([helper.make_node("QuantizeLinear", [x, f"{name}_s", f"{name}_z"], [f"{name}_q"], name=f"{name}_q"),
             helper.make_node("DequantizeLinear", [f"{name}_q", f"{name}_s", f"{name}_z"], [output], name=f"{name}_dq")],
            parameters)


def weights(name: str, values: np.ndarray, scale: float) -> tuple[list, list]:
    """DequantizeLinear of an integer initializer (zero point 0 of its type)."""
    parameters = [numpy_helper.from_array(values, f"{name}_w"), numpy_helper.from_array(np.array(scale, np.float32), f"{name}_s"),
                  numpy_helper.from_array(np.zeros((), values.dtype), f"{name}_z")]
    return [helper.make_node("DequantizeLinear", [f"{name}_w", f"{name}_s", f"{name}_z"], [name], name=f"{name}_dq")], parameters


def saturating_model() -> onnx.ModelProto:
    """uint8 activations (zero point 0, so 5.1 / 0.02 saturates to 255) into a Conv with int8
    weights of -128 / 127, requantized to uint8 (zero point 128), flattened into a MatMul of
    -128 / 127 weights: each pair sum 255 * 127 * 2 is over int16's 32767."""
    parts = [qdq("x", "x", 0.02, np.array(0, np.uint8), "xd"),
             weights("w", RNG.choice(np.array([-128, 127], np.int8), (8, 16, 3, 3)), 0.01),
             ([helper.make_node("Conv", ["xd", "w"], ["c"], name="conv", pads=[1, 1, 1, 1])], []),
             qdq("c", "c", 40.0, np.array(128, np.uint8), "cd"),
             ([helper.make_node("Reshape", ["cd", "shape"], ["r"], name="flat")],
              [numpy_helper.from_array(np.array([1, 64], np.int64), "shape")]),
             weights("m", RNG.choice(np.array([-128, 127], np.int8), (64, 8)), 0.01),
             ([helper.make_node("MatMul", ["r", "m"], ["mm"], name="matmul")], []),
             qdq("y", "mm", 400.0, np.array(100, np.uint8), "y")]
    return graph_model(parts, [1, 16, 2, 4], [1, 8], 13)


def uint4_model() -> onnx.ModelProto:
    """uint4 activations into a Conv with int8 weights: the smallest model onnxruntime's default
    optimizations fuse into a QLinearConv on uint4, which it then refuses (4-bit weights too are
    left unfused)."""
    parts = [qdq("x", "x", 0.5, np.array(3, np.uint8), "xd"),
             weights("w", RNG.choice(np.array([-128, 127], np.int8), (4, 2, 3, 3)), 0.01),
             ([helper.make_node("Conv", ["xd", "w"], ["c"], name="conv", pads=[1, 1, 1, 1])], []),
             qdq("y", "c", 2.0, np.array(8, np.uint8), "y")]
    model = graph_model(parts, [1, 2, 3, 3], [1, 4, 3, 3], 21)
    for tensor in model.graph.initializer:  # the activations' zero points as uint4
        if tensor.name in ("x_z", "y_z"):
            tensor.CopyFrom(helper.make_tensor(tensor.name, TensorProto.UINT4, [], [int(numpy_helper.to_array(tensor))]))
    return model


def graph_model(parts, x_shape, y_shape, opset: int) -> onnx.ModelProto:
    nodes = [node for part, _ in parts for node in part]
    initializers = [tensor for _, part in parts for tensor in part]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


SOURCES = {"saturating": (saturating_model(), np.full((1, 16, 2, 4), 5.1, np.float32)),
           "uint4": (uint4_model(), RNG.uniform(-3, 9, (1, 2, 3, 3)).astype(np.float32))}
"""Each source model (built once: its weights are random) and its input."""

ORT_SCRIPT = """
import json, sys
import numpy as np, onnxruntime as ort
results = {}
for path, x in json.loads(sys.argv[1]).items():
    try:
        session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])  # default optimizations
        results[path] = session.run(None, {"x": np.load(x)})[0].tolist()
    except Exception as error:
        results[path] = str(error).splitlines()[0]
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[tuple[str, str], tuple[Path, Path]]:
    """{(source, target spec): (written model, input .npy)}: each source exported in each form,
    with and without runtime=onnxruntime."""
    directory = tmp_path_factory.mktemp("for_onnxruntime")
    models = {}
    for name, (model, x) in SOURCES.items():
        source, inputs = directory / f"{name}.onnx", directory / f"{name}_x.npy"
        onnx.save(model, source)
        np.save(inputs, x)
        for form in FORMS:
            for spec in (form, f"{form}{{runtime=onnxruntime}}"):
                output = directory / f"{name}_{spec.replace('{', '_').replace('}', '').replace('=', '_')}.onnx"
                opt_main([str(source), "-p", QUANTIZE, "-t", spec, "-o", str(output)])
                models[(name, spec)] = (output, inputs)
    return models


@pytest.fixture(scope="module")
def onnxruntime_outputs(written) -> dict[tuple[str, str], list | str]:
    """onnxruntime's default session on every written model, in one subprocess: under qemu's
    Haswell CPU (no VNNI) where qemu-x86_64 is installed."""
    prefix = ["qemu-x86_64", "-cpu", "Haswell"] if shutil.which("qemu-x86_64") else []
    paths = {str(path): str(x) for path, x in written.values()}
    done = subprocess.run([*prefix, sys.executable, "-c", ORT_SCRIPT, json.dumps(paths)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    return {key: results[str(path)] for key, (path, _) in written.items()}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("source", SOURCES)
def test_written_for_onnxruntime_equals_bitfold_run(source, form, onnxruntime_outputs):
    model, x = SOURCES[source]
    expected = bitfold.run(import_model(model.SerializeToString()), {"x": x})["y"]
    got = onnxruntime_outputs[(source, f"{form}{{runtime=onnxruntime}}")]
    assert not isinstance(got, str), got
    np.testing.assert_array_equal(np.array(got, np.float32), expected)


def test_the_uint4_export_onnxruntime_refuses_without_the_option(onnxruntime_outputs):
    """The minimal model of the uint4 fusion: onnxruntime's default session refuses the plain
    QDQ export (a QLinearConv on uint4) on every CPU."""
    refused = onnxruntime_outputs[("uint4", "onnx-qdq")]
    assert isinstance(refused, str) and "tensor(uint4)" in refused and "QLinearConv" in refused


def test_no_uint8_nor_4_bit_tensor_is_left(written):
    for (_, spec), (path, _) in written.items():
        if "runtime" in spec:
            model = onnx.shape_inference.infer_shapes(onnx.load(path))
            graph = model.graph
            codes = [t.data_type for t in graph.initializer] + [
                v.type.tensor_type.elem_type for v in (*graph.value_info, *graph.output)]
            assert not {TensorProto.UINT8, TensorProto.UINT4, TensorProto.INT4} & set(codes), spec


def test_uint8_graph_interface_is_converted_exactly_at_the_boundary():
    """A model taking and returning uint8 keeps its interface: the conversions to and from int8
    (DequantizeLinear with scale 1, QuantizeLinear with scale 1) are exact on all 256 values
    (onnxruntime without optimizations, whose DequantizeLinear / QuantizeLinear are exact)."""
    from models.runners import run_onnxruntime

    nodes = [helper.make_node("DequantizeLinear", ["q", "s", "z"], ["x"], name="dq"),
             helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("q", TensorProto.UINT8, [256])],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8, [256])],
                              [numpy_helper.from_array(np.array(0.5, np.float32), "s"),
                               numpy_helper.from_array(np.array(7, np.uint8), "z")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    feeds = {"q": np.arange(256, dtype=np.uint8)}
    rewritten = for_onnxruntime(onnx.ModelProto.FromString(model.SerializeToString()))
    onnx.checker.check_model(rewritten, full_check=True)
    np.testing.assert_array_equal(run_onnxruntime(rewritten, feeds)["y"], feeds["q"])
    assert [n.op_type for n in rewritten.graph.node].count("DequantizeLinear") == 3


def test_an_op_without_an_exact_rewrite_is_one_line():
    nodes = [helper.make_node("Add", ["a", "a"], ["y"], name="sum")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("a", TensorProto.UINT8, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(ExportError) as error:
        for_onnxruntime(model)
    assert str(error.value) == ("runtime=onnxruntime: no exact int8 rewrite of node 'sum' (Add) on the UINT8 tensor 'a' "
                                "(write it without runtime=onnxruntime)")


def test_an_unknown_runtime_is_one_line(tmp_path, capsys):
    source = tmp_path / "m.onnx"
    onnx.save(SOURCES["saturating"][0], source)
    with pytest.raises(SystemExit) as exit_status:
        opt_main([str(source), "-p", QUANTIZE, "-t", "onnx-qdq{runtime=tvm}", "-o", str(tmp_path / "o.onnx")])
    assert exit_status.value.code == 1
    assert capsys.readouterr().err.splitlines() == ["error: onnx-qdq: runtime 'tvm' is not one of reference, onnxruntime"]


@pytest.mark.parametrize("code", [TensorProto.UINT4, TensorProto.INT4])
def test_4_bit_graph_interface_is_converted_exactly_at_the_boundary(code):
    """A model taking and returning 4-bit integers keeps its interface (Cast to and from 8 bits,
    the uint8 shift between); onnx's reference evaluator (onnxruntime's numpy API has no 4-bit
    arrays) gives every one of the 16 values back, as the source model does."""
    from onnx.reference import ReferenceEvaluator

    nodes = [helper.make_node("DequantizeLinear", ["q", "s", "z"], ["x"], name="dq"),
             helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("q", code, [16])],
                              [helper.make_tensor_value_info("y", code, [16])],
                              [numpy_helper.from_array(np.array(0.5, np.float32), "s"), helper.make_tensor("z", code, [], [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    rewritten = for_onnxruntime(onnx.ModelProto.FromString(model.SerializeToString()))
    onnx.checker.check_model(rewritten, full_check=True)
    assert "Clip" in [n.op_type for n in rewritten.graph.node]
    q = (np.arange(16) - (8 if code == TensorProto.INT4 else 0)).astype(helper.tensor_dtype_to_np_dtype(code))
    for proto in (model, rewritten):
        np.testing.assert_array_equal(ReferenceEvaluator(proto).run(None, {"q": q})[0].astype(np.int64), q.astype(np.int64))
