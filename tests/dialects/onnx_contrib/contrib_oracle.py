"""`onnx_node_oracle` for com.microsoft nodes: onnxruntime is the oracle, and bitfold's op is
built as the importer builds it, its class from `contrib.op_class_for` and the defaults of the
attributes a node omits from that class's `ATTRIBUTE_DEFAULTS`."""

import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
from xdsl.ir import Attribute

from bitfold.dialects.onnx import contrib

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "onnx_ops"))  # pytest puts only this folder there
import onnx_node_oracle


def contrib_defaults(node: onnx.NodeProto) -> dict[str, Attribute]:
    """What the importer fills for a com.microsoft node (domain opset 1)."""
    op_class = contrib.op_class_for(node.op_type, 1)
    assert op_class is onnx_node_oracle.OP_CLASSES[f"onnx.{node.op_type}"], node.op_type
    return op_class.ATTRIBUTE_DEFAULTS


def assert_exact(op_type: str, inputs: Sequence[np.ndarray | None], **attributes) -> None:
    """bitfold equals onnxruntime bit for bit, dtype and shape included."""
    onnx_node_oracle.assert_exact(op_type, inputs, domain=contrib.DOMAIN, defaults=contrib_defaults, **attributes)
