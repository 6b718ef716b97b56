"""Models whose shapes are computed by nodes, as `torch.onnx.export` writes them.

`attention_shapes` is the shape subgraph of PyTorch's multi-head attention: the head split
`Shape -> Gather -> Unsqueeze -> Concat -> Reshape`, the scale `1 / sqrt(head size)` computed
from the shape in float (`Shape -> Slice -> Cast -> Sqrt -> Div`), `expand`'s
`ConstantOfShape -> Mul -> Equal -> Where -> Expand`, and the merge of the heads with a
`-1` dimension. Made with onnx.helper; weights from a fixed seed.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

IR_VERSION = 10
"""Readable by onnxruntime (it reads IR versions up to 13; onnx 1.23 writes 14)."""

BATCH, SEQUENCE, MODEL, HEADS = 2, 8, 16, 4


def _ints(name: str, values: list[int]) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(values, np.int64), name)


def attention_shapes(batch: int | str = BATCH, opset: int = 17) -> onnx.ModelProto:
    """x (batch x SEQUENCE x MODEL) -> y of the same shape: x split into HEADS heads
    (batch x HEADS x SEQUENCE x MODEL/HEADS), scaled by 1 / sqrt(MODEL/HEADS), plus a bias
    expanded to the heads' shape, merged back. `batch` may be a symbol (a dynamic shape)."""
    rng = np.random.default_rng(20)
    head = MODEL // HEADS
    initializers = [
        _ints("zero", [0]), _ints("heads", [HEADS]), _ints("head", [head]),
        _ints("minus_one", [-1]), _ints("last", [-1]), _ints("end", [2**62]), _ints("perm_shape", [4]),
        numpy_helper.from_array(np.array(0, np.int64), "index_0"),
        numpy_helper.from_array(np.array(1, np.int64), "index_1"),
        numpy_helper.from_array(np.array(1.0, np.float32), "unit"),
        numpy_helper.from_array(rng.standard_normal((1, 1, 1, head)).astype(np.float32), "bias"),
    ]
    nodes = [
        helper.make_node("Shape", ["x"], ["x_shape"], name="shape"),
        helper.make_node("Gather", ["x_shape", "index_0"], ["batch"], name="gather_batch", axis=0),
        helper.make_node("Gather", ["x_shape", "index_1"], ["sequence"], name="gather_sequence", axis=0),
        helper.make_node("Unsqueeze", ["batch", "zero"], ["batch_1"], name="unsqueeze_batch"),
        helper.make_node("Unsqueeze", ["sequence", "zero"], ["sequence_1"], name="unsqueeze_sequence"),
        helper.make_node("Concat", ["batch_1", "sequence_1", "heads", "head"], ["split_shape"], name="concat_split", axis=0),
        helper.make_node("Reshape", ["x", "split_shape"], ["split"], name="reshape_split"),
        helper.make_node("Transpose", ["split"], ["heads_first"], name="transpose_heads", perm=[0, 2, 1, 3]),
        helper.make_node("Shape", ["heads_first"], ["heads_shape"], name="shape_heads"),
        helper.make_node("Slice", ["heads_shape", "last", "end"], ["head_size"], name="slice_head_size"),
        helper.make_node("Cast", ["head_size"], ["head_size_float"], name="cast_head_size", to=TensorProto.FLOAT),
        helper.make_node("Sqrt", ["head_size_float"], ["root"], name="sqrt_head_size"),
        helper.make_node("Div", ["unit", "root"], ["scale"], name="div_scale"),
        helper.make_node("Mul", ["heads_first", "scale"], ["scaled"], name="mul_scale"),
        helper.make_node("ConstantOfShape", ["perm_shape"], ["ones"], name="constant_of_shape",
                         value=numpy_helper.from_array(np.array([1], np.int64))),
        helper.make_node("Mul", ["ones", "minus_one"], ["minus_ones"], name="mul_minus_one"),
        helper.make_node("Equal", ["heads_shape", "minus_ones"], ["is_free"], name="equal_free"),
        helper.make_node("Where", ["is_free", "ones", "heads_shape"], ["expand_shape"], name="where_shape"),
        helper.make_node("Expand", ["bias", "expand_shape"], ["bias_heads"], name="expand_bias"),
        helper.make_node("Add", ["scaled", "bias_heads"], ["biased"], name="add_bias"),
        helper.make_node("Transpose", ["biased"], ["sequence_first"], name="transpose_back", perm=[0, 2, 1, 3]),
        helper.make_node("Concat", ["batch_1", "sequence_1", "minus_one"], ["merge_shape"], name="concat_merge", axis=0),
        helper.make_node("Reshape", ["sequence_first", "merge_shape"], ["y"], name="reshape_merge"),
    ]
    graph = helper.make_graph(
        nodes, "attention_shapes",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, SEQUENCE, MODEL])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, SEQUENCE, MODEL])],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=IR_VERSION)
