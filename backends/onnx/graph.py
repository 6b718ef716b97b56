"""Graph emission: one `func.func` of the canonical quant form (or of plain imported IR)
becomes the nodes, initializers, inputs and outputs of an ONNX graph.

Emission is demand-driven: starting from the function's results, each value is named when a
consumer first asks for it (`GraphEmitter.name`), which emits its producer first. So nodes
come out in topological order, and IR no result depends on (a dead scale constant, a dcast
whose consumer a fused QLinear op replaced) is not written. Producers:
- a function argument is the graph input named by its `onnx.name` attribute;
- an `onnx.Constant` is an initializer named after its `NameLoc` (the importer's
  initializer name) or its SSA name;
- a `quant.*` op is written by the form (`QuantForm`: QDQ, QCDQ, QONNX, QOp);
- any other `onnx.*` / `qonnx.*` op is one node (`emit_op`): its present operands in
  operand-definition order (an absent optional one as the empty name, trailing ones
  dropped), every attribute, node name from its `NameLoc`, domain `com.microsoft` for
  onnxruntime's contrib ops and `qonnx.custom_op.general` for QONNX ops.
The function's results become the graph outputs named by their `onnx.name` attribute: the
value computing one is renamed to it, or (a graph input, an initializer, a value returned
twice) copied by an `Identity` node."""

from collections.abc import Sequence

import numpy as np
import onnx
from onnx import helper
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, NameLoc, StringAttr, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue

from bitfold.backends.onnx.attributes import encode_attribute
from bitfold.backends.onnx.errors import ExportError
from bitfold.backends.onnx.types import make_tensor, tensor_code, value_info
from bitfold.dialects.onnx.base import ONNX_NAME
from bitfold.dialects.onnx.constant import ConstantOp, dense_to_numpy
from bitfold.dialects.onnx.contrib import ContribOp
from bitfold.dialects.qonnx import TruncV1Op

QONNX_DOMAIN = "qonnx.custom_op.general"
"""The domain QONNX ops are written in (qonnx's own)."""

CONTRIB_DOMAIN = "com.microsoft"


def location_name(op: Operation) -> str | None:
    """The op's ONNX node name (a non-empty `NameLoc`), else None (ONNX allows unnamed nodes)."""
    if isinstance(op.location, NameLoc) and op.location.desc.data:
        return op.location.desc.data
    return None


def op_label(op: Operation) -> str:
    """How errors name an op: its node name (`NameLoc`), else its op name and first result."""
    if (node := location_name(op)) is not None:
        return f"node '{node}'"
    result = op.results[0].name_hint if op.results and op.results[0].name_hint else "?"
    return f"'{op.name}' computing '%{result}'"


class GraphBuilder:
    """The parts of an ONNX graph under construction: nodes in order, initializers, the
    ONNX element type of every named value, the versions custom domains need, and the
    names taken."""

    def __init__(self, reserved: Sequence[str]):
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.codes: dict[str, int] = {}
        self.domains: dict[str, int] = {}
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.used: set[str] = set(reserved)
        self.node_names: set[str] = set()

    def fresh(self, hint: str | None, used: set[str] | None = None) -> str:
        """`hint` (default "v"), or with the first free suffix `_1`, `_2`, ... (and taken)."""
        used = self.used if used is None else used
        base = hint or "v"
        name, index = base, 0
        while name in used:
            index += 1
            name = f"{base}_{index}"
        used.add(name)
        return name

    def initializer(self, hint: str, array: np.ndarray, code: int) -> str:
        """A new initializer of ONNX type `code`; returns its name."""
        name = self.fresh(hint)
        self.initializers.append(make_tensor(name, np.asarray(array), code))
        self.codes[name] = code
        return name

    def value_infos(self, excluded: set[str]) -> list[onnx.ValueInfoProto]:
        """The type of every node output of known shape not in `excluded` (graph outputs):
        QONNX's executor needs every shape, and onnx cannot infer them through QONNX ops."""
        return [helper.make_tensor_value_info(name, self.codes[name], self.shapes[name])
                for node in self.nodes for name in node.output if name in self.shapes and name not in excluded]

    def node(self, op_type: str, inputs: Sequence[str], output_codes: Sequence[int], name: str,
             domain: str = "", attributes: Sequence[onnx.AttributeProto] = (),
             output_hints: Sequence[str | None] = ()) -> list[str]:
        """Append a node; returns its output names (fresh, from `output_hints` else the node
        name). Trailing empty inputs are dropped."""
        inputs = list(inputs)
        while inputs and not inputs[-1]:
            inputs.pop()
        hints = list(output_hints) or [name] * len(output_codes)
        outputs = [self.fresh(hint) for hint in hints]
        for output, code in zip(outputs, output_codes, strict=True):
            self.codes[output] = code
        node = helper.make_node(op_type, inputs, outputs, name=self.fresh(name, self.node_names), domain=domain)
        node.attribute.extend(attributes)
        self.nodes.append(node)
        return outputs


