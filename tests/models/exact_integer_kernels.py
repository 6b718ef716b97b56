"""onnxruntime's integer kernels as an oracle that computes the same numbers on every x86-64 CPU.

Why onnxruntime alone is hardware-sensitive: MLAS multiplies uint8 activations by int8 weights
(QLinearConv, QLinearMatMul, MatMulInteger, com.microsoft QGemm) with the instruction the CPU
offers. With AVX-VNNI or AVX512-VNNI (`vpdpbusd`) the int32 sums are exact; with AVX2 or AVX512BW
alone it is `vpmaddubsw`, which adds two u8 x s8 products into a saturating int16. A pair sum
a0*w0 + a1*w1 reaches 2 * 255 * 128 = 65280 > 32767, so full-range int8 weights give results off by
up to thousands of accumulator units on such a CPU (AMD EPYC before Zen 4, Intel before Ice Lake),
and a test whose expected value came from that kernel passes on one machine and fails on another.
Only raw weights in [-64, 64] keep every pair sum within int16 (2 * 255 * 64 = 32640).

MLAS's other x86 integer kernels are exact everywhere: u8 x u8 widens both operands to int16 and
multiplies with `vpmaddwd` (products <= 65025, pair sums in int32; `pmaddwd` on SSE, `vpdpbuud`
with AVX-VNNI-INT8), s8 x s8 runs its portable int32 kernel or `vpdpbssd`. So `exact_integer_kernels`
rewrites each u8 x s8 node into the u8 x u8 node that computes the same integers: weight w and weight
zero point z become w + 128 and z + 128 as uint8, so every difference (w + 128) - (z + 128) = w - z the
node multiplies is unchanged, as are its int32 sums and its requantization. onnxruntime still
computes every number (its rounding, its float32 requantization), only on the kernel that is exact.

The rewrite covers nodes in the file. Graph optimizations can fuse QDQ patterns into new u8 x s8
kernels after it, so oracles that rely on it run with `ORT_DISABLE_ALL` (the graph executed
literally: QDQ as float compute between QuantizeLinear and DequantizeLinear).

Every test runs onnxruntime through `runners.onnxruntime_session` / `run_onnxruntime`, which apply
the rewrite. The tests that were hardware-sensitive before it (56 failures on an AVX2 EPYC): the
QLinearConv / QLinearMatMul / QGemm node oracles (tests/dialects/onnx_ops, onnx_contrib), every
QOp catalogue model (tests/e2e/test_model_execution.py, tests/models/test_model_recipes.py,
tests/backends/test_onnx_round_trips.py, test_onnx_export_forms.py), bitfold-quantize's QOp export
(tests/driver/test_quantize.py), the QOp activation tables (tests/passes/quant_to_integer) and the
fuzz contract, whose oracle ran onnxruntime's default session first and so fused the QDQ examples
into u8 x s8 QGemm (tests/fuzz/contract.py now runs the graph literally first). What stays
CPU-dependent is float32 summation order (MLAS's SSE, FMA3 and AVX-512 float kernels sum in
different orders): tests that meet it bound it (one output step, or a counted fraction).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INT8_TO_UINT8 = 128
"""w + 128 maps int8 [-128, 127] onto uint8 [0, 255]; the zero point moves with it."""

WEIGHT_INPUTS = {
    ("", "QLinearConv"): (2, 3, 5),
    ("", "QLinearMatMul"): (2, 3, 5),
    ("com.microsoft", "QGemm"): (2, 3, 5),
    ("", "MatMulInteger"): (2, 1, 3),
    ("", "ConvInteger"): (2, 1, 3),
}
"""(domain, op type) -> positions of (activation zero point, weight, weight zero point); the
activation itself is input 0 everywhere."""


def exact_integer_kernels(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of `model` whose u8 x s8 integer nodes are u8 x u8 (see the module docstring);
    `model` itself when it has none."""
    if not any((node.domain, node.op_type) in WEIGHT_INPUTS for node in model.graph.node):
        return model
    types = _element_types(model)
    if not any(_is_u8_s8(node, types) for node in model.graph.node):
        return model
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    taken = _names(graph)
    shifted: dict[str, str] = {}
    rewritten: list[onnx.NodeProto] = []
    for node in graph.node:
        if _is_u8_s8(node, types):
            _, weight, weight_zero_point = WEIGHT_INPUTS[(node.domain, node.op_type)]
            while len(node.input) <= weight_zero_point:
                node.input.append("")
            for position in (weight, weight_zero_point):
                name = node.input[position]
                if name not in shifted:
                    shifted[name] = _shifted(name, initializers, graph, rewritten, taken)
                node.input[position] = shifted[name]
        rewritten.append(node)
    del graph.node[:]
    graph.node.extend(rewritten)
    return model


