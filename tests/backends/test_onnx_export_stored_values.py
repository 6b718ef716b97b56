"""ONNX export of ops that `canonicalize-quant` runs on stored values (issue 12, item 2): a QDQ
MaxPool on int8, int16, uint16, int4 and uint4 values becomes `MaxPool` on the quantized tensors,
which every form must write. ONNX's MaxPool takes int8 and uint8 only, so the QDQ-family forms write
it on the integers there and between DequantizeLinear and QuantizeLinear otherwise; QONNX on the
fake-quantized floats. Each export runs under its oracle (onnxruntime with ORT_DISABLE_ALL, qonnx's
executor) and must equal bitfold-run on the canonical module and the source under onnxruntime, bit for
bit. Errors name an unnamed node by its op and result (never `node ''`)."""

import numpy as np
import onnx
import pytest
from models.float_models import IR_VERSION
from models.runners import run_onnxruntime, run_qonnx
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import NameLoc

import bitfold
from bitfold.backends.onnx import export_model
from bitfold.backends.onnx.graph import op_label
from bitfold.backends.onnx.qcdq import QcdqForm
from bitfold.backends.onnx.qdq import QdqForm
from bitfold.backends.onnx.qonnx import QonnxForm
from bitfold.backends.onnx.qop import QopForm
from bitfold.dialects.onnx.nn import MaxPoolOp
from bitfold.dialects.quant import QuantizedType, element_type
from bitfold.load import full_context, import_onnx
from bitfold.passes.canonicalize_quant import CanonicalizeQuantPass
from bitfold.passes.onnx_to_quant import OnnxToQuantPass

STORAGE = {"int8": (TensorProto.INT8, 3), "int16": (TensorProto.INT16, -200), "uint16": (TensorProto.UINT16, 30000),
           "int4": (TensorProto.INT4, 1), "uint4": (TensorProto.UINT4, 8)}
"""ONNX integer type: (code, zero point)."""
FORMS = {"qdq": (QdqForm, run_onnxruntime), "qcdq": (QcdqForm, run_onnxruntime),
         "qop": (QopForm, run_onnxruntime), "qonnx": (QonnxForm, run_qonnx)}


def maxpool_model(code: int, zero_point: int, named: bool) -> onnx.ModelProto:
    """x -> Q -> DQ -> MaxPool 2x2 -> Q -> DQ on the given integer type, opset 21."""
    initializers = [numpy_helper.from_array(np.float32(0.125), "s"), helper.make_tensor("zp", code, [], [zero_point])]
    specs = [("QuantizeLinear", ["x", "s", "zp"], "q", {}), ("DequantizeLinear", ["q", "s", "zp"], "d", {}),
             ("MaxPool", ["d"], "m", {"kernel_shape": [2, 2], "strides": [2, 2]}),
             ("QuantizeLinear", ["m", "s", "zp"], "q2", {}), ("DequantizeLinear", ["q2", "s", "zp"], "y", {})]
    nodes = [helper.make_node(op, inputs, [out], f"{out}_node" if named else "", **attrs)
             for op, inputs, out, attrs in specs]
    graph = helper.make_graph(nodes, "maxpool", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 2, 2])], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


def canonical(model: onnx.ModelProto):
    module = import_onnx(model.SerializeToString(), None, model.graph.name)
    for stage in (OnnxToQuantPass(), CanonicalizeQuantPass()):
        stage.apply(full_context(), module)
    return module


def feeds(seed: int) -> dict[str, np.ndarray]:
    return {"x": np.random.default_rng(seed).normal(scale=2.0, size=(1, 2, 4, 4)).astype(np.float32)}


@pytest.mark.parametrize("named", [True, False], ids=["named", "unnamed"])
@pytest.mark.parametrize("storage", list(STORAGE))
@pytest.mark.parametrize("form", list(FORMS))
def test_maxpool_on_stored_values_exports(form, storage, named):
    model = maxpool_model(*STORAGE[storage], named)
    module = canonical(model)
    pools = [op for op in module.walk() if isinstance(op, MaxPoolOp)]
    assert len(pools) == 1 and isinstance(element_type(pools[0].results[0].type), QuantizedType)
    exporter, oracle = FORMS[form]
    exported = export_model(module, exporter())
    for seed in (0, 1):
        inputs = feeds(seed)
        actual = oracle(exported, inputs)["y"]
        np.testing.assert_array_equal(actual, bitfold.run(module, inputs)["y"])
        np.testing.assert_array_equal(actual, run_onnxruntime(model, inputs)["y"])


@pytest.mark.parametrize(("storage", "pooled"), [("int8", "QuantizeLinear"), ("int16", "DequantizeLinear")])
def test_maxpool_on_integers_where_onnx_takes_them(storage, pooled):
    """MaxPool reads the integers where ONNX's MaxPool takes their type (int8), else floats."""
    exported = export_model(canonical(maxpool_model(*STORAGE[storage], True)), QdqForm())
    producers = {out: node.op_type for node in exported.graph.node for out in node.output}
    (pool,) = [node for node in exported.graph.node if node.op_type == "MaxPool"]
    assert producers[pool.input[0]] == pooled


def test_unnamed_node_is_labelled_by_its_result():
    """An ONNX node without a name (the importer's empty `NameLoc`) is named in errors by its op and
    result, never as `node ''`."""
    module = canonical(maxpool_model(*STORAGE["int16"], named=False))
    (pool,) = [op for op in module.walk() if isinstance(op, MaxPoolOp)]
    assert isinstance(pool.location, NameLoc) and not pool.location.desc.data
    assert op_label(pool) == "'onnx.MaxPool' computing '%m'"
