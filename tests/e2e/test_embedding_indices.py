"""An embedding table (Gather on a constant int8 table, dequantized, indexed by an int64 graph
input) compiles: the token ids pass through integer-io as int32 on every target (docs/riscv-abi.md)
and the rv32im code under qemu equals bitfold-run bit for bit, and onnxruntime exactly (a Gather
and a Relu between quantizers of one scale change no value: the requantization is exact)."""

import numpy as np
import onnx
from conftest import require_tools
from models.float_models import IR_VERSION
from models.runners import run_onnxruntime
from onnx import TensorProto, helper, numpy_helper

import bitfold
from bitfold.compile import compile_model
from bitfold.frontends.onnx import import_model
from bitfold.load import load_module

IDS = np.array([[3, 0, 9, -1, -10, 7]], np.int64)
"""Token ids, negative ones counting from the end of the table (ONNX Gather)."""


def embedding_model() -> onnx.ModelProto:
    """ids (1 x 6, int64) -> Gather(DequantizeLinear(table int8 10 x 8)) -> Relu -> QDQ -> y."""
    table = np.random.default_rng(0).integers(-128, 128, (10, 8)).astype(np.int8)
    initializers = [numpy_helper.from_array(table, "table_q"), numpy_helper.from_array(np.array(0.02, np.float32), "s"),
                    numpy_helper.from_array(np.array(0, np.int8), "z")]  # fmt: skip
    nodes = [
        helper.make_node("DequantizeLinear", ["table_q", "s", "z"], ["table"]),
        helper.make_node("Gather", ["table", "ids"], ["embedded"], axis=0),
        helper.make_node("Relu", ["embedded"], ["positive"]),
        helper.make_node("QuantizeLinear", ["positive", "s", "z"], ["y_q"]),
        helper.make_node("DequantizeLinear", ["y_q", "s", "z"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "embedding", [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6, 8])], initializers)  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=IR_VERSION)


def test_embedding_on_rv32im_equals_bitfold_run_and_onnxruntime(tmp_path):
    require_tools("qemu-riscv32", "riscv64-unknown-elf-gcc")
    onnx.save(embedding_model(), tmp_path / "embedding.onnx")
    (expected,) = run_onnxruntime(tmp_path / "embedding.onnx", {"ids": IDS}).values()
    np.testing.assert_array_equal(bitfold.run(import_model(str(tmp_path / "embedding.onnx")), [IDS])["y"], expected)
    compiled = compile_model(load_module(str(tmp_path / "embedding.onnx")), "rv32im")
    stored = compiled.quantize({"ids": IDS})
    assert stored[0].dtype == np.int32
    (got,), (reference,) = compiled.run_qemu(stored, tmp_path / "run"), compiled.run_reference(stored)
    np.testing.assert_array_equal(got, reference)
    np.testing.assert_array_equal(compiled.dequantize([got])[0], expected)
