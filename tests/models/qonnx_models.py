"""QONNX test models (qonnx `Quant`, `BipolarQuant`, `Trunc` nodes) and the models shipped with qonnx.

QONNX models carry quantization as custom nodes in the domain `qonnx.custom_op.general`, each with
its parameters as initializer inputs: `Quant(x, scale, zeropt, bitwidth)` with attributes `signed`,
`narrow`, `rounding_mode`; `BipolarQuant(x, scale)`; `Trunc(x, scale, zeropt, in_bitwidth,
[out_scale,] out_bitwidth)`. qonnx 1.0 picks the op version from the opset import of that domain
("since version" semantics): `Quant` and `BipolarQuant` exist only as version 1; `Trunc` version 1
takes 5 inputs (rescales by the input scale), version 2 takes 6 (adds the output scale, and the
`signed` / `narrow` attributes). The oracle for all of them is qonnx's executor (`run_qonnx`).

Scales come from a float calibration run (`CalibrationInputs`' samples), so the quantized models
compute close to their float originals.
"""

from __future__ import annotations

import importlib.resources
import os
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .float_models import IR_VERSION, _Graph, cnn_depthwise, mlp, residual
from .quantized import CALIBRATION_SAMPLES, CALIBRATION_SEED
from .runners import random_inputs, run_onnxruntime

QONNX_DOMAIN = "qonnx.custom_op.general"


@dataclass(frozen=True)
class IntQuant:
    """A qonnx `Quant` node's parameters. `per_channel` (weights only): one scale per output channel."""

    bits: int
    signed: bool
    narrow: bool = False
    zeropt: int = 0
    rounding_mode: str = "ROUND"
    per_channel: bool = False


@dataclass(frozen=True)
class Bipolar:
    """A qonnx `BipolarQuant` node: sign(x) (0 -> +1) times the scale."""


WEIGHTS_W4 = IntQuant(4, signed=True, narrow=True, per_channel=True)
"""4-bit signed narrow ([-7, 7]) weights, one scale per output channel."""
ACTS_U6 = IntQuant(6, signed=False)
"""6-bit unsigned activations (after Relu)."""
INPUT_S8 = IntQuant(8, signed=True)
"""8-bit signed model input."""


def _calibrated_max_abs(model: onnx.ModelProto) -> dict[str, float]:
    """max |value| of every tensor (inputs and node outputs) over the calibration samples."""
    probe = onnx.ModelProto.FromString(model.SerializeToString())
    known = {o.name for o in probe.graph.output}
    for node in probe.graph.node:
        for out in node.output:
            if out not in known:
                probe.graph.output.append(helper.make_empty_tensor_value_info(out))
    peaks: dict[str, float] = {}
    for i in range(CALIBRATION_SAMPLES):
        feeds = random_inputs(model, CALIBRATION_SEED + i)
        values = {**feeds, **run_onnxruntime(probe, feeds)}
        for name, value in values.items():
            peaks[name] = max(peaks.get(name, 0.0), float(np.abs(value).max()))
    return peaks


def _weight_axis(node: onnx.NodeProto) -> int:
    """Output-channel axis of a Conv / Gemm / MatMul weight (input 1)."""
    if node.op_type == "MatMul":
        return 1
    if node.op_type == "Gemm":
        return 0 if any(a.name == "transB" and a.i == 1 for a in node.attribute) else 1
    return 0


