"""ONNX node attributes as xDSL attributes, with the schema's defaults filled in.

Encoding (`bitfold.dialects.onnx.base`): INT -> `IntegerAttr` i64, FLOAT -> `FloatAttr` f32,
STRING -> `StringAttr`, INTS -> `DenseArrayBase` i64, FLOATS -> `DenseArrayBase` f32,
STRINGS -> `ArrayAttr[StringAttr]`, TENSOR -> `DenseIntOrFPElementsAttr`.
"""

from collections.abc import Iterable

import onnx
from onnx import AttributeProto
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute

from bitfold.frontends import FrontendError
from bitfold.frontends.onnx.types import tensor_attr


def _text(data: bytes, name: str, where: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FrontendError(f"attribute '{name}' {where} is not UTF-8 text") from None


def convert_attribute(attribute: AttributeProto, where: str) -> Attribute:
    """One ONNX attribute in bitfold's encoding; `where` names the node for errors."""
    kind = attribute.type
    if kind == AttributeProto.INT:
        return IntegerAttr(attribute.i, i64)
    if kind == AttributeProto.FLOAT:
        return FloatAttr(attribute.f, Float32Type())
    if kind == AttributeProto.STRING:
        return StringAttr(_text(attribute.s, attribute.name, where))
    if kind == AttributeProto.INTS:
        return DenseArrayBase.from_list(i64, list(attribute.ints))
    if kind == AttributeProto.FLOATS:
        return DenseArrayBase.from_list(Float32Type(), list(attribute.floats))
    if kind == AttributeProto.STRINGS:
        return ArrayAttr(StringAttr(_text(s, attribute.name, where)) for s in attribute.strings)
    if kind == AttributeProto.TENSOR:
        return tensor_attr(attribute.t, f"attribute '{attribute.name}' {where}")
    kind_name = AttributeProto.AttributeType.Name(kind)
    raise FrontendError(f"unsupported attribute '{attribute.name}' of type {kind_name} {where}")


def schema_defaults(schemas: Iterable[onnx.defs.OpSchema], names: Iterable[str]) -> dict[str, Attribute]:
    """The default of each attribute in `names` from the first schema that defines one
    (attributes without a default are left out)."""
    defaults: dict[str, Attribute] = {}
    for name in names:
        for schema in schemas:
            declared = schema.attributes.get(name)
            if declared is not None and declared.default_value.name:
                defaults[name] = convert_attribute(declared.default_value, f"(default of '{schema.name}')")
                break
    return defaults
