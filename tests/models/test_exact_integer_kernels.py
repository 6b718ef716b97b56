"""`exact_integer_kernels`, the oracle's guard against onnxruntime's CPU-dependent u8 x s8 kernels:
the rewritten model computes numpy's exact integers on saturating operands, keeps the numbers of
the original wherever the original kernel is exact (weights in [-64, 64]), and under qemu on a CPU
without VNNI (Haswell) the original saturates while the rewritten one stays exact."""

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from conftest import require_tools
from onnx import TensorProto, helper, numpy_helper

from .exact_integer_kernels import exact_integer_kernels
from .float_models import IR_VERSION
from .runners import onnxruntime_session

RNG = np.random.default_rng(5)
UNSAFE = (-128, 127)
"""Full-range int8 weights: pair sums 2 * 255 * 128 overflow int16 in `vpmaddubsw`."""
SAFE = (-64, 64)
"""Weights whose pair sums stay within int16 (2 * 255 * 64 = 32640): exact on every CPU."""


def model(nodes, inputs, initializers, domains=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_empty_tensor_value_info("y")], initializers)
    opsets = [helper.make_opsetid("", 21), *[helper.make_opsetid(d, 1) for d in domains]]
    return helper.make_model(graph, opset_imports=opsets, ir_version=IR_VERSION)


def as_written(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> np.ndarray:
    """onnxruntime (ORT_DISABLE_ALL) on the model as it is, u8 x s8 kernels included."""
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def matmul_integer(a_zero_point: bool, b_zero_point: bool, weight_input: bool):
    """y = (a - a_zp) @ (b - b_zp) with every row of a at 255 and every column of b at -128 or 127."""
    a = RNG.integers(0, 256, (6, 64)).astype(np.uint8)
    a[0] = 255
    b = RNG.integers(*UNSAFE, (64, 5), endpoint=True).astype(np.int8)
    b[:, 0], b[:, 1] = -128, 127
    parameters = {"a_zp": np.array(3, np.uint8) if a_zero_point else None,
                  "b_zp": np.array(-2, np.int8) if b_zero_point else None}  # fmt: skip
    names = ["a", "b", "a_zp" if a_zero_point else "", "b_zp" if b_zero_point else ""]
    while not names[-1]:
        names.pop()
    inputs = [helper.make_tensor_value_info("a", TensorProto.UINT8, a.shape)]
    initializers = [numpy_helper.from_array(v, n) for n, v in parameters.items() if v is not None]
    feeds = {"a": a}
    if weight_input:
        inputs.append(helper.make_tensor_value_info("b", TensorProto.INT8, b.shape))
        feeds["b"] = b
    else:
        initializers.append(numpy_helper.from_array(b, "b"))
    exact = (a.astype(np.int64) - (parameters["a_zp"] or 0)) @ (b.astype(np.int64) - (parameters["b_zp"] or 0))
    return model([helper.make_node("MatMulInteger", names, ["y"])], inputs, initializers), feeds, exact


@pytest.mark.parametrize("weight_input", [False, True], ids=["weight initializer", "weight input"])
@pytest.mark.parametrize(("a_zero_point", "b_zero_point"), [(True, True), (False, False), (True, False)])
def test_matmul_integer_equals_numpy_integers(a_zero_point, b_zero_point, weight_input):
    original, feeds, exact = matmul_integer(a_zero_point, b_zero_point, weight_input)
    (y,) = onnxruntime_session(original).run(None, feeds)
    np.testing.assert_array_equal(y, exact)


def qlinear(op_type: str, weights: tuple[int, int], per_channel: bool):
    """One QLinearConv / QLinearMatMul / QGemm, u8 activations (zero point 131), s8 weights."""
    channels = 4
    shape = {"QLinearConv": (channels, 3, 3, 3), "QLinearMatMul": (24, channels), "QGemm": (24, channels)}[op_type]
    x_shape = (1, 3, 6, 6) if op_type == "QLinearConv" else (5, 24)
    count = channels if per_channel else 1
    parameters = {
        "x_scale": np.float32(0.02), "x_zp": np.uint8(131),
        "w": RNG.integers(*weights, shape, endpoint=True).astype(np.int8),
        "w_scale": RNG.uniform(0.001, 0.01, count).astype(np.float32).reshape(-1 if per_channel else ()),
        "w_zp": np.zeros(count, np.int8).reshape(-1 if per_channel else ()),
        "y_scale": np.float32(0.3), "y_zp": np.uint8(120),
    }  # fmt: skip
    names = list(parameters)
    if op_type == "QGemm":
        names.insert(5, "")  # input 6, the bias C, absent
    node = helper.make_node(op_type, ["x", *names], ["y"], domain="com.microsoft" if op_type == "QGemm" else "")
    inputs = [helper.make_tensor_value_info("x", TensorProto.UINT8, x_shape)]
    initializers = [numpy_helper.from_array(np.asarray(v), n) for n, v in parameters.items()]
    feeds = {"x": RNG.integers(0, 256, x_shape).astype(np.uint8)}
    return model([node], inputs, initializers, ["com.microsoft"] * (op_type == "QGemm")), feeds


@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("op_type", ["QLinearConv", "QLinearMatMul", "QGemm"])
def test_qlinear_nodes_keep_their_numbers(op_type, per_channel):
    """On weights in [-64, 64] onnxruntime's u8 x s8 kernels are exact on every CPU, so the original
    is an oracle there: the rewritten node (u8 weights, zero point 128) gives its numbers bit for bit."""
    original, feeds = qlinear(op_type, SAFE, per_channel)
    rewritten = exact_integer_kernels(original)
    weights = {t.name: t for t in rewritten.graph.initializer}[rewritten.graph.node[0].input[3]]
    assert weights.data_type == TensorProto.UINT8
    np.testing.assert_array_equal(onnxruntime_session(original).run(None, feeds)[0], as_written(original, feeds))


@pytest.mark.parametrize(("x_type", "w_type"), [(np.uint8, np.uint8), (np.int8, np.int8)])
def test_other_element_types_are_left_alone(x_type, w_type):
    node = helper.make_node("MatMulInteger", ["a", "b"], ["y"])
    activation = helper.make_tensor_value_info("a", helper.np_dtype_to_tensor_dtype(np.dtype(x_type)), [2, 3])
    original = model([node], [activation], [numpy_helper.from_array(np.ones((3, 2), w_type), "b")])
    assert exact_integer_kernels(original) is original


WITNESS = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from models.exact_integer_kernels import exact_integer_kernels
from models.test_exact_integer_kernels import as_written, matmul_integer

original, feeds, exact = matmul_integer(True, True, False)
for model in (original, exact_integer_kernels(original)):
    print(int(np.abs(as_written(model, feeds) - exact).max()))
"""


def test_u8_s8_kernel_saturates_without_vnni_and_the_rewrite_does_not():
    """qemu-x86_64 as a Haswell (AVX2, no VNNI): onnxruntime's u8 x s8 MatMulInteger is thousands of
    units off numpy's exact integers; the rewritten model is exact."""
    require_tools("qemu-x86_64")
    done = subprocess.run(
        [shutil.which("qemu-x86_64"), "-cpu", "Haswell", sys.executable, "-c", WITNESS, str(Path(__file__).parents[1])],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    original_error, rewritten_error = map(int, done.stdout.split())
    assert original_error > 1000 and rewritten_error == 0, done.stdout
