"""`runtime=onnxruntime`: an exported QDQ, QCDQ or QOp model rewritten, exactly, into the form that
onnxruntime's default session computes right on every x86 CPU.

onnxruntime's u8 x s8 integer kernels (QLinearConv, QLinearMatMul, MatMulInteger, ConvInteger and
its QDQ fusions into them) saturate 16-bit pair sums on x86 CPUs without VNNI; its documentation
advises int8 activations there (S8S8), whose kernels are exact. Its default graph optimizations
also fuse a 4-bit activation's DequantizeLinear -> Conv -> QuantizeLinear into a QLinearConv, which
has no 4-bit kernel (the session refuses the model). Two exact rewrites avoid both:

1. Narrow to 8 bits: every int4/uint4/int2/uint2 tensor is held in int8/uint8, with the same
   values: a 4- or 2-bit initializer is widened; a QuantizeLinear to n < 8 bits quantizes to the
   8-bit type of its signedness and is followed by `Clip(q, lo, hi)` with the n-bit range
   (`clamp(clamp(round(x / s) + zp, 8-bit), lo, hi) = clamp(round(x / s) + zp, lo, hi)`, as QCDQ).
2. Shift uint8 to int8: every uint8 tensor q becomes int8 q' = q - 128 (the same bits with the top
   one flipped); zero points shift with it, z' = z - 128, and the scale stays, so every
   (q - z) * s, hence every dequantized value, every integer op's result and every
   QuantizeLinear's `clamp(round(x / s) + z, 0, 255) - 128 = clamp(round(x / s) + z', -128, 127)`
   is unchanged. An absent uint8 zero point (0) becomes an int8 one of -128. Data movement and
   MaxPool commute with the shift; Clip bounds and Pad values shift with their data.

The model's interface keeps its types: a graph input or output of a rewritten type is converted at
the boundary, exactly (`Cast` between 4- and 8-bit; between uint8 and int8, DequantizeLinear with
scale 1 then QuantizeLinear with scale 1, integer-valued floats in [-128, 255]). A uint8 or 4-bit
value used by an op whose result the shift or the widening would change (`Add` on integers, `Cast`
to float, ...) has no exact rewrite: `ExportError` names the node.
"""

from collections.abc import Iterator

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from bitfold.backends.onnx.errors import ExportError
from bitfold.backends.onnx.types import make_tensor

RUNTIMES = ("reference", "onnxruntime")
"""What `runtime=` takes: `reference` writes the form as it is (onnx's reference semantics),
`onnxruntime` rewrites it (module docstring)."""

WIDENED = {TensorProto.INT4: TensorProto.INT8, TensorProto.INT2: TensorProto.INT8,
           TensorProto.UINT4: TensorProto.UINT8, TensorProto.UINT2: TensorProto.UINT8}
"""Rewrite 1: the 8-bit type holding each narrow type."""

NARROW_RANGES = {TensorProto.INT4: (-8, 7), TensorProto.INT2: (-2, 1), TensorProto.UINT4: (0, 15), TensorProto.UINT2: (0, 3)}

SHIFT = 128
"""Rewrite 2: q' = q - SHIFT."""

ZERO_POINT_INPUTS = {"QuantizeLinear": {2: 0}, "DequantizeLinear": {2: 0}, "MatMulInteger": {2: 0, 3: 1},
                     "ConvInteger": {2: 0, 3: 1}, "QLinearConv": {2: 0, 5: 3, 7: "y"},
                     "QLinearMatMul": {2: 0, 5: 3, 7: "y"}}
"""Per op type: the optional zero point inputs, by index, and the input they belong to (or "y":
the output's). An absent one is 0 of its data's type."""

MOVING = {"Identity", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Concat", "Split", "Slice",
          "Gather", "GatherElements", "GatherND", "Expand", "Tile", "DepthToSpace", "SpaceToDepth", "MaxPool",
          "Pad", "Clip", "Resize", "Max", "Min", "ReduceMax", "ReduceMin", "Where", "ScatterND", "ScatterElements"}
"""Ops on integer tensors that commute with the shift and the widening: they move, select or
compare values (Clip's bounds and Pad's value are integer inputs of the same type, rewritten
with the data). Resize is in the set for its nearest mode only (checked)."""

QUANTIZED_OPS = set(ZERO_POINT_INPUTS)