def _is_u8_s8(node: onnx.NodeProto, types: dict[str, int]) -> bool:
    positions = WEIGHT_INPUTS.get((node.domain, node.op_type))
    if positions is None:
        return False
    activation = _element_type(node, 0, types) or _element_type(node, positions[0], types)
    weight = _element_type(node, positions[1], types)
    if activation is None or weight is None:
        raise ValueError(f"{node.op_type} {node.name!r}: element types unknown, cannot tell whether it is u8 x s8")
    return activation == TensorProto.UINT8 and weight == TensorProto.INT8


def _element_type(node: onnx.NodeProto, position: int, types: dict[str, int]) -> int | None:
    return types.get(node.input[position]) if position < len(node.input) and node.input[position] else None


def _element_types(model: onnx.ModelProto) -> dict[str, int]:
    """Element type of every value whose type is known: initializers, Constant outputs, graph
    inputs and what onnx's shape inference derives (contrib outputs stay unknown)."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model).graph
    except Exception:  # noqa: BLE001 - a model onnx cannot infer keeps its declared types
        inferred = model.graph
    types = {t.name: t.data_type for t in model.graph.initializer}
    for value in [*inferred.input, *inferred.value_info, *inferred.output]:
        if value.type.tensor_type.elem_type:
            types.setdefault(value.name, value.type.tensor_type.elem_type)
    for node in model.graph.node:
        if node.op_type == "Constant" and node.domain == "" and node.attribute[0].name == "value":
            types[node.output[0]] = node.attribute[0].t.data_type
    return types


def _shifted(name: str, initializers, graph: onnx.GraphProto, nodes: list, taken: set[str]) -> str:
    """The name of the uint8 value x + 128 for the int8 value `name` ("" is an absent zero point, 0):
    a new initializer, or Cast / Add / Cast appended to `nodes` for a value computed at run time."""
    new = _fresh(f"{name or 'zero_point'}_as_uint8", taken)
    if not name or name in initializers:
        values = numpy_helper.to_array(initializers[name]) if name else np.zeros((), np.int8)
        shifted_values = (values.astype(np.int16) + INT8_TO_UINT8).astype(np.uint8)
        graph.initializer.append(numpy_helper.from_array(shifted_values, new))
        return new
    offset, wide, moved = (_fresh(f"{new}_{part}", taken) for part in ("offset", "int32", "sum"))
    graph.initializer.append(numpy_helper.from_array(np.array(INT8_TO_UINT8, np.int32), offset))
    nodes += [
        helper.make_node("Cast", [name], [wide], to=TensorProto.INT32),
        helper.make_node("Add", [wide, offset], [moved]),
        helper.make_node("Cast", [moved], [new], to=TensorProto.UINT8),
    ]
    return new


def _names(graph: onnx.GraphProto) -> set[str]:
    names = {t.name for t in graph.initializer} | {v.name for v in [*graph.input, *graph.output]}
    for node in graph.node:
        names.update(node.input)
        names.update(node.output)
    return names


def _fresh(name: str, taken: set[str]) -> str:
    candidate, index = name, 0
    while candidate in taken:
        index += 1
        candidate = f"{name}_{index}"
    taken.add(candidate)
    return candidate