def _onnx_name(attributes: ArrayAttr | None, index: int) -> str | None:
    if attributes is None:
        return None
    entry = attributes.data[index]
    assert isinstance(entry, DictionaryAttr)
    name = entry.data.get(ONNX_NAME)
    return name.data if isinstance(name, StringAttr) else None


class GraphEmitter:
    """Emits one function as an ONNX graph (see the module docstring); `form` writes the
    quant ops."""

    def __init__(self, function: func.FuncOp, form: "QuantForm", minimum_opset: int):
        self.function = function
        self.form = form
        self.minimum_opset = minimum_opset
        """The lowest ai.onnx opset the model is written at (a node may need a higher one)."""
        self.block = function.body.blocks[0]
        self.input_names = [_onnx_name(function.arg_attrs, i) or f"input_{i}" for i in range(len(self.block.args))]
        returned = self.block.last_op
        assert isinstance(returned, func.ReturnOp)
        self.returned = list(returned.arguments)
        self.output_names = [_onnx_name(function.res_attrs, i) or f"output_{i}" for i in range(len(self.returned))]
        self.builder = GraphBuilder([*self.input_names, *self.output_names])
        self.names: dict[SSAValue, str] = {}
        self.trunc_versions: set[int] = set()
        for argument, name in zip(self.block.args, self.input_names, strict=True):
            self.names[argument] = name
            self.builder.codes[name] = tensor_code(_element(argument.type), f"input '{name}'")

    # -- naming -------------------------------------------------------------------------

    def name(self, value: SSAValue) -> str:
        """The ONNX name of `value`, emitting its producer first if needed."""
        if value not in self.names:
            owner = value.owner
            assert not isinstance(owner, Block), "every argument is named up front"
            if isinstance(owner, ConstantOp):
                self.names[value] = self.constant(owner, dense_to_numpy(owner.value), tensor_code(_element(value.type), op_label(owner)))
            else:
                self.form.emit(self, owner)
            if value not in self.names:
                raise ExportError(f"{self.form.name}: no ONNX value computes result of {op_label(owner)}")
        return self.names[value]

    def define(self, value: SSAValue, name: str) -> None:
        """Record that the ONNX value `name` holds `value`."""
        self.names[value] = name
        if isinstance(value.type, TensorType):
            self.builder.shapes.setdefault(name, tuple(value.type.get_shape()))

    def constant(self, op: ConstantOp, array: np.ndarray, code: int) -> str:
        """An initializer holding a constant's values as ONNX type `code`, named after it."""
        hint = location_name(op) or op.output.name_hint
        return self.builder.initializer(hint or "constant", array, code)

    def node_name(self, op: Operation, suffix: str = "") -> str:
        """The node name for what `op` becomes: its `NameLoc` (plus `suffix` for a second
        node), else its result's name and the suffix."""
        if (node := location_name(op)) is not None:
            return node + suffix
        return (op.results[0].name_hint or "node") + (suffix or f"_{op.name.split('.')[-1]}")

    # -- generic onnx.* / qonnx.* ops -----------------------------------------------------

    def emit_op(self, op: Operation, result_codes: Sequence[int] | None = None,
                inputs_named: dict[SSAValue, str] | None = None) -> None:
        """`op` as one node of its op type (see the module docstring); `result_codes` (one per
        present result) replaces the results' own element types, `inputs_named` the names
        of the given operands."""
        dialect, _, op_type = op.name.partition(".")
        if dialect == "qonnx":
            domain = QONNX_DOMAIN
            if isinstance(op, TruncV1Op) or op_type == "Trunc":
                self.require_trunc(1 if isinstance(op, TruncV1Op) else 2, op)
            else:
                self.require_domain(domain, 1)
            op_type = op_type.removesuffix("_v1")
        elif dialect == "onnx":
            domain = CONTRIB_DOMAIN if isinstance(op, ContribOp) else ""
            if domain:
                self.require_domain(domain, 1)
        else:
            raise ExportError(f"{self.form.name}: no ONNX node for '{op.name}' at {op_label(op)}")
        definition = type(op).get_irdl_definition()
        inputs: list[str] = []
        for operand_name, _ in definition.operands:
            value = getattr(op, operand_name)
            if value is None:
                inputs.append("")
            elif isinstance(value, SSAValue):
                inputs.append((inputs_named or {}).get(value) or self.name(value))
            else:
                inputs.extend((inputs_named or {}).get(v) or self.name(v) for v in value)
        results: list[SSAValue | None] = []
        for result_name, _ in definition.results:
            value = getattr(op, result_name)
            results.extend([value] if value is None or isinstance(value, SSAValue) else value)
        where = op_label(op)
        attributes = self.attributes(op)
        present = [r for r in results if r is not None]
        codes = result_codes or [tensor_code(_element(r.type), where) for r in present]
        names = self.builder.node(
            op_type, inputs, codes, self.node_name(op),
            domain, attributes, [r.name_hint or self.node_name(op) for r in present],
        )
        outputs = iter(names)
        node = self.builder.nodes[-1]
        node.ClearField("output")
        for result in results:
            if result is None:
                node.output.append("")
            else:
                self.define(result, next(outputs))
                node.output.append(self.names[result])
        while node.output and not node.output[-1]:
            node.output.pop()

    def attributes(self, op: Operation) -> list[onnx.AttributeProto]:
        """The op's ONNX attributes, encoded back (`attributes.encode_attribute`)."""
        return [encode_attribute(name, value, op_label(op)) for name, value in op.attributes.items()]

    def require_domain(self, domain: str, version: int) -> None:
        """Import `domain` at `version` at least."""
        self.builder.domains[domain] = max(self.builder.domains.get(domain, version), version)

    def require_trunc(self, version: int, op: Operation) -> None:
        """Import the QONNX domain at `version` for a Trunc node of that version (`op` writes
        it); the domain's opset picks Trunc's version, so v1 and v2 cannot share a model."""
        if others := self.trunc_versions - {version}:
            raise ExportError(f"{self.form.name}: Trunc v{version} at {op_label(op)} in a model that also needs Trunc "
                              f"v{min(others)} (one QONNX opset holds one Trunc version)")
        self.trunc_versions.add(version)
        self.require_domain(QONNX_DOMAIN, version)

    # -- the graph ----------------------------------------------------------------------

    def emit(self) -> onnx.GraphProto:
        """The graph of the function."""
        names = [self.name(value) for value in self.returned]
        produced = {o for node in self.builder.nodes for o in node.output}
        renamed: dict[str, str] = {}
        for index, (value, name, wanted) in enumerate(zip(self.returned, names, self.output_names, strict=True)):
            if name == wanted:
                continue
            if name in produced and name not in renamed and name not in names[:index]:
                renamed[name] = wanted
            else:
                node_name = self.builder.fresh(f"{wanted}_Identity", self.builder.node_names)
                self.builder.nodes.append(helper.make_node("Identity", [name], [wanted], name=node_name))
            self.builder.codes[wanted] = self.builder.codes[name]
        for node in self.builder.nodes:
            node.input[:] = [renamed.get(i, i) for i in node.input]
            node.output[:] = [renamed.get(o, o) for o in node.output]
        inputs = [value_info(n, a.type, f"input '{n}'") for n, a in zip(self.input_names, self.block.args, strict=True)]
        outputs = [value_info(n, v.type, f"output '{n}'") for n, v in zip(self.output_names, self.returned, strict=True)]
        value_infos = self.builder.value_infos(set(self.output_names) | set(renamed))
        return helper.make_graph(self.builder.nodes, self.function.sym_name.data, inputs, outputs,
                                 self.builder.initializers, value_info=value_infos)


def _element(value_type: Attribute) -> Attribute:
    assert isinstance(value_type, TensorType), f"ONNX values are ranked tensors, got {value_type}"
    return value_type.get_element_type()


class QuantForm:
    """How one ONNX quantization form writes the quant ops (subclasses: `qdq`, `qcdq`,
    `qonnx`, `qop`): `emit` defines the results of the op it is given, asking the emitter
    for the names of its operands. `minimum_opset` is the lowest ai.onnx opset the form is
    written at (raised when a node needs more)."""

    name = "onnx"
    minimum_opset = 13

    def emit(self, emitter: GraphEmitter, op: Operation) -> None:
        emitter.emit_op(op)
