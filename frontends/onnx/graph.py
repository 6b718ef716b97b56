"""The graph walk: an ONNX graph becomes one `func.func` of onnx (and qonnx) ops.

Initializers become `onnx.Constant` ops, graph inputs that are not initializers the
function's arguments (name hint and argument attribute `onnx.name` = the input's name), each
node one op (ONNX inputs positionally to the op's operand definitions, an empty name an
absent optional operand; attributes converted, schema defaults filled; result types from
shape inference; location `NameLoc(node name)`), and the graph outputs the function's
results (result attribute `onnx.name` = the output's name)."""

import re
from collections.abc import Sequence

import numpy as np
import onnx
from onnx import helper
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    ContainerType,
    DictionaryAttr,
    IntegerAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import OptionalDef, VariadicDef
from xdsl.utils.exceptions import VerifyException

from bitfold.dialects.evaluation import numpy_dtype_of
from bitfold.dialects.minifloat import is_float_storage
from bitfold.dialects.onnx.base import ONNX_NAME, ONNX_OPSET
from bitfold.dialects.onnx.constant import ConstantOp, dense_attr
from bitfold.dialects.onnx.quantization import DequantizeLinearOp, QuantizeLinearOp
from bitfold.frontends import FrontendError
from bitfold.frontends.onnx.domains import (
    Opsets,
    node_attributes,
    node_label,
    resolve_op,
)
from bitfold.frontends.onnx.types import onnx_element_type, tensor_attr, value_type
from bitfold.frontends.onnx.upgrades import upgrade

FLOAT_STORAGE_OPS = (QuantizeLinearOp, DequantizeLinearOp)
"""The ops that take float8 and float4 values (their quantized side); any other op with such
a value is refused (Cast to float8 and float8 arithmetic are not supported)."""

_INVALID_NAME_CHARACTERS = re.compile(r"[^A-Za-z0-9_$.-]")
"""What xDSL refuses in an SSA name (`[A-Za-z0-9_$.-]`; `\\w` would let non-ASCII letters through)."""


def name_hint(name: str) -> str | None:
    """An SSA name hint close to an ONNX value name (invalid characters become `_`, a leading digit
    gets a `_`); None where xDSL would keep nothing of it: xDSL drops a `_<digits>` suffix, so
    TorchScript's value `15` would become the empty hint `""`, which xDSL's own renames (a
    pattern's `replace`) then refuse."""
    hint = _INVALID_NAME_CHARACTERS.sub("_", name)
    if hint and hint[0].isdigit():
        hint = f"_{hint}"
    return hint if hint and SSAValue.extract_valid_name(hint) else None


def distribute(items: Sequence, definitions: Sequence, what: str) -> list:
    """Assign ONNX inputs or outputs (positional, `None` for an empty name) to IRDL operand or
    result definitions: one item each, `[]`/`[x]` for an optional one, the rest (less what
    later definitions need) for a variadic one."""
    items = list(items)
    groups: list = []
    for index, (_, definition) in enumerate(definitions):
        if isinstance(definition, OptionalDef):
            item = items.pop(0) if items else None
            groups.append([] if item is None else [item])
        elif isinstance(definition, VariadicDef):
            count = max(0, len(items) - (len(definitions) - index - 1))
            groups.append([i for i in items[:count] if i is not None])
            items = items[count:]
        else:
            if not items or items[0] is None:
                raise FrontendError(f"missing required {what} '{definitions[index][0]}'")
            groups.append(items.pop(0))
    if any(i is not None for i in items):
        raise FrontendError(f"too many {what}s")
    return groups