def qonnxify(
    model: onnx.ModelProto,
    weights: IntQuant | Bipolar = WEIGHTS_W4,
    activations: IntQuant = ACTS_U6,
    model_input: IntQuant = INPUT_S8,
    overrides: dict[str, IntQuant | Bipolar] | None = None,
    opset: int = 1,
) -> onnx.ModelProto:
    """Wrap a float model's weights and activations in QONNX quantizers (the form Brevitas exports).

    Quantized: the graph input (`model_input`), every weight (input 1) of Conv / Gemm / MatMul
    (`weights`), and every Relu output (`activations`).
    `overrides` maps a tensor name (initializer or node output) to its own quantizer, and may name
    tensors not quantized by default. Biases stay float. Scales: activations `max|x| / max_int` from
    calibration, weights `max|w| / max_int` (per channel where asked), bipolar weights `mean|w|`,
    bipolar activations 1.0. Graph input and output names are unchanged.
    """
    overrides = dict(overrides or {})
    model = onnx.ModelProto.FromString(model.SerializeToString())  # never mutate the caller's model
    graph = model.graph
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    peaks = _calibrated_max_abs(model)
    plan: dict[str, IntQuant | Bipolar] = {graph.input[0].name: model_input}
    axes: dict[str, int] = {}
    for node in graph.node:
        if node.op_type in ("Conv", "Gemm", "MatMul") and node.input[1] in inits:
            plan[node.input[1]] = weights
            axes[node.input[1]] = _weight_axis(node)
        if node.op_type == "Relu":
            plan[node.output[0]] = activations
    plan.update(overrides)

    new_inits: list[onnx.TensorProto] = list(graph.initializer)
    nodes: list[onnx.NodeProto] = []
    renames: dict[str, str] = {}

    def const(name, value):
        new_inits.append(numpy_helper.from_array(np.asarray(value, dtype=np.float32), name))
        return name

    def quant_node(source: str, target: str, spec, value: np.ndarray | None, axis: int | None):
        prefix = target.replace(".", "_")
        if isinstance(spec, Bipolar):
            scale = float(np.abs(value).mean()) if value is not None else 1.0
            nodes.append(
                helper.make_node(
                    "BipolarQuant", [source, const(f"{prefix}_scale", scale)], [target],
                    name=f"{prefix}_bipolarquant", domain=QONNX_DOMAIN,
                )
            )
            return
        max_int = (2 ** (spec.bits - 1) - (1 if spec.narrow else 0)) if spec.signed else 2**spec.bits - 1
        if value is not None and axis is not None:
            reduce = tuple(d for d in range(value.ndim) if d != axis)
            peak = np.abs(value).max(axis=reduce, keepdims=True)
        else:
            peak = np.float32(peaks.get(source, 0.0) if value is None else np.abs(value).max())
        scale = np.where(peak > 0, peak / max_int, 1.0).astype(np.float32)
        nodes.append(
            helper.make_node(
                "Quant",
                [source, const(f"{prefix}_scale", scale), const(f"{prefix}_zeropt", spec.zeropt),
                 const(f"{prefix}_bitwidth", spec.bits)],
                [target],
                name=f"{prefix}_quant", domain=QONNX_DOMAIN,
                signed=int(spec.signed), narrow=int(spec.narrow), rounding_mode=spec.rounding_mode,
            )
        )

    def quantize_consumed(name: str):
        """Quantize a graph input or initializer the first time a node reads it."""
        if name in plan and name not in renames and (name in inits or name == graph.input[0].name):
            renames[name] = f"{name}_quant"
            spec = plan[name]
            axis = axes.get(name) if isinstance(spec, IntQuant) and spec.per_channel else None
            quant_node(name, renames[name], spec, inits.get(name), axis)

    for node in graph.node:
        for name in node.input:
            quantize_consumed(name)
        node.input[:] = [renames.get(i, i) for i in node.input]
        produced = [o for o in node.output if o in plan]
        for out in produced:  # the producer writes <out>_float, the quantizer keeps the name
            index = list(node.output).index(out)
            node.output[index] = f"{out}_float"
        nodes.append(node)
        for out in produced:
            peaks[f"{out}_float"] = peaks.get(out, 0.0)
            quant_node(f"{out}_float", out, plan[out], None, None)

    new_graph = helper.make_graph(
        nodes, graph.name + "_qonnx", list(graph.input), list(graph.output), initializer=new_inits
    )
    return _finish(new_graph, model, opset)


def _finish(graph: onnx.GraphProto, float_model: onnx.ModelProto, opset: int) -> onnx.ModelProto:
    """Make the model (standard opset of the float model + qonnx domain), infer shapes, check."""
    std = next(o.version for o in float_model.opset_import if o.domain in ("", "ai.onnx"))
    return qonnx_model(graph, std, opset)


def qonnx_model(graph: onnx.GraphProto, std_opset: int, qonnx_opset: int) -> onnx.ModelProto:
    """The model of a QONNX graph at these opsets, shapes inferred by qonnx, checked."""
    from qonnx.core.modelwrapper import ModelWrapper
    from qonnx.transformation.infer_shapes import InferShapes

    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", std_opset), helper.make_opsetid(QONNX_DOMAIN, qonnx_opset)],
        producer_name="bitfold-tests",
    )
    model.ir_version = IR_VERSION
    # qonnx's executor needs every intermediate shape; its InferShapes knows the custom ops.
    model = ModelWrapper(model).transform(InferShapes()).model
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def mlp_w4a6() -> onnx.ModelProto:
    """`mlp` with 8-bit signed input, 4-bit per-channel weights, 6-bit unsigned activations."""
    return qonnxify(mlp())


def cnn_depthwise_w4a6() -> onnx.ModelProto:
    """`cnn_depthwise` with 4-bit per-channel weights (per group for the depthwise Conv), 6-bit acts."""
    return qonnxify(cnn_depthwise())


