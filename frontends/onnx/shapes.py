"""The type of every value of a model, from onnx's shape inference and, for the ops onnx has
no schemas for (QONNX's, onnxruntime's com.microsoft), from their op classes.

onnx's inference (with data propagation) leaves the outputs of such a node untyped, and so
everything computed from them. Each such node whose inputs are typed then gets the types its
op class states (`infer_result_types(operand_types, attributes)`, attribute defaults filled);
they are declared in the model's `value_info` and onnx's inference runs again, until no node
gains a type. Every run types at least the outputs of one more node, so this ends."""

from collections.abc import Iterator

import onnx
from onnx import helper, shape_inference
from xdsl.ir import Attribute

from bitfold.dialects.onnx.encoding import type_proto
from bitfold.frontends import FrontendError
from bitfold.frontends.onnx.domains import (
    ONNX_DOMAIN,
    Opsets,
    canonical_domain,
    node_attributes,
    resolve_op,
)
from bitfold.frontends.onnx.types import value_type


def _onnx_inference(model: onnx.ModelProto, label: str) -> dict[str, onnx.TypeProto]:
    """Value name -> type, for graph inputs, outputs, initializers and node outputs whose type
    shape inference (with data propagation) finds or the model declares."""
    try:
        inferred = shape_inference.infer_shapes(model, data_prop=True)
    except (shape_inference.InferenceError, onnx.checker.ValidationError) as error:
        raise FrontendError(f"{label}: shape inference failed: {str(error).strip().splitlines()[0]}") from None
    graph = inferred.graph
    types = {t.name: helper.make_tensor_type_proto(t.data_type, t.dims) for t in graph.initializer}
    for value in [*graph.input, *graph.value_info, *graph.output]:
        if value.type.WhichOneof("value") is not None:
            types[value.name] = value.type
    return types


def _stated_types(model: onnx.ModelProto, types: dict[str, onnx.TypeProto], opsets: Opsets, label: str) -> Iterator[tuple[str, onnx.TypeProto]]:
    """(name, type) of the outputs of the nodes outside ai.onnx that are untyped in `types`
    while their inputs are typed, in graph order (each node sees the types stated before it),
    as their op classes state them."""
    types = dict(types)
    for node in model.graph.node:
        if canonical_domain(node.domain) == ONNX_DOMAIN or all(o in types for o in node.output if o):
            continue
        if not all(i in types for i in node.input if i):
            continue
        op_class, defaults = resolve_op(node, opsets, opsets.onnx)
        operand_types: list[Attribute | None] = [value_type(types[i], f"value '{i}'") if i else None for i in node.input]
        attributes = node_attributes(node, op_class, defaults, label)
        results = op_class.infer_result_types(operand_types, attributes)  # pyright: ignore[reportAttributeAccessIssue]
        for name, result in zip(node.output, results):
            if name:
                types[name] = type_proto(result)
                yield name, types[name]


def infer_value_types(model: onnx.ModelProto, label: str) -> dict[str, onnx.TypeProto]:
    """Value name -> type of every value whose type onnx's inference or the op classes of
    nodes outside ai.onnx give (see the module docstring)."""
    opsets = Opsets.of(model, label)
    declared = onnx.ModelProto()
    declared.CopyFrom(model)
    while True:
        types = _onnx_inference(declared, label)
        stated = list(_stated_types(declared, types, opsets, label))
        if not stated:
            return types
        declared.graph.value_info.extend(helper.make_value_info(name, t) for name, t in stated)
