"""Opset selection: the lowest ai.onnx opset, at or above a form's minimum, whose schemas
hold every node as emitted, and the IR version that goes with it.

A standard node fits opset V when the op exists at V, its inputs are no more than V's
schema declares, every input's and output's element type is one V's type constraints allow
(int4 and int16 QuantizeLinear need 21, int2 needs 25), and each attribute V's schema lacks
is at the value that means "absent" (the newest schema's default: bitfold's IR carries every
attribute of the newest signature). Those attributes are then dropped from the node."""

from collections.abc import Iterable, Sequence

import onnx
from onnx import helper

from bitfold.backends.onnx.errors import ExportError

MAX_IR_VERSION = 13
"""The newest IR version onnxruntime 1.31 loads (onnx 1.23 writes 14 by default)."""

MAX_OPSET = max(opset for _, ir, opset, *_ in helper.VERSION_TABLE if ir <= MAX_IR_VERSION)
"""The newest ai.onnx opset an IR version onnxruntime loads can declare."""

def _type_string(code: int) -> str:
    return f"tensor({helper.tensor_dtype_to_string(code).removeprefix('TensorProto.').lower()})"

def _allowed(schema: onnx.defs.OpSchema, parameter: onnx.defs.OpSchema.FormalParameter, code: int | None) -> bool:
    if code is None:
        return True
    constraints = {c.type_param_str: c.allowed_type_strs for c in schema.type_constraints}
    allowed = constraints.get(parameter.type_str, [parameter.type_str])
    return _type_string(code) in allowed

def _parameter(parameters: Sequence[onnx.defs.OpSchema.FormalParameter], index: int):
    """The formal parameter at `index`, the last (variadic) one past the end, else None."""
    if index < len(parameters):
        return parameters[index]
    last = parameters[-1] if parameters else None
    variadic = last is not None and last.option == onnx.defs.OpSchema.FormalParameterOption.Variadic
    return last if variadic else None

def _absent_value(op_type: str, attribute: onnx.AttributeProto) -> bool:
    """Whether the attribute has the newest schema's default (what leaving it out means)."""
    declared = onnx.defs.get_schema(op_type).attributes.get(attribute.name)
    if declared is None or not declared.default_value.name:
        return False
    return helper.get_attribute_value(declared.default_value) == helper.get_attribute_value(attribute)

def fits(node: onnx.NodeProto, opset: int, codes: dict[str, int]) -> bool:
    """Whether a standard node fits `opset` (see the module docstring)."""
    try:
        schema = onnx.defs.get_schema(node.op_type, opset)
    except onnx.defs.SchemaError:
        return False
    for parameters, names in ((schema.inputs, node.input), (schema.outputs, node.output)):
        for index, name in enumerate(names):
            parameter = _parameter(parameters, index)
            if name and (parameter is None or not _allowed(schema, parameter, codes.get(name))):
                return False
    return all(a.name in schema.attributes or _absent_value(node.op_type, a) for a in node.attribute)

def takes_type(op_type: str, code: int, minimum: int) -> bool:
    """Whether the standard op's first input takes ONNX type `code` at some opset from
    `minimum` to `MAX_OPSET` (MaxPool: int8 and uint8, not int16)."""
    for opset in range(minimum, MAX_OPSET + 1):
        try:
            schema = onnx.defs.get_schema(op_type, opset)
        except onnx.defs.SchemaError:
            continue
        if schema.inputs and _allowed(schema, schema.inputs[0], code):
            return True
    return False

def select_opset(nodes: Iterable[onnx.NodeProto], codes: dict[str, int], minimum: int) -> int:
    """The lowest opset from `minimum` to `MAX_OPSET` that every standard node fits; an
    error naming the first node that fits none."""
    standard = [n for n in nodes if n.domain in ("", "ai.onnx")]
    for opset in range(minimum, MAX_OPSET + 1):
        misfit = next((n for n in standard if not fits(n, opset, codes)), None)
        if misfit is None:
            return opset
        if not any(fits(misfit, v, codes) for v in range(opset, MAX_OPSET + 1)):
            kinds = sorted({helper.tensor_dtype_to_string(codes[i]).removeprefix("TensorProto.")
                            for i in [*misfit.input, *misfit.output] if i in codes})
            raise ExportError(f"node '{misfit.name}' ({misfit.op_type} on {', '.join(kinds)}) fits no ai.onnx "
                              f"opset from {minimum} to {MAX_OPSET} (the newest onnxruntime loads)")
    raise AssertionError("unreachable: the last opset either fits or raised")

def drop_absent_attributes(nodes: Iterable[onnx.NodeProto], opset: int) -> None:
    """Remove from each standard node the attributes its schema at `opset` does not declare
    (`fits` has made sure they are at their absent value)."""
    for node in nodes:
        if node.domain in ("", "ai.onnx"):
            declared = onnx.defs.get_schema(node.op_type, opset).attributes
            kept = [a for a in node.attribute if a.name in declared]
            del node.attribute[:]
            node.attribute.extend(kept)

def ir_version(opset_imports: Sequence[onnx.OperatorSetIdProto]) -> int:
    """The lowest IR version that declares these opsets (custom domains need none)."""
    return helper.find_min_ir_version_for(list(opset_imports), ignore_unknown=True)

