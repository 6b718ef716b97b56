"""Which op class imports an ONNX node: its domain, the model's opset of that domain, and its
op type. Standard ONNX ops and onnxruntime's contrib ops (com.microsoft) become
`onnx.<OpType>` ops, QONNX ops the `qonnx` dialect's."""

from dataclasses import dataclass
from functools import cache

import onnx
from xdsl.ir import Attribute, Operation

from bitfold.frontends import FrontendError
from bitfold.frontends.onnx.attributes import convert_attribute, schema_defaults

ONNX_DOMAIN = "ai.onnx"
"""The standard domain (`""` in a model is the same domain)."""

CONTRIB_DOMAIN = "com.microsoft"
"""onnxruntime's contrib ops (its QOperator quantizer's QGemm, QLinearAdd, ...)."""

CONTRIB_STANDARD_OPS = ("QuantizeLinear", "DequantizeLinear")
"""com.microsoft ops that are the standard op of the same name (imported as the newest)."""

QONNX_DOMAINS = ("qonnx.custom_op.general", "onnx.brevitas", "finn.custom_op.general")
"""Domains QONNX's Quant, BipolarQuant and Trunc are exported under."""

def canonical_domain(domain: str) -> str:
    return ONNX_DOMAIN if domain in ("", ONNX_DOMAIN) else domain


def node_label(node: onnx.NodeProto) -> str:
    """How errors name a node: its name, else its first output."""
    return f"node '{node.name}'" if node.name else f"the node computing '{node.output[0]}'"


@dataclass(frozen=True)
class Opsets:
    """The model's opset version of each domain it imports."""

    versions: dict[str, int]

    @staticmethod
    def of(model: onnx.ModelProto, label: str) -> "Opsets":
        """Read `opset_import`; an ai.onnx version this onnx does not know is an error (onnx's
        checker has made sure every domain a node uses is imported)."""
        versions = {canonical_domain(o.domain): o.version for o in model.opset_import}
        newest = onnx.defs.onnx_opset_version()
        onnx_version = versions.get(ONNX_DOMAIN)
        if onnx_version is not None and not 1 <= onnx_version <= newest:
            raise FrontendError(
                f"{label}: unsupported version {onnx_version} of domain '{ONNX_DOMAIN}' (known: 1 to {newest})"
            )
        return Opsets(versions)

    @property
    def onnx(self) -> int:
        """The model's ai.onnx opset (0 when it uses no standard op)."""
        return self.versions.get(ONNX_DOMAIN, 0)


QONNX_DEFAULT_VERSION = 1
"""The qonnx domain version qonnx assumes when a model does not import the domain
(`qonnx.util.basic.get_preferred_qonnx_opset`); the models qonnx ships rely on it."""


def import_missing_qonnx_domains(model: onnx.ModelProto) -> None:
    """Add an opset import of version 1 for each QONNX domain a node uses but the model does
    not import, as qonnx's executor assumes (onnx's checker rejects such a model)."""
    imported = {canonical_domain(o.domain) for o in model.opset_import}
    used = {node.domain for node in model.graph.node if node.domain in QONNX_DOMAINS}
    for domain in sorted(used - imported):
        model.opset_import.append(onnx.helper.make_opsetid(domain, QONNX_DEFAULT_VERSION))


def _unsupported(node: onnx.NodeProto) -> FrontendError:
    domain = canonical_domain(node.domain)
    return FrontendError(f"unsupported op '{node.op_type}' (domain '{domain}') at {node_label(node)}")


def declared_attributes(op_class: type[Operation]) -> list[str]:
    """The attribute names an IRDL op class declares, in declaration order."""
    return list(op_class.get_irdl_definition().attributes)  # pyright: ignore[reportAttributeAccessIssue]


@cache
def _onnx_op_classes() -> dict[str, type[Operation]]:
    from bitfold.dialects.onnx import Onnx

    return {op.name: op for op in Onnx.operations}


def _onnx_op(node: onnx.NodeProto, opset: int) -> tuple[type[Operation], dict[str, Attribute]]:
    op_class = _onnx_op_classes().get(f"onnx.{node.op_type}")
    if op_class is None:
        raise _unsupported(node)
    try:
        schemas = [onnx.defs.get_schema(node.op_type, opset), onnx.defs.get_schema(node.op_type)]
    except onnx.defs.SchemaError:
        raise FrontendError(
            f"op '{node.op_type}' does not exist in opset {opset} of domain '{ONNX_DOMAIN}' ({node_label(node)})"
        ) from None
    return op_class, schema_defaults(schemas, declared_attributes(op_class))


def _qonnx_op(node: onnx.NodeProto, opsets: Opsets) -> tuple[type[Operation], dict[str, Attribute]]:
    from bitfold.dialects.qonnx import op_class_for

    version = opsets.versions[node.domain]
    if version < 1:
        raise FrontendError(f"unsupported version {version} of domain '{node.domain}'")
    op_class = op_class_for(node.op_type, version)
    if op_class is None:
        raise _unsupported(node)
    return op_class, op_class.ATTRIBUTE_DEFAULTS


def _contrib_op(node: onnx.NodeProto, opsets: Opsets) -> tuple[type[Operation], dict[str, Attribute]]:
    from bitfold.dialects.onnx.contrib import op_class_for

    if node.op_type in CONTRIB_STANDARD_OPS:
        return _onnx_op(node, onnx.defs.onnx_opset_version())
    op_class = op_class_for(node.op_type, opsets.versions[CONTRIB_DOMAIN])
    if op_class is None:
        raise _unsupported(node)
    return op_class, op_class.ATTRIBUTE_DEFAULTS


def resolve_op(node: onnx.NodeProto, opsets: Opsets, onnx_opset: int) -> tuple[type[Operation], dict[str, Attribute]]:
    """The op class importing `node` and the defaults of its attributes. A standard node is
    in the form of ai.onnx opset `onnx_opset` (the model's, or the newest where the node was
    upgraded); its defaults are that opset's schema's, else (an attribute added since) the
    newest schema's. Other domains' defaults are their op class's `ATTRIBUTE_DEFAULTS`."""
    domain = canonical_domain(node.domain)
    if domain == ONNX_DOMAIN:
        return _onnx_op(node, onnx_opset)
    if domain in QONNX_DOMAINS:
        return _qonnx_op(node, opsets)
    if domain == CONTRIB_DOMAIN:
        return _contrib_op(node, opsets)
    raise _unsupported(node)


def node_attributes(node: onnx.NodeProto, op_class: type[Operation], defaults: dict[str, Attribute], label: str) -> dict[str, Attribute]:
    """The node's attributes (converted) and the `defaults` of the others, in the op class's
    declaration order; an attribute the class does not declare is an error."""
    where = f"at {node_label(node)}"
    declared = declared_attributes(op_class)
    given = {}
    for attribute in node.attribute:
        if attribute.name not in declared:
            raise FrontendError(f"{label}: unsupported attribute '{attribute.name}' of '{node.op_type}' {where}")
        given[attribute.name] = convert_attribute(attribute, where)
    values = {**defaults, **given}
    return {name: values[name] for name in declared if name in values}
