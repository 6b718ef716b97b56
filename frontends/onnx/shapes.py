"""The type of every value of a model, from onnx's shape inference.

onnx does not know QONNX's ops, and its inference stops at them. Each of Quant, BipolarQuant
and Trunc returns a float tensor of its first input's type and shape, so inference runs on a
copy of the graph where every QONNX node is an `Identity` of its first input."""

import onnx
from onnx import helper, shape_inference

from bitfold.frontends import FrontendError
from bitfold.frontends.onnx.domains import QONNX_DOMAINS


def _with_qonnx_stand_ins(model: onnx.ModelProto) -> onnx.ModelProto:
    stand_in = onnx.ModelProto()
    stand_in.CopyFrom(model)
    for node in stand_in.graph.node:
        if node.domain in QONNX_DOMAINS:
            identity = helper.make_node("Identity", [node.input[0]], [node.output[0]], name=node.name)
            node.CopyFrom(identity)
    return stand_in


def infer_value_types(model: onnx.ModelProto, label: str) -> dict[str, onnx.TypeProto]:
    """Value name -> type, for graph inputs, outputs, initializers and node outputs whose type
    shape inference (with data propagation) finds or the model declares."""
    try:
        inferred = shape_inference.infer_shapes(_with_qonnx_stand_ins(model), data_prop=True)
    except (shape_inference.InferenceError, onnx.checker.ValidationError) as error:
        raise FrontendError(f"{label}: shape inference failed: {str(error).strip().splitlines()[0]}") from None
    graph = inferred.graph
    types = {t.name: helper.make_tensor_type_proto(t.data_type, t.dims) for t in graph.initializer}
    for value in [*graph.input, *graph.value_info, *graph.output]:
        if value.type.WhichOneof("value") is not None:
            types[value.name] = value.type
    return types
