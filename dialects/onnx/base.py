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

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    NameLoc,
    StringAttr,
)
from xdsl.irdl import IRDLOperation

from bitfold.dialects.evaluation import NumpyEvaluable


ONNX_NAME = "onnx.name"
"""Function argument / result attribute: the name the value has in the ONNX model."""

ONNX_OPSET = "onnx.opset"
"""Module attribute: the ai.onnx opset the imported model was written for (onnxruntime's
kernels change across opsets, e.g. AveragePool at 19; the exporters keep at least it)."""


class OnnxOp(IRDLOperation, NumpyEvaluable):
    """Base of `onnx.*` ops: typed access to the ONNX attributes (always present)."""

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

    def floats_attr(self, name: str) -> tuple[float, ...]:
        attr = self.attributes[name]
        assert isinstance(attr, DenseArrayBase)
        return tuple(attr.get_values())

    def strings_attr(self, name: str) -> tuple[str, ...]:
        attr = self.attributes[name]
        assert isinstance(attr, ArrayAttr)
        return tuple(s.data for s in attr)

    @property
    def node_name(self) -> str:
        """The ONNX node's name, or the op name when the node had none."""
        location = self.location
        return location.desc.data if isinstance(location, NameLoc) else self.name

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        raise NotImplementedError(f"{self.name} has no numpy reference yet")
