"""The type of every value of a model, from onnx's shape inference and, for the ops onnx has
no schemas for (QONNX's, onnxruntime's com.microsoft), from their op classes.

onnx's inference (with data propagation) leaves the outputs of such a node untyped, and so
everything computed from them. A walk in graph order then types each node whose inputs are
typed: a node outside ai.onnx by its op class (`infer_result_types(operand_types,
attributes)`, attribute defaults filled), a standard node by its schema's inference
(`infer_node_outputs`, kept only where every dimension comes out known, else left to the
whole-graph inference with data propagation). Outputs the model declares with symbolic or
unknown dimensions are walked too: a number the walk finds replaces the declared dimension
(Brevitas declares each QONNX `Quant` output as `Quant<name>_dim_0` ...; onnx's inference
likewise lets a number win over a declared symbol), a declared number is never overridden.
The types found are declared in the model's `value_info` (or graph outputs) and onnx's
inference runs again, until a walk finds nothing new. Every run types at least the outputs
of one more node or numbers more dimensions, so this ends; since the walk types chains of
QONNX and standard ops in one go, a model needs a run per data-propagated shape (a Reshape
of a computed shape) behind a QONNX op, not one per QONNX op."""

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
    shape inference (with data propagation) finds or the model declares. Every standard node's
    input types are checked against its schema at the model's opset (as onnxruntime does)."""
    try:
        inferred = shape_inference.infer_shapes(model, data_prop=True, check_type=True, strict_mode=True)
    except (shape_inference.InferenceError, onnx.checker.ValidationError, ValueError, RuntimeError) as error:
        raise FrontendError(f"{label}: shape inference failed: {str(error).strip().splitlines()[0]}") from None
    graph = inferred.graph
    types = {t.name: helper.make_tensor_type_proto(t.data_type, t.dims) for t in graph.initializer}
    for value in [*graph.input, *graph.value_info, *graph.output]:
        if value.type.WhichOneof("value") is not None:
            types[value.name] = value.type
    return types


def _complete(value_type: onnx.TypeProto) -> bool:
    """A tensor type of known rank whose every dimension is a number or a symbol."""
    if value_type.WhichOneof("value") != "tensor_type" or not value_type.tensor_type.HasField("shape"):
        return False
    return all(d.HasField("dim_value") or d.HasField("dim_param") for d in value_type.tensor_type.shape.dim)


def _schema_types(node: onnx.NodeProto, types: dict[str, onnx.TypeProto], model: onnx.ModelProto,
                  opsets: Opsets, constants: dict[str, onnx.TensorProto]) -> dict[str, onnx.TypeProto]:
    """The output types a standard node's schema infers from its inputs' types (and the
    values of constant inputs); {} where the schema is unknown, inference fails or a type
    is incomplete (the whole-graph inference may know more)."""
    try:
        schema = onnx.defs.get_schema(node.op_type, opsets.onnx)
        inferred = shape_inference.infer_node_outputs(
            schema, node, {i: types[i] for i in node.input if i}, {i: constants[i] for i in node.input if i in constants},
            opset_imports=list(model.opset_import), ir_version=model.ir_version,
        )
    except (onnx.defs.SchemaError, shape_inference.InferenceError, onnx.checker.ValidationError, RuntimeError):
        return {}
    return inferred if all(_complete(t) for t in inferred.values()) else {}


def _static(value_type: onnx.TypeProto) -> bool:
    """A tensor type of known rank whose every dimension is a number."""
    return _complete(value_type) and all(d.HasField("dim_value") for d in value_type.tensor_type.shape.dim)


def _refines(stated: onnx.TypeProto, known: onnx.TypeProto) -> bool:
    """`stated` says more than `known` and contradicts none of it: the same element type, and
    a shape where `known` has none, or the same rank with a number for some dimension `known`
    leaves symbolic or unknown and the same number wherever `known` has one."""
    if stated.WhichOneof("value") != "tensor_type" or known.WhichOneof("value") != "tensor_type":
        return False
    new, old = stated.tensor_type, known.tensor_type
    if old.elem_type not in (0, new.elem_type) or not new.HasField("shape"):
        return False
    if not old.HasField("shape"):
        return True
    if len(new.shape.dim) != len(old.shape.dim):
        return False
    pairs = list(zip(new.shape.dim, old.shape.dim, strict=True))
    if any(o.HasField("dim_value") and n.dim_value != o.dim_value for n, o in pairs):
        return False
    return any(n.HasField("dim_value") and not o.HasField("dim_value") for n, o in pairs)


def _stated_types(model: onnx.ModelProto, types: dict[str, onnx.TypeProto], opsets: Opsets, label: str) -> Iterator[tuple[str, onnx.TypeProto]]:
    """(name, type) of the outputs of the nodes not statically typed in `types` while their
    inputs are typed, in graph order (each node sees the types stated before it): a node
    outside ai.onnx as its op class states them, a standard node as its schema infers them;
    only types that are new or refine the known ones (`_refines`)."""
    types = dict(types)
    constants = {t.name: t for t in model.graph.initializer}
    for node in model.graph.node:
        typed = all(o in types and _static(types[o]) for o in node.output if o)
        if typed or not all(i in types for i in node.input if i):
            continue
        if canonical_domain(node.domain) == ONNX_DOMAIN:
            stated = _schema_types(node, types, model, opsets, constants)
        else:
            op_class, defaults = resolve_op(node, opsets, opsets.onnx)
            operand_types: list[Attribute | None] = [value_type(types[i], f"value '{i}'") if i else None for i in node.input]
            attributes = node_attributes(node, op_class, defaults, label)
            results = op_class.infer_result_types(operand_types, attributes)  # pyright: ignore[reportAttributeAccessIssue]
            stated = {name: type_proto(result) for name, result in zip(node.output, results) if name}
        for name, stated_type in stated.items():
            if name and (name not in types or _refines(stated_type, types[name])):
                types[name] = stated_type
                yield name, stated_type


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
        for name, stated_type in stated:
            _declare(declared.graph, name, stated_type)


def _declare(graph: onnx.GraphProto, name: str, value_type: onnx.TypeProto) -> None:
    """Give `name` this type in the graph's outputs or `value_info`, replacing its declaration."""
    declared = next((v for v in [*graph.output, *graph.value_info] if v.name == name), None)
    if declared is None:
        graph.value_info.append(helper.make_value_info(name, value_type))
    else:
        declared.type.CopyFrom(value_type)
