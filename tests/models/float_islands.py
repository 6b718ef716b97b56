"""QDQ models with float computation that has no integer form: float islands (docs/float-islands.md).

Each builder returns an `onnx.ModelProto` made with `onnx.helper`, weights from a fixed seed:

- `float_first_conv`: the float input goes unquantized into a Conv with float weights and bias
  (groups 1, pads 1, stride 2), then QuantizeLinear and a QDQ Conv + Relu layer;
- `accumulator_sigmoid`: a QDQ Conv whose output is not requantized feeds Sigmoid, then
  QuantizeLinear (Brevitas' QuantSigmoid after an unrequantized QuantConv): the i32 accumulator
  would need a table of billions of entries;
- `reduce_normalize`: between DequantizeLinear and QuantizeLinear a LayerNorm-like float
  computation (x - ReduceMax(x)) / (ReduceMax(x) - ReduceMin(x) + 1) along the last axis, then
  Tanh, Gemm (float weights) and Softmax.

As a fixture set of bench/riscv_models.py (`--set float-islands`): `names()`, `path(name)` (the model
saved once per process to a temporary directory), `inputs(name)` (seeded normal floats), `macs(name)`,
`network_of`, `form_of`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from .float_models import DEFAULT_OPSET, IR_VERSION
from .saved_models import saved

U8_STEP = 1 / 255


def _model(name: str, nodes, inputs, outputs, weights: dict[str, np.ndarray]) -> onnx.ModelProto:
    initializers = [numpy_helper.from_array(np.asarray(v), k) for k, v in weights.items()]
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", DEFAULT_OPSET)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def _qdq(x: str, scale: str, zero: str, out: str) -> list[onnx.NodeProto]:
    return [
        helper.make_node("QuantizeLinear", [x, scale, zero], [f"{out}_q"], name=f"{out}_quantize"),
        helper.make_node("DequantizeLinear", [f"{out}_q", scale, zero], [out], name=f"{out}_dequantize"),
    ]


def _weights_dq(name: str, w: np.ndarray, scale: float) -> tuple[list[onnx.NodeProto], dict[str, np.ndarray]]:
    stored = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
    node = helper.make_node("DequantizeLinear", [f"{name}_q", f"{name}_scale", f"{name}_zero"], [name], name=f"{name}_dq")
    return [node], {f"{name}_q": stored, f"{name}_scale": np.float32(scale), f"{name}_zero": np.int8(0)}


def float_first_conv() -> onnx.ModelProto:
    rng = np.random.default_rng(19)
    w1 = rng.normal(0, 0.3, (4, 3, 3, 3)).astype(np.float32)
    b1 = rng.normal(0, 0.1, 4).astype(np.float32)
    w2 = rng.normal(0, 0.3, (6, 4, 3, 3))
    nodes = [
        helper.make_node("Conv", ["input", "w1", "b1"], ["c1"], name="float_conv", pads=[1, 1, 1, 1], strides=[2, 2]),
        *_qdq("c1", "s1", "z1", "c1_dq"),
    ]
    dq_nodes, dq_weights = _weights_dq("w2", w2, 0.01)
    nodes += [
        *dq_nodes,
        helper.make_node("Conv", ["c1_dq", "w2"], ["c2"], name="quant_conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c2"], ["r2"], name="relu"),
        *_qdq("r2", "s2", "z2", "output"),
    ]
    weights = {"w1": w1, "b1": b1, "s1": np.float32(0.02), "z1": np.uint8(128), "s2": np.float32(0.02),
               "z2": np.uint8(0), **dq_weights}
    inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 8, 8])]
    outputs = [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 6, 4, 4])]
    return _model("float_first_conv", nodes, inputs, outputs, weights)


def accumulator_sigmoid() -> onnx.ModelProto:
    rng = np.random.default_rng(20)
    w = rng.normal(0, 0.3, (4, 2, 3, 3))
    dq_nodes, dq_weights = _weights_dq("w", w, 0.01)
    bias = np.round(rng.normal(0, 0.1, 4) / (0.02 * 0.01)).astype(np.int32)
    nodes = [
        *_qdq("input", "s_in", "z_in", "x"),
        *dq_nodes,
        helper.make_node("DequantizeLinear", ["b_q", "b_scale"], ["b"], name="b_dq"),
        helper.make_node("Conv", ["x", "w", "b"], ["acc"], name="quant_conv", pads=[1, 1, 1, 1]),
        helper.make_node("Sigmoid", ["acc"], ["sig"], name="sigmoid"),
        *_qdq("sig", "s_out", "z_out", "output"),
    ]
    weights = {"s_in": np.float32(0.02), "z_in": np.int8(0), **dq_weights, "b_q": bias,
               "b_scale": np.float32(0.02 * 0.01), "s_out": np.float32(U8_STEP), "z_out": np.uint8(0)}
    inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 2, 6, 6])]
    outputs = [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4, 6, 6])]
    return _model("accumulator_sigmoid", nodes, inputs, outputs, weights)


def reduce_normalize() -> onnx.ModelProto:
    rng = np.random.default_rng(21)
    gemm_w = rng.normal(0, 0.3, (8, 5)).astype(np.float32)
    gemm_b = rng.normal(0, 0.1, 5).astype(np.float32)
    reduce = {"axes": [1], "keepdims": 1}
    nodes = [
        *_qdq("input", "s_in", "z_in", "x"),
        helper.make_node("ReduceMax", ["x"], ["high"], name="reduce_max", **reduce),
        helper.make_node("ReduceMin", ["x"], ["low"], name="reduce_min", **reduce),
        helper.make_node("Sub", ["x", "high"], ["centered"], name="center"),
        helper.make_node("Sub", ["high", "low"], ["span"], name="span"),
        helper.make_node("Add", ["span", "one"], ["span1"], name="span_plus_one"),
        helper.make_node("Div", ["centered", "span1"], ["normalized"], name="normalize"),
        helper.make_node("Tanh", ["normalized"], ["t"], name="tanh"),
        *_qdq("t", "s_t", "z_t", "t_dq"),
        helper.make_node("Gemm", ["t_dq", "gemm_w", "gemm_b"], ["logits"], name="float_gemm"),
        helper.make_node("Softmax", ["logits"], ["probabilities"], name="softmax", axis=1),
        *_qdq("probabilities", "s_out", "z_out", "output"),
    ]
    weights = {"s_in": np.float32(0.05), "z_in": np.uint8(128), "one": np.float32(1.0), "s_t": np.float32(1 / 127),
               "z_t": np.int8(0), "gemm_w": gemm_w, "gemm_b": gemm_b, "s_out": np.float32(U8_STEP),
               "z_out": np.uint8(0)}
    inputs = [helper.make_tensor_value_info("input", TensorProto.FLOAT, [2, 8])]
    outputs = [helper.make_tensor_value_info("output", TensorProto.FLOAT, [2, 5])]
    return _model("reduce_normalize", nodes, inputs, outputs, weights)


FLOAT_ISLAND_MODELS = {
    "float_first_conv": float_first_conv,
    "accumulator_sigmoid": accumulator_sigmoid,
    "reduce_normalize": reduce_normalize,
}
"""name -> builder of every float-island test model"""


MACS = {
    "float_first_conv": 4 * 4 * 4 * 3 * 3 * 3 + 4 * 4 * 6 * 4 * 3 * 3,
    "accumulator_sigmoid": 6 * 6 * 4 * 2 * 3 * 3,
    "reduce_normalize": 2 * 5 * 8,
}
"""Multiply-accumulates of one inference (Conv: output elements x input channels x kernel elements;
Gemm: output elements x reduction length)."""


def names() -> list[str]:
    return list(FLOAT_ISLAND_MODELS)


def network_of(name: str) -> str:
    return name


def form_of(name: str) -> str:
    return "qdq-float"


def macs(name: str) -> int:
    return MACS[name]


def path(name: str) -> Path:
    """The model `name` saved as ONNX (once per process; the directory goes when the process ends)."""
    return saved(name, FLOAT_ISLAND_MODELS[name])


def inputs(name: str, seed: int = 0) -> dict[str, np.ndarray]:
    """Feeds of the model's one graph input, `input`: standard normal float32 from `seed`."""
    (graph_input,) = FLOAT_ISLAND_MODELS[name]().graph.input
    shape = [d.dim_value for d in graph_input.type.tensor_type.shape.dim]
    return {"input": np.random.default_rng(seed).normal(0, 1, shape).astype(np.float32)}