def residual_w4a6() -> onnx.ModelProto:
    """`residual` with 4-bit weights, 6-bit activations, and an input quantizer with an odd zero point
    (3) and rounding HALF_UP: QONNX adds the zero point before rounding, so ties differ from ONNX's
    order there. The Add's two operands carry different scales."""
    skewed_input = IntQuant(8, signed=True, zeropt=3, rounding_mode="HALF_UP")
    return qonnxify(residual(), model_input=skewed_input)


def mlp_bipolar() -> onnx.ModelProto:
    """`mlp` with a binarized middle: BipolarQuant on the first Gemm's output (sign activation, before
    its Relu) and on the MatMul's weights (scale mean|w|); other layers 4-bit weights, 6-bit acts."""
    float_model = mlp()
    first_gemm = next(n for n in float_model.graph.node if n.op_type == "Gemm")
    matmul = next(n for n in float_model.graph.node if n.op_type == "MatMul")
    return qonnxify(float_model, overrides={first_gemm.output[0]: Bipolar(), matmul.input[1]: Bipolar()})


def pooling_trunc(trunc_version: int = 2) -> onnx.ModelProto:
    """Quantized average pooling with `Trunc`, on a 1x3x12x12 image.

    Quant(8-bit input) -> Conv 3x3 (4-bit weights) -> Relu -> Quant(4-bit unsigned, scale s) ->
    MaxPool 2x2 -> AveragePool 2x2 -> Trunc -> GlobalAveragePool. The average of four 4-bit values
    lies on the grid s/4 with 6 bits; Trunc drops the 2 low bits (rounding FLOOR). Version 2
    (qonnx domain opset 2) names the output scale s and bit width 4, the integer floor of the average;
    version 1 (opset 1) has no output scale and rescales by its input scale s/4 (the older export).
    """
    g = _Graph(seed=5)
    w = g.weight("conv.weight", (6, 3, 3, 3), fan_in=27)
    b = g.bias("conv.bias", 6)
    h = g.node("Conv", ["input", w, b], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    h = g.node("Relu", [h])
    h = g.node("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2])
    h = g.node("AveragePool", [h], kernel_shape=[2, 2], strides=[2, 2])
    y = g.node("GlobalAveragePool", [h])
    float_model = g.model("pooling_trunc", [("input", [1, 3, 12, 12])], y, [1, 6, 1, 1], opset=13)

    relu = next(n for n in float_model.graph.node if n.op_type == "Relu")
    act = IntQuant(4, signed=False)
    model = qonnxify(float_model, activations=act, opset=trunc_version)
    # Insert Trunc after the AveragePool; its input grid is the Relu quantizer's scale / 4.
    graph = model.graph
    s = next(numpy_helper.to_array(t) for t in graph.initializer if t.name == f"{relu.output[0]}_scale")
    pool = next(n for n in graph.node if n.op_type == "AveragePool")
    pooled = pool.output[0]
    pool.output[0] = f"{pooled}_float"

    def const(name, value):
        graph.initializer.append(numpy_helper.from_array(np.asarray(value, dtype=np.float32), name))
        return name

    inputs = [f"{pooled}_float", const("trunc_scale", s / 4), const("trunc_zeropt", 0.0), const("trunc_in_bits", 6.0)]
    attrs = {"rounding_mode": "FLOOR"}
    if trunc_version >= 2:
        inputs.append(const("trunc_out_scale", s))
        attrs.update(signed=0, narrow=0)
    inputs.append(const("trunc_out_bits", 4.0))
    trunc = helper.make_node("Trunc", inputs, [pooled], name="trunc", domain=QONNX_DOMAIN, **attrs)
    nodes = list(graph.node)
    nodes.insert(nodes.index(pool) + 1, trunc)
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.value_info[:]
    return _finish(graph, float_model, trunc_version)


# --- models shipped inside the qonnx package ----------------------------------------------------------


@dataclass(frozen=True)
class ShippedModel:
    """An ONNX model file inside the installed qonnx package (`qonnx/data/onnx/...`).

    `inputs` maps each graph input to (shape, numpy dtype name, (low, high)) for feeding it: values
    drawn uniformly from [low, high) and rounded when `integer_valued` (qonnx rejects non-integer
    values for inputs annotated with an integer QONNX datatype). `runs` records whether qonnx's
    executor runs it as stored (with the IR-version shim of `run_qonnx`); `note` says why not. All
    of them run after qonnx's own `cleanup_model` (shape inference, constant folding, inputs renamed
    `global_in`, `global_in_1`, ...): see `cleaned_model` and `cleaned_feeds`.
    """

    relpath: str
    inputs: dict[str, tuple[tuple[int, ...], str, tuple[float, float]]]
    runs: bool
    integer_valued: bool = False
    note: str = ""
    ops: tuple[str, ...] = field(default=())

    @property
    def path(self) -> str:
        return os.fspath(importlib.resources.files("qonnx") / "data" / "onnx" / self.relpath)

    def cleaned_model(self) -> onnx.ModelProto:
        """The model after `qonnx.util.cleanup.cleanup_model` (what qonnx's own flows run first)."""
        return cleaned_model(self.path)

    def cleaned_feeds(self, model: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
        """`feeds(seed)` renamed, by position, to the cleaned model's graph input names."""
        inits = {t.name for t in model.graph.initializer}
        names = [i.name for i in model.graph.input if i.name not in inits]
        return dict(zip(names, self.feeds(seed).values(), strict=True))

    def feeds(self, seed: int = 0) -> dict[str, np.ndarray]:
        rng = np.random.default_rng(seed)
        out = {}
        for name, (shape, dtype, (low, high)) in self.inputs.items():
            value = rng.uniform(low, high, shape)
            out[name] = (np.floor(value) if self.integer_valued else value).astype(dtype)
        return out


SHIPPED_QONNX_MODELS: list[ShippedModel] = [
    ShippedModel("residual_block_clean.onnx", {"global_in": ((1, 1, 200, 200), "float32", (-1, 1))}, True,
                 ops=("Conv", "Relu", "MaxPool", "Add")),
    ShippedModel("eltwise_chanlast_testcase.onnx", {"global_in": ((1, 3, 224, 224), "float32", (0, 256))}, True,
                 integer_valued=True, note="input annotated UINT8: feed integer values",
                 ops=("Quant", "Conv", "Relu", "Mul", "Add")),
    ShippedModel("mnist-conv/model.onnx", {"Input3": ((1, 1, 28, 28), "float32", (0, 1))}, True,
                 ops=("Conv", "Add", "Relu", "MaxPool", "Reshape", "MatMul")),
    ShippedModel("floatquant_exec/qonnx_act_weight_fp8.onnx", {"x.1": ((1, 3), "float32", (-1, 1))}, True,
                 note="FloatQuant (minifloat fp8) in domain onnx.brevitas",
                 ops=("FloatQuant", "Gemm")),
    ShippedModel("matmul_update/sdp.onnx",
                 {f"onnx::Reshape_{i}": ((64, 1, 128), "float32", (-1, 1)) for i in range(3)}, False,
                 note="float attention block; intermediate shapes unspecified (needs InferShapes first)",
                 ops=("MatMul", "Softmax", "Transpose", "Reshape", "Mul", "Pow")),
    ShippedModel("bsd300x3-espcn/subpixel/quant_model.onnx", {"x.7": ((1, 3, 128, 128), "float32", (0, 1))}, False,
                 note="Brevitas export (domain onnx.brevitas); intermediate shapes unspecified",
                 ops=("Quant", "Conv", "BatchNormalization", "Relu", "DepthToSpace")),
    ShippedModel("bsd300x3-espcn/subpixel/float_model.onnx", {"input": ((1, 3, 4, 4), "float32", (0, 1))}, False,
                 note="intermediate shapes unspecified", ops=("Conv", "Relu", "DepthToSpace")),
    ShippedModel("bsd300x3-espcn/nn_resize/quant_model.onnx",
                 {"onnx::Relu_0": ((1, 3, 128, 128), "float32", (0, 1))}, False,
                 note="Brevitas export (domain onnx.brevitas); intermediate shapes unspecified",
                 ops=("Quant", "Conv", "BatchNormalization", "Relu", "Resize")),
    ShippedModel("bsd300x3-espcn/nn_resize/float_model.onnx",
                 {"onnx::Relu_0": ((1, 3, 128, 128), "float32", (0, 1))}, False,
                 note="intermediate shapes unspecified", ops=("Conv", "Relu", "Resize")),
]
"""The ONNX files in qonnx 1.0's package data, with how to feed them and whether its executor runs them."""


def cleaned_model(path: str) -> onnx.ModelProto:
    """The ONNX file at `path` after `qonnx.util.cleanup.cleanup_model` (what qonnx's own flows run first)."""
    from qonnx.core.modelwrapper import ModelWrapper
    from qonnx.util.cleanup import cleanup_model

    from .runners import qonnx_ir_version_shim

    with qonnx_ir_version_shim():
        model = cleanup_model(ModelWrapper(path)).model
    model.ir_version = IR_VERSION
    return model


def shipped_model_paths() -> list[str]:
    """Every `.onnx` file under the installed qonnx's `data/onnx` (to notice additions/removals)."""
    root = importlib.resources.files("qonnx") / "data" / "onnx"
    found = []
    for dirpath, _, files in os.walk(os.fspath(root)):
        found += [os.path.relpath(os.path.join(dirpath, f), os.fspath(root)) for f in files if f.endswith(".onnx")]
    return sorted(found)