def _types(model: onnx.ModelProto) -> dict[str, int]:
    """The element type of every named tensor: initializers, graph inputs and outputs, value
    infos, and (shape inference) the outputs of standard nodes."""
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False)
    graph = inferred.graph
    types = {t.name: t.data_type for t in graph.initializer}
    for info in (*graph.input, *graph.output, *graph.value_info):
        if info.type.HasField("tensor_type") and info.type.tensor_type.elem_type:
            types.setdefault(info.name, info.type.tensor_type.elem_type)
    return types


def _label(node: onnx.NodeProto) -> str:
    return f"node '{node.name}' ({node.op_type})" if node.name else f"a {node.op_type} node computing '{node.output[0]}'"


def _new_type(code: int) -> int:
    """The type a tensor of `code` is held in after both rewrites."""
    code = WIDENED.get(code, code)
    return TensorProto.INT8 if code == TensorProto.UINT8 else code


def _rewritten_array(array: np.ndarray, code: int) -> np.ndarray:
    """An initializer's values after both rewrites (widened values are the same integers)."""
    return array.astype(np.int64) - SHIFT if WIDENED.get(code, code) == TensorProto.UINT8 else array


class OnnxruntimeRewrite:
    """Applies the rewrites to one model in place (module docstring)."""

    def __init__(self, model: onnx.ModelProto):
        self.model = model
        self.graph = model.graph
        self.types = _types(model)
        self.used = set(self.types) | {o for n in self.graph.node for o in n.output} | {n.name for n in self.graph.node}
        self.changed = {name for name, code in self.types.items() if _new_type(code) != code}

    def fresh(self, hint: str) -> str:
        name, index = hint, 0
        while name in self.used:
            index += 1
            name = f"{hint}_{index}"
        self.used.add(name)
        return name

    def constant(self, hint: str, values, code: int) -> str:
        name = self.fresh(hint)
        self.graph.initializer.append(make_tensor(name, np.asarray(values), code))
        return name

    # -- checks -------------------------------------------------------------------------

    def check(self, node: onnx.NodeProto) -> None:
        """Refuse a node on a rewritten tensor that does not commute with the rewrites."""
        touched = [name for name in (*node.input, *node.output) if name in self.changed]
        if not touched:
            return
        nearest = node.op_type != "Resize" or all(
            a.name != "mode" or helper.get_attribute_value(a) in (b"nearest", "nearest") for a in node.attribute)
        if node.domain not in ("", "ai.onnx") or node.op_type not in QUANTIZED_OPS | MOVING or not nearest:
            raise ExportError(f"runtime=onnxruntime: no exact int8 rewrite of {_label(node)} on the "
                              f"{TensorProto.DataType.Name(self.types[touched[0]])} tensor '{touched[0]}' "
                              "(write it without runtime=onnxruntime)")

    # -- the rewrites -------------------------------------------------------------------

    def initializers(self) -> None:
        """Every changed initializer holds its rewritten values in its new type."""
        for index, tensor in enumerate(self.graph.initializer):
            if tensor.name in self.changed:
                array = numpy_helper.to_array(tensor)
                self.graph.initializer[index].CopyFrom(
                    make_tensor(tensor.name, _rewritten_array(array, tensor.data_type), _new_type(tensor.data_type)))

    def absent_zero_points(self, node: onnx.NodeProto) -> None:
        """A uint8 tensor's absent zero point becomes an explicit one of -128 (int8)."""
        for index, owner in ZERO_POINT_INPUTS.get(node.op_type, {}).items():
            if len(node.input) > index and node.input[index]:
                continue
            data = node.output[0] if owner == "y" or node.op_type == "QuantizeLinear" else node.input[owner]
            code = self.types.get(data)
            if node.op_type == "QuantizeLinear" and code is None:
                code = TensorProto.UINT8  # no zero point, no output_dtype: uint8
            if code is None or WIDENED.get(code, code) != TensorProto.UINT8:
                continue
            while len(node.input) < index:
                node.input.append("")
            zero_point = self.constant(f"{node.name or data}_zero_point", np.array(-SHIFT), TensorProto.INT8)
            if len(node.input) == index:
                node.input.append(zero_point)
            else:
                node.input[index] = zero_point

    def narrow_quantize(self, node: onnx.NodeProto) -> Iterator[onnx.NodeProto]:
        """A QuantizeLinear to a 4- or 2-bit type, then the Clip to that range (rewrite 1)."""
        output = node.output[0]
        code = self.types.get(output)
        for attribute in node.attribute:
            if attribute.name == "output_dtype" and attribute.i:
                attribute.i = _new_type(attribute.i)
        yield node
        if code not in NARROW_RANGES:
            return
        held = self.fresh(f"{output}_8bit")
        node.output[0] = held
        shift = SHIFT if WIDENED[code] == TensorProto.UINT8 else 0
        bounds = [self.constant(f"{output}_{which}", np.array(value - shift), _new_type(code))
                  for which, value in zip(("min", "max"), NARROW_RANGES[code], strict=True)]
        name = self.fresh(f"{node.name or output}_Clip")
        yield helper.make_node("Clip", [held, *bounds], [output], name=name)

    def interface(self) -> tuple[list[onnx.NodeProto], list[onnx.NodeProto]]:
        """Exact conversions of rewritten graph inputs (first nodes) and outputs (last nodes)."""
        first, last = [], []
        renamed: dict[str, str] = {}
        for info in self.graph.input:
            if info.name in self.changed:
                renamed[info.name] = self.fresh(f"{info.name}_for_onnxruntime")
                code = info.type.tensor_type.elem_type
                first += self.conversion(info.name, renamed[info.name], [code, WIDENED.get(code, code), _new_type(code)])
        for node in self.graph.node:
            node.input[:] = [renamed.get(i, i) for i in node.input]
        for info in self.graph.output:
            if info.name in self.changed:
                inner = self.fresh(f"{info.name}_for_onnxruntime")
                for node in self.graph.node:
                    node.output[:] = [inner if o == info.name else o for o in node.output]
                    node.input[:] = [inner if i == info.name else i for i in node.input]
                code = info.type.tensor_type.elem_type
                last += self.conversion(inner, info.name, [_new_type(code), WIDENED.get(code, code), code])
        return first, last

    def conversion(self, source: str, target: str, codes: list[int]) -> list[onnx.NodeProto]:
        """Nodes taking `source` through the element types `codes` (equal neighbours skipped) to
        `target`, each step exact on the values it sees: a Cast between a 4-/2-bit type and
        its 8-bit one; between int8 and uint8, DequantizeLinear with scale 1 and the source's
        zero point (0 or 128), giving the integer as a float, then QuantizeLinear with scale 1
        and the target's zero point."""
        steps = [(a, b) for a, b in zip(codes, codes[1:], strict=False) if a != b]
        nodes: list[onnx.NodeProto] = []
        for index, (old, new) in enumerate(steps):
            output = target if index == len(steps) - 1 else self.fresh(f"{target}_{TensorProto.DataType.Name(new).lower()}")
            if {old, new} == {TensorProto.INT8, TensorProto.UINT8}:
                unit = self.constant(f"{target}_unit_scale", np.array(1.0, np.float32), TensorProto.FLOAT)
                zero_points = [self.constant(f"{target}_zero_point", np.array(SHIFT if c == TensorProto.UINT8 else 0), c)
                               for c in (old, new)]
                real = self.fresh(f"{target}_integer_values")
                nodes += [helper.make_node("DequantizeLinear", [source, unit, zero_points[0]], [real],
                                           name=self.fresh(f"{real}_DequantizeLinear")),
                          helper.make_node("QuantizeLinear", [real, unit, zero_points[1]], [output],
                                           name=self.fresh(f"{output}_QuantizeLinear"))]
            else:
                nodes.append(helper.make_node("Cast", [source], [output], to=new, name=self.fresh(f"{output}_Cast")))
            source = output
        return nodes

    def value_infos(self) -> None:
        for info in self.graph.value_info:
            if info.name in self.changed:
                info.type.tensor_type.elem_type = _new_type(info.type.tensor_type.elem_type)

    def apply(self) -> onnx.ModelProto:
        for node in self.graph.node:
            self.check(node)
        self.initializers()
        nodes: list[onnx.NodeProto] = []
        for node in self.graph.node:
            self.absent_zero_points(node)
            nodes += self.narrow_quantize(node) if node.op_type == "QuantizeLinear" else [node]
        self.graph.ClearField("node")
        self.graph.node.extend(nodes)
        first, last = self.interface()
        body = [onnx.NodeProto.FromString(node.SerializeToString()) for node in self.graph.node]
        self.graph.ClearField("node")
        self.graph.node.extend([*first, *body, *last])
        self.value_infos()
        return self.model


def for_onnxruntime(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model` (a written QDQ, QCDQ or QOp model) rewritten in place for onnxruntime (module docstring)."""
    return OnnxruntimeRewrite(model).apply()
