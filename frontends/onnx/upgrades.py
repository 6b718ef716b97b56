"""Older ONNX node forms rewritten to the newest signature, which the onnx dialect's ops have.

Where an attribute became an input, its value becomes a constant input (the graph walk makes
it an `onnx.Constant`); an absent attribute stays an absent input, which means the same:
- Clip before opset 11: `min`, `max` -> inputs 1, 2 (of the input's element type);
- Squeeze, Unsqueeze before 13: `axes` -> input 1 (int64);
- Pad before 11: `pads` (`paddings` in opset 1) -> input 1 (int64), `value` -> input 2
  (`constant_value`, of the input's element type);
- Slice before 10: `starts`, `ends`, `axes` -> inputs 1, 2, 3 (int64); Split before 13:
  `split` -> input 1 (int64);
- ReduceSum before 13, the other Reduce ops before 18: `axes` -> input 1 (int64);
- Resize 10 `(X, scales)` and Upsample 7 to 9 (`scales` an attribute before 9) become
  Resize `(X, roi = absent, scales)` with `coordinate_transformation_mode = "asymmetric"` and
  `nearest_mode = "floor"`: the output pixel `y` samples the input at `y / scale`, as these
  opsets define it;
- Constant's `value_float(s)` / `value_int(s)` -> `value` (a float32 / int64 tensor).
"""

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import helper, numpy_helper

from bitfold.frontends import FrontendError
from bitfold.frontends.onnx.domains import ONNX_DOMAIN, canonical_domain, node_label

SAME_AS_INPUT = None
"""Marks a new input whose element type is the node's first input's."""

REDUCE_OPS_AXES_INPUT_SINCE = {
    "ReduceSum": 13,
    **dict.fromkeys(
        ["ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
         "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"],
        18,
    ),
}

ATTRIBUTES_TO_INPUTS: dict[str, tuple[int, list[tuple[str, int, type | None]]]] = {
    "Clip": (11, [("min", 1, SAME_AS_INPUT), ("max", 2, SAME_AS_INPUT)]),
    "Squeeze": (13, [("axes", 1, np.int64)]),
    "Unsqueeze": (13, [("axes", 1, np.int64)]),
    "Pad": (11, [("pads", 1, np.int64), ("value", 2, SAME_AS_INPUT)]),
    "Slice": (10, [("starts", 1, np.int64), ("ends", 2, np.int64), ("axes", 3, np.int64)]),
    "Split": (13, [("split", 1, np.int64)]),
    **{op: (since, [("axes", 1, np.int64)]) for op, since in REDUCE_OPS_AXES_INPUT_SINCE.items()},
}
"""op type -> (opset from which the attributes are inputs, [(attribute, input index, dtype)])."""

CONSTANT_VALUE_ATTRIBUTES = {
    "value_float": np.float32, "value_floats": np.float32, "value_int": np.int64, "value_ints": np.int64,
}


@dataclass
class Upgraded:
    """A node in its newest form, the values of the constant inputs it gained, and the
    ai.onnx opset whose schema describes its form."""

    node: onnx.NodeProto
    opset: int
    constants: dict[str, np.ndarray] = field(default_factory=dict)


def _attributes(node: onnx.NodeProto) -> dict[str, onnx.AttributeProto]:
    return {a.name: a for a in node.attribute}


def _with(node: onnx.NodeProto, op_type: str, inputs: list[str], attributes: list[onnx.AttributeProto]) -> onnx.NodeProto:
    """A copy of `node` with another op type, inputs and attributes."""
    upgraded = onnx.NodeProto()
    upgraded.CopyFrom(node)
    upgraded.op_type = op_type
    del upgraded.input[:], upgraded.attribute[:]
    upgraded.input.extend(inputs)
    upgraded.attribute.extend(attributes)
    return upgraded


def _constant_name(node: onnx.NodeProto, role: str) -> str:
    """A value name for a constant input: unique, since the node's first output name is."""
    return f"{node.output[0]}.{role}"


def _attributes_to_inputs(node: onnx.NodeProto, rules, input_dtype: Callable[[str], np.dtype], opset: int) -> Upgraded:
    attributes = _attributes(node)
    if node.op_type == "Pad" and "paddings" in attributes:  # Pad-1's name for `pads`
        attributes["pads"] = attributes.pop("paddings")
    inputs = list(node.input)
    constants = {}
    for name, index, dtype in rules:
        if name not in attributes:
            continue
        value = helper.get_attribute_value(attributes.pop(name))
        name_of_value = _constant_name(node, name)
        constants[name_of_value] = np.array(value, dtype=dtype or input_dtype(node.input[0]))
        inputs.extend([""] * (index + 1 - len(inputs)))
        inputs[index] = name_of_value
    return Upgraded(_with(node, node.op_type, inputs, list(attributes.values())), opset, constants)


def _to_resize(node: onnx.NodeProto, scales_name: str, mode: onnx.AttributeProto | None) -> onnx.NodeProto:
    attributes = [
        helper.make_attribute("coordinate_transformation_mode", "asymmetric"),
        helper.make_attribute("nearest_mode", "floor"),
    ]
    if mode is not None:
        attributes.append(mode)
    return _with(node, "Resize", [node.input[0], "", scales_name], attributes)


def _upgrade_resize(node: onnx.NodeProto, opset: int) -> Upgraded:
    """Resize 10, Upsample 7 to 9 -> Resize (module docstring)."""
    attributes = _attributes(node)
    if node.op_type == "Upsample" and opset < 7:
        raise FrontendError(f"unsupported op 'Upsample' before opset 7 at {node_label(node)}")
    newest = onnx.defs.onnx_opset_version()
    if "scales" in attributes:  # Upsample 7, 8
        name = _constant_name(node, "scales")
        scales = np.array(helper.get_attribute_value(attributes["scales"]), dtype=np.float32)
        return Upgraded(_to_resize(node, name, attributes.get("mode")), newest, {name: scales})
    return Upgraded(_to_resize(node, node.input[1], attributes.get("mode")), newest)


def _upgrade_constant(node: onnx.NodeProto, opset: int) -> Upgraded:
    attributes = _attributes(node)
    for name, dtype in CONSTANT_VALUE_ATTRIBUTES.items():
        if name in attributes:
            value = np.array(helper.get_attribute_value(attributes[name]), dtype=dtype)
            tensor = helper.make_attribute("value", numpy_helper.from_array(value))
            return Upgraded(_with(node, "Constant", [], [tensor]), opset)
    if "value" not in attributes:
        kind = ", ".join(attributes) or "no value"
        raise FrontendError(f"unsupported Constant ({kind}) at {node_label(node)}")
    return Upgraded(node, opset)


def upgrade(node: onnx.NodeProto, opset: int, input_dtype: Callable[[str], np.dtype]) -> Upgraded:
    """`node` (read at ai.onnx `opset`) in the newest form; `input_dtype(name)` gives a
    value's numpy element type. Nodes of other domains are returned as they are."""
    if canonical_domain(node.domain) != ONNX_DOMAIN:
        return Upgraded(node, opset)
    if node.op_type == "Upsample" or (node.op_type == "Resize" and opset < 11):
        return _upgrade_resize(node, opset)
    if node.op_type == "Constant":
        return _upgrade_constant(node, opset)
    if node.op_type in ATTRIBUTES_TO_INPUTS:
        since, rules = ATTRIBUTES_TO_INPUTS[node.op_type]
        if opset < since:
            return _attributes_to_inputs(node, rules, input_dtype, onnx.defs.onnx_opset_version())
    return Upgraded(node, opset)
