"""Run one ONNX node through its oracle (onnxruntime, or onnx's reference evaluator where
onnxruntime lacks a mode) and through the `evaluate` of bitfold's `onnx.<OpType>` op, built
directly (no importer) the way the importer builds it: operands positionally in schema order,
attributes in `base.py`'s encoding with the defaults filled in (the schema's for ai.onnx; a
`defaults` source for other domains, see `contrib_oracle`)."""

from collections.abc import Callable, Sequence

import numpy as np
import onnx
import onnx.helper
from models.runners import onnxruntime_session
from onnx.reference import ReferenceEvaluator
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
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
from xdsl.irdl import AttrSizedOperandSegments, AttrSizedResultSegments, OptionalDef, VariadicDef

from bitfold.dialects.onnx import Onnx
from bitfold.dialects.onnx.base import OnnxOp

OPSET = 21
"""Default opset of the test models (onnxruntime 1.31 implements every op here at it)."""

IR_VERSION = 10
"""onnx 1.23 writes IR version 14 by default; onnxruntime 1.31 loads at most 13."""

OP_CLASSES = {op.name: op for op in Onnx.operations}


def xdsl_attribute(attribute: onnx.AttributeProto) -> Attribute:
    """An ONNX attribute in `base.py`'s encoding."""
    value = onnx.helper.get_attribute_value(attribute)
    kind = onnx.AttributeProto.AttributeType
    match attribute.type:
        case kind.INT:
            return IntegerAttr(value, i64)
        case kind.FLOAT:
            return FloatAttr(value, f32)
        case kind.STRING:
            return StringAttr(value.decode())
        case kind.INTS:
            return DenseArrayBase.from_list(i64, list(value))
        case kind.FLOATS:
            return DenseArrayBase.from_list(f32, list(value))
        case kind.STRINGS:
            return ArrayAttr([StringAttr(s.decode()) for s in value])
    raise NotImplementedError(f"attribute type {attribute.type}")


Defaults = Callable[[onnx.NodeProto], dict[str, Attribute]]
"""Where a node's attribute defaults come from, in `base.py`'s encoding."""


def schema_defaults(node: onnx.NodeProto) -> dict[str, Attribute]:
    """The newest ai.onnx schema's default of every attribute that has one."""
    return {
        name: xdsl_attribute(definition.default_value)
        for name, definition in onnx.defs.get_schema(node.op_type).attributes.items()
        if definition.default_value.name
    }


def element_type(dtype: np.dtype) -> Attribute:
    """The xDSL element type of a numpy dtype (the inverse of `evaluation.numpy_dtype`)."""
    floats = {np.float16: Float16Type(), np.float32: Float32Type(), np.float64: Float64Type()}
    if dtype.type in floats:
        return floats[dtype.type]
    if dtype == np.bool_:
        return IntegerType(1)
    signedness = Signedness.UNSIGNED if dtype.kind == "u" else Signedness.SIGNLESS
    return IntegerType(dtype.itemsize * 8, signedness)


def tensor_type(array: np.ndarray) -> TensorType:
    return TensorType(element_type(array.dtype), array.shape)


def build_op(
    node: onnx.NodeProto, inputs: Sequence[np.ndarray | None], outputs: Sequence[np.ndarray], defaults: Defaults
) -> OnnxOp:
    """The bitfold op for `node`: operand i is input i (None: absent optional input; a variadic
    operand takes all remaining inputs), results typed like the oracle's `outputs`, attributes
    the node's and the `defaults` of those it omits."""
    op_class = OP_CLASSES[f"onnx.{node.op_type}"]
    definition = op_class.get_irdl_definition()
    operand_sizes = []
    values = []
    remaining = list(inputs)
    for _, operand in definition.operands:
        variadic = isinstance(operand, VariadicDef) and not isinstance(operand, OptionalDef)
        taken = remaining if variadic else remaining[:1]
        remaining = remaining[len(taken):]
        present = [array for array in taken if array is not None]
        operand_sizes.append(len(present))
        values += TestOp(result_types=[tensor_type(a) for a in present]).results
    result_sizes = [int(i < len(outputs)) for i in range(len(definition.results))]
    properties = {}
    options = {type(option) for option in definition.options}
    if AttrSizedOperandSegments in options:
        properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, operand_sizes)
    if AttrSizedResultSegments in options:
        properties["resultSegmentSizes"] = DenseArrayBase.from_list(i32, result_sizes)
    op = op_class.create(
        operands=values,
        result_types=[tensor_type(a) for a in outputs],
        attributes=defaults(node) | {a.name: xdsl_attribute(a) for a in node.attribute},
        properties=properties,
    )
    op.verify()
    return op


