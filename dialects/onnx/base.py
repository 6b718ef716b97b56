"""The shape every `onnx.*` op shares.

An `onnx.<OpType>` op is one ONNX node with ONNX's semantics:
- operands and results are named after the ONNX schema's inputs and outputs in snake_case
  (`X` -> `x`, `x_scale`, `B` -> `b`); optional inputs are `opt_operand_def` with
  `AttrSizedOperandSegments`, so an absent input in the middle stays absent;
- the signature is the newest opset's; the importer rewrites older forms (Clip's min/max
  attributes of opset 6 become operands, Squeeze's `axes` attribute becomes an operand, ...);
- every attribute the schema defines is present: the importer fills the schema's default for
  the model's opset. Encoding: INT -> `IntegerAttr` i64, FLOAT -> `FloatAttr` f32,
  STRING -> `StringAttr`, INTS -> `DenseArrayBase` i64, FLOATS -> `DenseArrayBase` f32,
  STRINGS -> `ArrayAttr[StringAttr]`, TENSOR -> `DenseIntOrFPElementsAttr`;
- the node's name is the op's location (`NameLoc`), so diagnostics can name it;
- `evaluate` is the op's numpy reference (see `bitfold.dialects.evaluation`).
"""

from collections.abc import Mapping, Sequence
from typing import ClassVar, TypeVar

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    NameLoc,
    StringAttr,
)
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation

from bitfold.dialects.evaluation import NumpyEvaluable, numpy_dtype_of

ONNX_NAME = "onnx.name"
"""Function argument / result attribute: the name the value has in the ONNX model."""

ONNX_OPSET = "onnx.opset"
"""Module attribute: the ai.onnx opset the imported model was written for (onnxruntime's
kernels change across opsets, e.g. AveragePool at 19; the exporters keep at least it)."""


_Default = TypeVar("_Default")


def ints_or(attributes: Mapping[str, Attribute], name: str, default: _Default) -> tuple[int, ...] | _Default:
    """An optional INTS attribute's values as a tuple, or `default` where it is absent."""
    attribute = attributes.get(name)
    if attribute is None:
        return default
    assert isinstance(attribute, DenseArrayBase)
    return tuple(attribute.get_values())


class OnnxOp(IRDLOperation, NumpyEvaluable):
    """Base of `onnx.*` ops: typed access to the ONNX attributes (always present)."""

    ATTRIBUTE_DEFAULTS: ClassVar[dict[str, Attribute]] = {}
    """The defaults the importer fills for the attributes a node omits, for ops of domains
    whose schemas onnx.defs lacks (com.microsoft, the qonnx domains), in the encoding above;
    standard ops take theirs from onnx.defs."""

    def int_attr(self, name: str) -> int:
        attr = self.attributes[name]
        assert isinstance(attr, IntegerAttr)
        return attr.value.data

    def float_attr(self, name: str) -> float:
        attr = self.attributes[name]
        assert isinstance(attr, FloatAttr)
        return attr.value.data

    def string_attr(self, name: str) -> str:
        attr = self.attributes[name]
        assert isinstance(attr, StringAttr)
        return attr.data

    def ints_attr(self, name: str) -> tuple[int, ...]:
        attr = self.attributes[name]
        assert isinstance(attr, DenseArrayBase)
        return tuple(attr.get_values())

    @property
    def node_name(self) -> str:
        """The ONNX node's name, or the op name when the node had none."""
        location = self.location
        return location.desc.data if isinstance(location, NameLoc) else self.name

    def result_array(self, values: np.ndarray) -> np.ndarray:
        """`values` as an array (never a numpy scalar) of the first result's element type."""
        return np.asarray(values).astype(numpy_dtype_of(self.results[0].type), copy=False)

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        raise NotImplementedError(f"{self.name} has no numpy reference yet")
