"""Run one com.microsoft node through onnxruntime (the oracle) and through the `evaluate` of
bitfold's op, built directly the way the importer builds it: operands positionally in schema
order, attributes in `base.py`'s encoding with `contrib.attribute_defaults` filled in."""

from collections.abc import Sequence

import numpy as np
import onnx
import onnx.helper
import onnxruntime
from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    Signedness,
    StringAttr,
    TensorType,
    f32,
    i32,
    i64,
)
from xdsl.dialects.test import TestOp
from xdsl.ir import Attribute
from xdsl.irdl import AttrSizedOperandSegments, OptionalDef, VariadicDef

from bitfold.dialects.onnx import contrib
from bitfold.dialects.onnx.base import OnnxOp

IR_VERSION = 10
"""onnx 1.23 writes IR version 14 by default; onnxruntime 1.31 loads at most 13."""

OPSETS = [onnx.helper.make_opsetid("", 21), onnx.helper.make_opsetid(contrib.DOMAIN, 1)]


def xdsl_attribute(value) -> Attribute:
    """A Python attribute value in `base.py`'s encoding."""
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, float):
        return FloatAttr(value, f32)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    return DenseArrayBase.from_list(i64, list(value))


def tensor_type(array: np.ndarray) -> TensorType:
    if array.dtype == np.float32:
        return TensorType(Float32Type(), array.shape)
    signedness = Signedness.UNSIGNED if array.dtype.kind == "u" else Signedness.SIGNLESS
    return TensorType(IntegerType(array.dtype.itemsize * 8, signedness), array.shape)


def build_op(op_type: str, inputs: Sequence[np.ndarray | None], output: np.ndarray, attributes: dict) -> OnnxOp:
    """bitfold's op for the node: operand i is input i (None: an absent optional input; a
    variadic operand takes all remaining inputs), the result typed like the oracle's output."""
    op_class = contrib.op_class_for(op_type, 1)
    definition = op_class.get_irdl_definition()
    sizes, values, remaining = [], [], list(inputs)
    for _, operand in definition.operands:
        taken = remaining if isinstance(operand, VariadicDef) and not isinstance(operand, OptionalDef) else remaining[:1]
        remaining = remaining[len(taken):]
        present = [a for a in taken if a is not None]
        sizes.append(len(present))
        values += TestOp(result_types=[tensor_type(a) for a in present]).results
    options = {type(option) for option in definition.options}
    properties = {"operandSegmentSizes": DenseArrayBase.from_list(i32, sizes)} if AttrSizedOperandSegments in options else {}
    op = op_class.create(
        operands=values,
        result_types=[tensor_type(output)],
        attributes=contrib.attribute_defaults(op_class) | {k: xdsl_attribute(v) for k, v in attributes.items()},
        properties=properties,
    )
    op.verify()
    return op


def run_onnxruntime(op_type: str, inputs: Sequence[np.ndarray | None], attributes: dict) -> np.ndarray:
    names = [f"in{i}" if a is not None else "" for i, a in enumerate(inputs)]
    while names and not names[-1]:
        names.pop()
    node = onnx.helper.make_node(op_type, names, ["out"], domain=contrib.DOMAIN, **attributes)
    graph_inputs = [
        onnx.helper.make_tensor_value_info(name, onnx.helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
        for name, a in zip(names, inputs)
        if a is not None
    ]
    graph = onnx.helper.make_graph([node], op_type, graph_inputs, [onnx.helper.make_empty_tensor_value_info("out")])
    model = onnx.helper.make_model(graph, opset_imports=OPSETS, ir_version=IR_VERSION)
    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    feeds = {name: a for name, a in zip(names, inputs) if a is not None}
    return session.run(None, feeds)[0]


def run_both(op_type: str, inputs: Sequence[np.ndarray | None], **attributes) -> tuple[np.ndarray, np.ndarray]:
    """(bitfold's result, onnxruntime's) for one `op_type` node of com.microsoft."""
    inputs = [None if a is None else np.asarray(a) for a in inputs]
    expected = run_onnxruntime(op_type, inputs, attributes)
    op = build_op(op_type, inputs, expected, attributes)
    (actual,) = op.evaluate([a for a in inputs if a is not None])
    return actual, expected


def assert_exact(op_type: str, inputs: Sequence[np.ndarray | None], **attributes) -> None:
    """bitfold equals onnxruntime bit for bit, dtype and shape included."""
    actual, expected = run_both(op_type, inputs, **attributes)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (actual.dtype, actual.shape, expected.dtype, expected.shape)
    mismatches = np.flatnonzero(actual != expected)
    assert mismatches.size == 0, f"{mismatches.size} of {actual.size} differ, first at {mismatches[:5]}"
