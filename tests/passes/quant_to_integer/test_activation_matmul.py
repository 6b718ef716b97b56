"""MatMul of two quantized activations (QDQ on both inputs, as onnxruntime's quantize_static writes
attention's Q.K^T and P.V): quant-to-integer makes it integer (no float MatMul is left), and the
integer IR is within one output step of onnx's reference evaluator and onnxruntime (the float
reference rounds its float32 sum before its QuantizeLinear; the integer sum is exact), equal on
nearly every element; batched 4-D with a broadcast head dimension, a 2-D B, uint8 and int8."""

import numpy as np
import onnx
import pytest
from models.runners import run_onnxruntime
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.context import Context

import bitfold
from bitfold.frontends.onnx import import_model
from bitfold.passes.pipelines import OnnxToIntegerPipeline

RNG = np.random.default_rng(24)
Y_SCALE = 0.25

# name: (A shape, B shape, output shape, storage type, A zero point, B zero point)
CASES = {
    "attention_u8": ((1, 4, 8, 16), (1, 4, 16, 8), (1, 4, 8, 8), TensorProto.UINT8, 131, 120),
    "broadcast_heads_i8": ((2, 3, 5, 16), (2, 1, 16, 7), (2, 3, 5, 7), TensorProto.INT8, -3, 0),
    "batched_by_2d_u8": ((2, 6, 32), (32, 5), (2, 6, 5), TensorProto.UINT8, 0, 128),
}


def qdq_matmul(a_shape, b_shape, out_shape, storage, a_zero, b_zero) -> onnx.ModelProto:
    dtype = helper.tensor_dtype_to_np_dtype(storage)
    initializers = [
        numpy_helper.from_array(np.array(v, np.float32), n) for n, v in (("sa", 0.05), ("sb", 0.04), ("sy", Y_SCALE))
    ]
    initializers += [
        numpy_helper.from_array(np.array(v, dtype), n) for n, v in (("za", a_zero), ("zb", b_zero), ("zy", 0))
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["a", "sa", "za"], ["aq"]),
        helper.make_node("DequantizeLinear", ["aq", "sa", "za"], ["ad"]),
        helper.make_node("QuantizeLinear", ["b", "sb", "zb"], ["bq"]),
        helper.make_node("DequantizeLinear", ["bq", "sb", "zb"], ["bd"]),
        helper.make_node("MatMul", ["ad", "bd"], ["p"], name="qk"),
        helper.make_node("QuantizeLinear", ["p", "sy", "zy"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "matmul",
        [
            helper.make_tensor_value_info("a", TensorProto.FLOAT, a_shape),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, b_shape),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


@pytest.mark.parametrize("name", CASES)
def test_integer_matmul_of_activations_within_one_step(name, tmp_path):
    a_shape, b_shape = CASES[name][:2]
    path = tmp_path / f"{name}.onnx"
    onnx.save(qdq_matmul(*CASES[name]), path)
    module = import_model(str(path))
    OnnxToIntegerPipeline().apply(Context(), module)
    assert "onnx.MatMul" not in str(module)
    inputs = {"a": RNG.normal(0, 3, a_shape).astype(np.float32), "b": RNG.normal(0, 3, b_shape).astype(np.float32)}
    (got,) = bitfold.run(module, inputs).values()
    for (want,) in (ReferenceEvaluator(onnx.load(path)).run(None, inputs), run_onnxruntime(path, inputs).values()):
        steps = np.abs(np.asarray(got, np.float64) - want) / Y_SCALE
        assert steps.max() <= 1 + 1e-6
        assert np.count_nonzero(steps > 0.5) <= want.size // 50
