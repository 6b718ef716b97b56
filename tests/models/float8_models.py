"""QDQ models whose quantization is float8 / float4 (ONNX QuantizeLinear / DequantizeLinear to
FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT4E2M1), a contraction between them: no integer form,
so the contraction is a float island (docs/float-islands.md) between the casts' encode and decode.
Built with `onnx.helper`, weights from a fixed seed (stored in the format: rounded by ml_dtypes, as
onnx's numpy_helper holds them):

- `e4m3fn_conv`: x -> Q/DQ e4m3fn -> Conv 3x3 (e4m3fn weights per tensor, float bias) -> Relu ->
  Q/DQ e4m3fn (saturating);
- `e5m2_gemm`: x -> Q/DQ e5m2 -> Gemm (transB, e5m2 weights per output channel, float bias) ->
  Q/DQ e4m3fnuz;
- `e2m1_matmul`: x -> Q/DQ int8 -> MatMul (float4 e2m1 weights per tensor, opset 23) -> Q/DQ int8.

`MODELS` maps each name to its builder; `inputs(name, seed)` gives normal floats for its one input
`x`; `macs(name)` its multiply-accumulates. As a fixture set of bench/riscv_models.py (`--set
float8`): `names()`, `path(name)` (saved once per process), `network_of`, `form_of`; the set also
holds the qonnx wheel's FloatQuant model (`SHIPPED_FLOAT_QUANT`: fp8 input and weights, a float
Gemm), read from the installed qonnx package, on its seeded feeds."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from .float_models import IR_VERSION
from .qonnx_models import SHIPPED_QONNX_MODELS
from .saved_models import saved

FORMATS = {TensorProto.FLOAT8E4M3FN: ml_dtypes.float8_e4m3fn, TensorProto.FLOAT8E4M3FNUZ: ml_dtypes.float8_e4m3fnuz,
           TensorProto.FLOAT8E5M2: ml_dtypes.float8_e5m2, TensorProto.FLOAT4E2M1: ml_dtypes.float4_e2m1fn}


def _zero(name: str, code: int) -> onnx.TensorProto:
    return helper.make_tensor(name, code, [], [0])


def _qdq(x: str, out: str, scale: str, zero: str) -> list[onnx.NodeProto]:
    return [helper.make_node("QuantizeLinear", [x, scale, zero], [f"{out}_q"], name=f"{out}_quantize"),
            helper.make_node("DequantizeLinear", [f"{out}_q", scale, zero], [out], name=f"{out}_dequantize")]


def _stored(w: np.ndarray, scale: np.ndarray, code: int, name: str) -> onnx.TensorProto:
    """w / scale rounded into the format (ml_dtypes: to nearest even, saturating where it has no infinity)."""
    return numpy_helper.from_array((w / scale).astype(np.float32).astype(FORMATS[code]), name)


def _model(name: str, nodes, shape_in, shape_out, initializers, opset: int) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape_in)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape_out)], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model, full_check=True)
    return model


def e4m3fn_conv() -> onnx.ModelProto:
    rng = np.random.default_rng(81)
    code = TensorProto.FLOAT8E4M3FN
    w = rng.normal(0, 0.3, (4, 2, 3, 3)).astype(np.float32)
    w_scale = np.float32(0.3 / 64)
    nodes = [*_qdq("x", "xd", "x_scale", "zero"),
             helper.make_node("DequantizeLinear", ["w_q", "w_scale", "zero"], ["w"], name="w_dequantize"),
             helper.make_node("Conv", ["xd", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             *_qdq("r", "y", "y_scale", "zero")]
    initializers = [numpy_helper.from_array(np.float32(0.05), "x_scale"), numpy_helper.from_array(w_scale, "w_scale"),
                    numpy_helper.from_array(np.float32(0.02), "y_scale"), _zero("zero", code),
                    _stored(w, w_scale, code, "w_q"),
                    numpy_helper.from_array(rng.normal(0, 0.1, 4).astype(np.float32), "b")]
    return _model("e4m3fn_conv", nodes, [1, 2, 6, 6], [1, 4, 6, 6], initializers, 21)


def e5m2_gemm() -> onnx.ModelProto:
    rng = np.random.default_rng(82)
    w = rng.normal(0, 0.2, (8, 16)).astype(np.float32)
    w_scale = (np.abs(w).max(axis=1) / 57344 * 64).astype(np.float32)
    nodes = [*_qdq("x", "xd", "x_scale", "zero_x"),
             helper.make_node("DequantizeLinear", ["w_q", "w_scale", "zero_w"], ["w"], name="w_dequantize", axis=0),
             helper.make_node("Gemm", ["xd", "w", "b"], ["g"], name="gemm", transB=1),
             *_qdq("g", "y", "y_scale", "zero_y")]
    initializers = [numpy_helper.from_array(np.float32(0.01), "x_scale"), _zero("zero_x", TensorProto.FLOAT8E5M2),
                    numpy_helper.from_array(w_scale, "w_scale"),
                    helper.make_tensor("zero_w", TensorProto.FLOAT8E5M2, [8], [0] * 8),
                    _stored(w, w_scale[:, None], TensorProto.FLOAT8E5M2, "w_q"),
                    numpy_helper.from_array(rng.normal(0, 0.1, 8).astype(np.float32), "b"),
                    numpy_helper.from_array(np.float32(0.01), "y_scale"), _zero("zero_y", TensorProto.FLOAT8E4M3FNUZ)]
    return _model("e5m2_gemm", nodes, [3, 16], [3, 8], initializers, 21)


def e2m1_matmul() -> onnx.ModelProto:
    rng = np.random.default_rng(83)
    w = rng.normal(0, 0.5, (12, 6)).astype(np.float32)
    w_scale = np.float32(0.25)
    nodes = [*_qdq("x", "xd", "x_scale", "zero_x"),
             helper.make_node("DequantizeLinear", ["w_q", "w_scale"], ["w"], name="w_dequantize"),
             helper.make_node("MatMul", ["xd", "w"], ["m"], name="matmul"),
             *_qdq("m", "y", "y_scale", "zero_y")]
    initializers = [numpy_helper.from_array(np.float32(0.03), "x_scale"), _zero("zero_x", TensorProto.INT8),
                    numpy_helper.from_array(w_scale, "w_scale"), _stored(w, w_scale, TensorProto.FLOAT4E2M1, "w_q"),
                    numpy_helper.from_array(np.float32(0.05), "y_scale"), _zero("zero_y", TensorProto.INT8)]
    return _model("e2m1_matmul", nodes, [2, 12], [2, 6], initializers, 23)


MODELS = {"e4m3fn_conv": e4m3fn_conv, "e5m2_gemm": e5m2_gemm, "e2m1_matmul": e2m1_matmul}
MACS = {"e4m3fn_conv": 6 * 6 * 4 * 2 * 3 * 3, "e5m2_gemm": 3 * 8 * 16, "e2m1_matmul": 2 * 6 * 12}
"""Multiply-accumulates of one inference."""


SHIPPED_FLOAT_QUANT = "qonnx_fp8_gemm"
"""the name of the qonnx wheel's floatquant_exec/qonnx_act_weight_fp8.onnx in the set"""
_SHIPPED = next(m for m in SHIPPED_QONNX_MODELS if m.relpath == "floatquant_exec/qonnx_act_weight_fp8.onnx")
SHIPPED_MACS = 3 * 16


def names() -> list[str]:
    return [*MODELS, SHIPPED_FLOAT_QUANT]


def network_of(name: str) -> str:
    return name


def form_of(name: str) -> str:
    return "qonnx-floatquant" if name == SHIPPED_FLOAT_QUANT else "qdq-float8"


def macs(name: str) -> int:
    return SHIPPED_MACS if name == SHIPPED_FLOAT_QUANT else MACS[name]


def path(name: str) -> Path:
    return Path(_SHIPPED.path) if name == SHIPPED_FLOAT_QUANT else saved(name, MODELS[name])


def inputs(name: str, seed: int = 0) -> dict[str, np.ndarray]:
    """Feeds of the one graph input `x`: normal float32 (standard deviation 2) from `seed` (the
    shipped model: its own seeded feeds, uniform in [-1, 1])."""
    if name == SHIPPED_FLOAT_QUANT:
        return _SHIPPED.feeds(seed)
    (graph_input,) = MODELS[name]().graph.input
    shape = [d.dim_value for d in graph_input.type.tensor_type.shape.dim]
    return {"x": (np.random.default_rng(seed).normal(0, 2, shape)).astype(np.float32)}