def node_model(node: onnx.NodeProto, inputs: Sequence[np.ndarray | None], opset: int) -> onnx.ModelProto:
    """A model of the one node: ai.onnx at `opset`, and the node's own domain (if another) at 1."""
    graph_inputs = [
        onnx.helper.make_tensor_value_info(name, onnx.helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
        for name, a in zip(node.input, inputs)
        if a is not None
    ]
    graph_outputs = [onnx.helper.make_empty_tensor_value_info(name) for name in node.output]
    graph = onnx.helper.make_graph([node], node.op_type, graph_inputs, graph_outputs)
    opsets = [onnx.helper.make_opsetid("", opset)]
    if node.domain:
        opsets.append(onnx.helper.make_opsetid(node.domain, 1))
    return onnx.helper.make_model(graph, opset_imports=opsets, ir_version=IR_VERSION)


def run_onnxruntime(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    """onnxruntime on the one-node model, its integer kernels exact on every CPU (`onnxruntime_session`)."""
    return onnxruntime_session(model).run(None, feeds)


def run_both(
    op_type: str,
    inputs: Sequence[np.ndarray | None],
    outputs: int = 1,
    opset: int = OPSET,
    oracle: str = "onnxruntime",
    domain: str = "",
    defaults: Defaults = schema_defaults,
    **attributes,
) -> tuple[OnnxOp, list[np.ndarray], list[np.ndarray]]:
    """(bitfold's op, its results, the oracle's) for one `op_type` node of `domain` with these
    inputs (None: an absent optional input), its first `outputs` outputs and attributes."""
    inputs = [None if a is None else np.asarray(a) for a in inputs]
    names = [f"in{i}" if a is not None else "" for i, a in enumerate(inputs)]
    while names and not names[-1]:
        names.pop()  # absent trailing inputs are left out (onnxruntime's Squeeze wants that)
    node = onnx.helper.make_node(op_type, names, [f"out{i}" for i in range(outputs)], domain=domain, **attributes)
    model = node_model(node, inputs, opset)
    feeds = {name: a for name, a in zip(names, inputs) if a is not None}
    if oracle == "onnxruntime":
        expected = run_onnxruntime(model, feeds)
    else:
        expected = [np.asarray(v) for v in ReferenceEvaluator(model).run(None, feeds)]
    op = build_op(node, inputs, expected, defaults)
    return op, list(op.evaluate(list(feeds.values()))), expected


def _assert_same_types(actual: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> None:
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert isinstance(a, np.ndarray), type(a)  # never a numpy scalar, even for rank 0
        assert a.dtype == e.dtype and a.shape == e.shape, (a.dtype, a.shape, e.dtype, e.shape)


def assert_exact(op_type: str, inputs: Sequence[np.ndarray | None], outputs: int = 1, **kwargs) -> None:
    """bitfold equals the oracle bit for bit, dtype and shape included."""
    _, actual, expected = run_both(op_type, inputs, outputs, **kwargs)
    _assert_same_types(actual, expected)
    for a, e in zip(actual, expected):
        np.testing.assert_array_equal(a, e)


def assert_close(
    op_type: str, inputs: Sequence[np.ndarray | None], rtol: float = 1e-6, atol: float = 0.0, **kwargs
) -> None:
    """bitfold agrees with the oracle to `rtol` / `atol` (dtype and shape exactly): for ops
    that bitfold computes in float64 and rounds once while onnxruntime computes in float32 with
    approximations of its own (exp, tanh)."""
    _, actual, expected = run_both(op_type, inputs, **kwargs)
    _assert_same_types(actual, expected)
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)


def assert_close_sums(op_type: str, inputs: Sequence[np.ndarray | None], rtol: float = 1e-6, **kwargs) -> None:
    """For sums of products (Conv, Gemm, MatMul, pools), which cannot be exact: onnxruntime sums
    in float32 in an order of its own, bitfold rounds the float64 sum once. Each element must
    agree to `rtol` times the sum of its terms' magnitudes, which is the op evaluated on the
    inputs' absolute values (a float32 sum of n terms is off by up to n * 2**-24 of that; a
    bound relative to the result itself fails wherever the terms cancel)."""
    op, actual, expected = run_both(op_type, inputs, **kwargs)
    _assert_same_types(actual, expected)
    magnitudes = op.evaluate([np.abs(a) for a in inputs if a is not None])
    for a, e, m in zip(actual, expected, magnitudes):
        assert np.all(np.abs(a.astype(np.float64) - e) <= rtol * np.abs(m)), np.max(np.abs(a - e) / np.abs(m))