class GraphImporter:
    """Builds the function of one ONNX graph (see the module docstring)."""

    def __init__(self, model: onnx.ModelProto, value_types: dict[str, onnx.TypeProto], label: str):
        self.model = model
        self.opsets = Opsets.of(model, label)
        self.value_types = value_types
        self.label = label
        self.values: dict[str, SSAValue] = {}
        self.block = Block()

    def _type_of(self, name: str, what: str) -> Attribute:
        if name not in self.value_types:
            raise FrontendError(f"{self.label}: no type for value '{name}' ({what}): shape inference found none")
        return value_type(self.value_types[name], f"value '{name}'")

    def _numpy_dtype_of(self, name: str) -> np.dtype:
        return numpy_dtype_of(self.values[name].type)

    def _define(self, name: str, value: SSAValue) -> None:
        value.name_hint = name_hint(name)
        self.values[name] = value

    def _add_constant(self, name: str, value: Attribute) -> None:
        constant = ConstantOp.build(attributes={"value": value}, result_types=[value.type])
        constant.location = NameLoc(StringAttr(name), NoneAttr())
        self.block.add_op(constant)
        self._define(name, constant.output)

    def _operand(self, name: str, node: onnx.NodeProto) -> SSAValue | None:
        if not name:
            return None
        if name not in self.values:
            raise FrontendError(f"{self.label}: value '{name}' used by {node_label(node)} is not defined before it")
        return self.values[name]

    def _add_node(self, original: onnx.NodeProto) -> None:
        upgraded = upgrade(original, self.opsets.onnx, self._numpy_dtype_of)
        for name, array in upgraded.constants.items():
            self._add_constant(name, dense_attr(array, onnx_element_type(helper.np_dtype_to_tensor_dtype(array.dtype), name)))
        node = upgraded.node
        op_class, defaults = resolve_op(node, self.opsets, upgraded.opset)
        definition = op_class.get_irdl_definition()
        try:
            operands = distribute([self._operand(i, node) for i in node.input], definition.operands, "input")
            outputs = distribute([o or None for o in node.output], definition.results, "output")
        except FrontendError as error:
            raise FrontendError(f"{self.label}: {error} of '{node.op_type}' at {node_label(node)}") from None
        result_types = [
            [self._type_of(o, f"output of {node_label(node)}") for o in group] if isinstance(group, list)
            else self._type_of(group, f"output of {node_label(node)}")
            for group in outputs
        ]
        op = op_class.build(operands=operands, result_types=result_types, attributes=node_attributes(node, op_class, defaults, self.label))
        self._check_float_storage(op, node)
        op.location = NameLoc(StringAttr(node.name), NoneAttr())
        self.block.add_op(op)
        try:
            op.verify()
        except VerifyException as error:
            raise FrontendError(f"{self.label}: {node_label(node)} ({node.op_type}): {str(error).strip().splitlines()[0]}") from None
        names = [name for group in outputs for name in (group if isinstance(group, list) else [group])]
        for name, result in zip(names, op.results, strict=True):
            self._define(name, result)

    def _check_float_storage(self, op: Operation, node: onnx.NodeProto) -> None:
        if isinstance(op, FLOAT_STORAGE_OPS):
            return
        for value in (*op.operands, *op.results):
            if isinstance(value.type, ContainerType) and is_float_storage(value.type.get_element_type()):
                raise FrontendError(f"{self.label}: {node_label(node)} ({node.op_type}): float8/float4 values are "
                                    f"supported only in QuantizeLinear and DequantizeLinear, got {value.type}")

    def build(self) -> func.FuncOp:
        graph = self.model.graph
        initializers = {t.name for t in graph.initializer}
        inputs = [i for i in graph.input if i.name not in initializers]
        for value in [*inputs, *graph.output]:
            if value.type.tensor_type.elem_type == onnx.TensorProto.UNDEFINED:
                raise FrontendError(f"{self.label}: graph input or output '{value.name}' has no element type")
        argument_types = [value_type(i.type, f"input '{i.name}'") for i in inputs]
        self.block = Block(arg_types=argument_types)
        for argument, graph_input in zip(self.block.args, inputs, strict=True):
            self._define(graph_input.name, argument)
        for tensor in graph.initializer:
            self._add_constant(tensor.name, tensor_attr(tensor, f"initializer '{tensor.name}'"))
        for node in graph.node:
            self._add_node(node)
        results = [self._operand(o.name, onnx.NodeProto(name="graph output", output=[o.name])) for o in graph.output]
        self.block.add_op(func.ReturnOp(*results))
        return func.FuncOp(
            graph.name or "main",
            (argument_types, [r.type for r in results]),
            Region(self.block),
            arg_attrs=ArrayAttr(DictionaryAttr({ONNX_NAME: StringAttr(i.name)}) for i in inputs),
            res_attrs=ArrayAttr(DictionaryAttr({ONNX_NAME: StringAttr(o.name)}) for o in graph.output),
        )


def import_graph(model: onnx.ModelProto, value_types: dict[str, onnx.TypeProto], label: str) -> ModuleOp:
    """The module holding the function of the model's graph, with the model's ai.onnx opset
    as its `onnx.opset` attribute, verified (each op as it is built, so errors name the node)."""
    module = ModuleOp([GraphImporter(model, value_types, label).build()])
    if opset := Opsets.of(model, label).onnx:
        module.attributes[ONNX_OPSET] = IntegerAttr(opset, 64)
    try:
        module.verify()
    except VerifyException as error:
        raise FrontendError(f"{label}: the imported module does not verify: {str(error).strip().splitlines()[0]}") from None
    return module
