"""Shape computations on static shapes folded into initializers before the graph walk.

A PyTorch export carries the shapes it computes at run time as nodes (attention's
`Shape -> Gather -> Unsqueeze -> Concat -> Reshape`); with static input shapes every one of
them is a constant, and after folding no shape op is left in the imported IR.

A node folds when it is a standard op of `SHAPE_COMPUTATION_OPS`, every input is known (an
initializer, a Constant node or an output folded before it) and its outputs are shape data:
- `Shape` / `Size` of a value whose read dimensions are static (the input's data is not
  needed): the dimensions `[start:end]` (ONNX's clamping of negative and out-of-range bounds),
  the product of all dimensions;
- any other op: each output is int32, int64 or bool; or an input derives from a folded value
  and every input is shape data (int32, int64, bool, derived, or a scalar): a shape cast to
  float, scaled and floored back; `ConstantOfShape` always (its output is a fill value).
  Outputs have at most `MAX_FOLDED_ELEMENTS` elements, checked before evaluation for the ops
  that can grow (`GROWING_OPS`).
Quantization ops and float weight arithmetic never fold (the quant form reads them), nor do
integer weights of other types (int8, uint8, int4).

Each folded node is evaluated by onnx's reference evaluator (`onnx.reference`) alone, in the
model's opset, and its outputs become initializers; Constant nodes and initializers that only
folded nodes read are dropped. A `Shape` or `Size` left over reads a dimension that is not
static: one error line naming the node.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from bitfold.frontends import FrontendError
from bitfold.frontends.onnx.domains import ONNX_DOMAIN, canonical_domain, node_label

SHAPE_COMPUTATION_OPS = frozenset(
    "Shape Size ConstantOfShape Range Gather GatherElements GatherND Unsqueeze Squeeze Concat Slice Split Reshape "
    "Flatten Transpose Expand Tile Cast CastLike Identity Add Sub Mul Div Mod Neg Abs Sign Min Max Floor Ceil Round "
    "Sqrt Reciprocal Equal Less LessOrEqual Greater GreaterOrEqual Not And Or Xor Where ReduceProd ReduceSum "
    "ReduceMin ReduceMax ArgMax ArgMin NonZero Clip Pad".split()
)
"""The standard ops a shape computation is made of (ai.onnx op types)."""

SHAPE_SOURCES = frozenset({"Shape", "Size"})

SHAPE_DATA_TYPES = frozenset({onnx.TensorProto.INT32, onnx.TensorProto.INT64, onnx.TensorProto.BOOL})
"""Element types of shape data: a value of another type folds only when it derives from a shape."""

MAX_FOLDED_ELEMENTS = 1 << 16
"""Largest output a fold makes into an initializer (a mask or a shape, not a weight)."""

GROWING_OPS = frozenset({"ConstantOfShape", "Range", "Expand", "Tile", "Pad"})
"""Ops whose output may be far larger than their inputs: folded only when shape inference
gives their outputs static shapes of at most `MAX_FOLDED_ELEMENTS` elements (so a hostile
Range or ConstantOfShape is never evaluated)."""


def _static_dimensions(value_type: onnx.TypeProto | None) -> list[int | str] | None:
    """The dimensions of a tensor type (a number, or the symbol or '?' of a dynamic one);
    None for an unknown rank."""
    if _element_type(value_type) is None or not value_type.tensor_type.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in value_type.tensor_type.shape.dim]


def _attribute(node: onnx.NodeProto, name: str, default: int | None) -> int | None:
    return next((helper.get_attribute_value(a) for a in node.attribute if a.name == name), default)


def _shape_read(node: onnx.NodeProto, dimensions: list[int | str]) -> list[int | str]:
    """The dimensions `Shape` (`[start:end]`, negative bounds count from the end, clamped to
    the rank) or `Size` (all) reads."""
    if node.op_type == "Size":
        return dimensions
    rank = len(dimensions)
    start, end = _attribute(node, "start", 0), _attribute(node, "end", None)
    bounds = [None if b is None else min(max(b + rank if b < 0 else b, 0), rank) for b in (start, end)]
    return dimensions[slice(*bounds)]


def _small_static(value_type: onnx.TypeProto | None) -> bool:
    """Whether a tensor type has a static shape of at most `MAX_FOLDED_ELEMENTS` elements."""
    dimensions = _static_dimensions(value_type)
    if dimensions is None or not all(isinstance(d, int) for d in dimensions):
        return False
    return int(np.prod(dimensions, dtype=np.int64)) <= MAX_FOLDED_ELEMENTS


def _element_type(value_type: onnx.TypeProto | None) -> int | None:
    if value_type is None or value_type.WhichOneof("value") != "tensor_type":
        return None
    return value_type.tensor_type.elem_type or None


class ShapeFolder:
    """Folds the shape computations of one model (see the module docstring)."""

    def __init__(self, model: onnx.ModelProto, value_types: dict[str, onnx.TypeProto], label: str):
        self.model = model
        self.value_types = value_types
        self.label = label
        self.initializers = {t.name: t for t in model.graph.initializer}
        self.known: dict[str, np.ndarray] = {}
        self.shape_derived: set[str] = set()
        self.constant_nodes = {
            o: n for n in model.graph.node
            if n.op_type == "Constant" and canonical_domain(n.domain) == ONNX_DOMAIN for o in n.output
        }

    def _is_known(self, name: str) -> bool:
        return name in self.known or name in self.initializers or name in self.constant_nodes

    def known_value(self, name: str) -> np.ndarray:
        """The value of a known value (`_is_known`), read on first use."""
        if name not in self.known:
            if name in self.initializers:
                self.known[name] = numpy_helper.to_array(self.initializers[name])
            else:
                self.known[name] = self._evaluate(self.constant_nodes[name], [])[0]
        return self.known[name]

    def _evaluate(self, node: onnx.NodeProto, inputs: list[np.ndarray | None]) -> list[np.ndarray]:
        """The outputs of `node` alone on `inputs`, by onnx's reference evaluator."""
        names = [f"input_{i}" if name else "" for i, name in enumerate(node.input)]
        alone = onnx.NodeProto()
        alone.CopyFrom(node)
        del alone.input[:], alone.output[:]
        alone.input.extend(names)
        alone.output.extend(f"output_{i}" if name else "" for i, name in enumerate(node.output))
        feeds = {n: v for n, v in zip(names, inputs) if n}
        graph = helper.make_graph(
            [alone], "fold",
            [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
             for n, v in feeds.items()],
            [helper.make_empty_tensor_value_info(o) for o in alone.output if o],
        )
        model = helper.make_model(graph, opset_imports=list(self.model.opset_import), ir_version=self.model.ir_version)
        try:
            return [np.asarray(v) for v in ReferenceEvaluator(model).run(None, feeds)]
        except Exception as error:  # the reference evaluator raises whatever numpy raises
            reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise FrontendError(
                f"{self.label}: {node_label(node)} ({node.op_type}) on constant inputs cannot be evaluated: {reason}"
            ) from None

    def _shape_of(self, node: onnx.NodeProto) -> np.ndarray | None:
        """The value of a Shape / Size whose read dimensions are static, else None."""
        dimensions = _static_dimensions(self.value_types.get(node.input[0]))
        if dimensions is None:
            return None
        read = _shape_read(node, dimensions)
        if not all(isinstance(d, int) for d in read):
            return None
        return np.array(read if node.op_type == "Shape" else int(np.prod(read, dtype=np.int64)), dtype=np.int64)

    def _is_shape_data(self, name: str, value: np.ndarray) -> bool:
        """Whether a known input is shape data: of a shape data type, derived from a shape, or
        a scalar (a constant such as the 1 of `1 / sqrt(head size)`)."""
        dtype = helper.np_dtype_to_tensor_dtype(value.dtype)
        return dtype in SHAPE_DATA_TYPES or name in self.shape_derived or value.size <= 1

    def _may_fold(self, node: onnx.NodeProto, output_types: list[int | None]) -> bool:
        """Whether `node`, its inputs known, may compute shape data into outputs of
        `output_types` (None: unknown, decided on the values); the inputs' values are read
        only where an output is of another type."""
        if node.op_type == "ConstantOfShape" or all(t is None or t in SHAPE_DATA_TYPES for t in output_types):
            return True
        if not any(name in self.shape_derived for name in node.input):
            return False
        return all(self._is_shape_data(name, self.known_value(name)) for name in node.input if name)

    def _fold(self, node: onnx.NodeProto) -> list[np.ndarray] | None:
        """The values of `node`'s outputs when it folds, else None."""
        if node.op_type in SHAPE_SOURCES:
            shape = self._shape_of(node)
            return None if shape is None else [shape]
        if any(a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS) for a in node.attribute):
            return None
        if not all(self._is_known(name) for name in node.input if name):
            return None
        if node.op_type in GROWING_OPS and not all(_small_static(self.value_types.get(o)) for o in node.output if o):
            return None
        if not self._may_fold(node, [_element_type(self.value_types.get(o)) for o in node.output if o]):
            return None
        outputs = self._evaluate(node, [self.known_value(name) if name else None for name in node.input])
        if any(v.size > MAX_FOLDED_ELEMENTS for v in outputs):
            return None
        return outputs if self._may_fold(node, [helper.np_dtype_to_tensor_dtype(v.dtype) for v in outputs]) else None

    def fold(self) -> onnx.ModelProto:
        """The model with its shape computations as initializers (the input model when none)."""
        folded: list[onnx.NodeProto] = []
        kept: list[onnx.NodeProto] = []
        for node in self.model.graph.node:
            outputs = None
            if canonical_domain(node.domain) == ONNX_DOMAIN and node.op_type in SHAPE_COMPUTATION_OPS:
                outputs = self._fold(node)
            if outputs is None:
                kept.append(node)
                continue
            folded.append(node)
            for name, value in zip([o for o in node.output if o], outputs):
                self.known[name] = value
                self.shape_derived.add(name)
        if not folded:
            return self.model
        return self._rebuilt(kept, folded)

    def _rebuilt(self, kept: list[onnx.NodeProto], folded: list[onnx.NodeProto]) -> onnx.ModelProto:
        """The model with `kept` as its nodes, the folded values still read as initializers,
        and neither the Constant nodes nor the initializers only folded nodes read."""
        graph = self.model.graph
        read = {name for node in kept for name in node.input} | {o.name for o in graph.output}
        only_folds_read = {name for node in folded for name in node.input} - read - {i.name for i in graph.input}
        model = onnx.ModelProto()
        model.CopyFrom(self.model)
        del model.graph.node[:], model.graph.initializer[:]
        model.graph.node.extend(n for n in kept if n.op_type != "Constant" or not set(n.output) <= only_folds_read)
        model.graph.initializer.extend(t for t in graph.initializer if t.name not in only_folds_read)
        defined = {o for n in kept for o in n.output} | set(self.initializers)
        for name in sorted(read - defined):
            if name in self.shape_derived:
                model.graph.initializer.append(numpy_helper.from_array(self.known[name], name))
        return model


def check_static_shapes(model: onnx.ModelProto, value_types: dict[str, onnx.TypeProto], label: str) -> None:
    """A Shape or Size left after folding is an error naming the node and the dynamic dimension."""
    for node in model.graph.node:
        if canonical_domain(node.domain) == ONNX_DOMAIN and node.op_type in SHAPE_SOURCES:
            dimensions = _static_dimensions(value_types.get(node.input[0]))
            shown = "unknown rank" if dimensions is None else "x".join(map(str, dimensions))
            raise FrontendError(
                f"{label}: {node_label(node)} ({node.op_type}) reads the shape of '{node.input[0]}', "
                f"which is not static "
                f"({shown}): bitfold compiles static shapes (export the model with static input shapes)"
            )


def fold_shape_computations(model: onnx.ModelProto, value_types: dict[str, onnx.TypeProto],
                            label: str) -> onnx.ModelProto:
    """`model` with its shape computations folded into initializers (module docstring)."""
    return ShapeFolder(model, value_types, label).fold()
