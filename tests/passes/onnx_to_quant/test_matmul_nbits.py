"""onnxruntime's MatMulNBits (4-bit blocked weights, made by its own MatMulNBitsQuantizer,
symmetric with negative scales and asymmetric with packed zero points; and a hand-packed node with
a bias and K of two blocks): the imported op, its onnx-to-quant form (MatMul of a blocked
dequantized constant: the same bits; with a bias, then Add: one more float32 rounding) and the
integer IR (a float island) against onnxruntime's own MatMulNBits kernel on CPU (fp32, accuracy_level 0: float32 accumulation, so within float32
rounding of the float64 sum); after a QuantizeLinear / DequantizeLinear on A it is integer code
(quant-to-integer with integer-only); compiled for rv32im (soft-float island) and run under qemu,
bit-exact to bitfold-run; g_idx is refused with one line naming the node."""

import numpy as np
import onnx
import pytest
from conftest import require_tools
from models.runners import run_onnxruntime
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context
from xdsl.utils.exceptions import PassFailedException

import bitfold
from bitfold.compile import compile_model
from bitfold.frontends.onnx import import_model
from bitfold.load import load_module
from bitfold.passes.onnx_to_quant import OnnxToQuantPass
from bitfold.passes.pipelines import OnnxToIntegerPipeline
from bitfold.passes.quant_to_integer import QuantToIntegerPass

RNG = np.random.default_rng(21)
K, N, BLOCK = 64, 24, 32
TOLERANCE = {"rtol": 1e-5, "atol": 1e-5}
"""float32 accumulation (onnxruntime) against float64 rounded once (bitfold), over K = 64 terms"""


def float_matmul() -> onnx.ModelProto:
    weights = numpy_helper.from_array(RNG.normal(0, 0.5, (K, N)).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")],
        "matmul",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, N])],
        [weights],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)


def quantized(symmetric: bool) -> onnx.ModelProto:
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    quantizer = MatMulNBitsQuantizer(float_matmul(), block_size=BLOCK, is_symmetric=symmetric)
    quantizer.process()
    model = quantizer.model.model
    assert [n.op_type for n in model.graph.node] == ["MatMulNBits"]
    return model


def hand_packed(g_idx: bool = False) -> onnx.ModelProto:
    """MatMulNBits with explicit zero points, a bias, and blocks of 32 over K = 64 (scales of both
    signs), packed as onnxruntime's layout: two 4-bit values a byte, low nibble first."""
    q = RNG.integers(0, 16, (N, K))
    zero_points = RNG.integers(0, 16, (N, K // BLOCK))
    packed = (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8).reshape(N, K // BLOCK, BLOCK // 2)
    packed_zero_points = (zero_points[:, 0] | (zero_points[:, 1] << 4)).astype(np.uint8).reshape(N, 1)
    scales = (RNG.uniform(0.01, 0.1, N * K // BLOCK) * RNG.choice([-1, 1], N * K // BLOCK)).astype(np.float32)
    initializers = [
        numpy_helper.from_array(packed, "b"),
        numpy_helper.from_array(scales, "scales"),
        numpy_helper.from_array(packed_zero_points, "zero_points"),
        numpy_helper.from_array(RNG.normal(0, 1, N).astype(np.float32), "bias"),
    ]
    inputs = ["x", "b", "scales", "zero_points", "", "bias"]
    if g_idx:
        initializers.append(numpy_helper.from_array((np.arange(K) // BLOCK).astype(np.int32), "g_idx"))
        inputs[4] = "g_idx"
    node = helper.make_node(
        "MatMulNBits", inputs, ["y"], name="nbits", domain="com.microsoft", K=K, N=N, bits=4, block_size=BLOCK
    )
    graph = helper.make_graph(
        [node],
        "nbits",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, K])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, N])],
        initializers,
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)], ir_version=10
    )


MODELS = {"symmetric": lambda: quantized(True), "asymmetric": lambda: quantized(False), "hand_packed": hand_packed}


@pytest.mark.parametrize("name", MODELS)
def test_matmul_nbits_against_onnxruntime(name, tmp_path):
    model = MODELS[name]()
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, path)
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = RNG.normal(0, 1, shape).astype(np.float32)
    (want,) = run_onnxruntime(path, {"x": x}).values()
    module = import_model(str(path))
    (imported,) = bitfold.run(module, {"x": x}).values()
    np.testing.assert_allclose(imported, want, **TOLERANCE)
    OnnxToQuantPass().apply(Context(), module)
    assert "MatMulNBits" not in str(module) and "quant.dcast" in str(module)
    (quant_form,) = bitfold.run(module, {"x": x}).values()
    if name == "hand_packed":  # MatMul, then Add of the bias: two float32 roundings, not one
        np.testing.assert_allclose(quant_form, imported, **TOLERANCE)
    else:
        np.testing.assert_array_equal(quant_form, imported)
    module = import_model(str(path))
    OnnxToIntegerPipeline().apply(Context(), module)
    (integer,) = bitfold.run(module, {"x": x}).values()
    np.testing.assert_allclose(integer, want, **TOLERANCE)


@pytest.mark.parametrize("name", ["symmetric", "hand_packed"])
def test_rv32im_under_qemu_is_bit_exact_to_bitfold_run(name, tmp_path):
    """The transformer fixture's MatMulNBits form on rv32im, in small (tests/e2e/test_transformer_encoder.py
    runs that fixture on rv64imv; on rv32im it takes minutes): negative scales, zero points, a bias."""
    require_tools("qemu-riscv32", "riscv64-unknown-elf-gcc")
    model = MODELS[name]()
    onnx.save(model, tmp_path / "model.onnx")
    compiled = compile_model(load_module(str(tmp_path / "model.onnx")), "rv32im")
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    stored = compiled.quantize({"x": RNG.normal(0, 1, shape).astype(np.float32)})
    (reference,), (got,) = compiled.run_reference(stored), compiled.run_qemu(stored, tmp_path)
    np.testing.assert_array_equal(np.asarray(got).view(np.int32), np.asarray(reference).view(np.int32))


def test_g_idx_is_one_line(tmp_path):
    onnx.save(hand_packed(g_idx=True), tmp_path / "g_idx.onnx")
    module = import_model(str(tmp_path / "g_idx.onnx"))
    with pytest.raises(PassFailedException, match=r"'onnx.MatMulNBits' \(nbits\): MatMulNBits with g_idx"):
        OnnxToQuantPass().apply(Context(), module)


def test_quantized_activation_makes_it_integer(tmp_path):
    """QDQ on A before MatMulNBits: quant-to-integer contracts the blocked weights in integers (no
    float MatMul left), within one output step of onnxruntime (docs/integer-ir.md, blocked weights)."""
    model = hand_packed()
    graph = model.graph
    graph.initializer.extend(
        [numpy_helper.from_array(np.array(v, np.float32), n) for n, v in (("sx", 0.02), ("sy", 0.05))]
    )
    graph.initializer.extend([numpy_helper.from_array(np.array(0, np.int8), n) for n in ("zx", "zy")])
    graph.node[0].input[0] = "xd"
    graph.node[0].output[0] = "p"
    qdq = [
        helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
    ]
    out = [
        helper.make_node("QuantizeLinear", ["p", "sy", "zy"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "sy", "zy"], ["y"]),
    ]
    nodes = [*qdq, graph.node[0], *out]
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.save(model, tmp_path / "qdq_nbits.onnx")
    module = import_model(str(tmp_path / "qdq_nbits.onnx"))
    OnnxToQuantPass().apply(Context(), module)
    QuantToIntegerPass(integer_only=True).apply(Context(), module)
    assert "onnx.MatMul" not in str(module)
    module = import_model(str(tmp_path / "qdq_nbits.onnx"))
    OnnxToIntegerPipeline().apply(Context(), module)
    x = RNG.normal(0, 1, (2, 3, K)).astype(np.float32)
    (got,) = bitfold.run(module, {"x": x}).values()
    (want,) = run_onnxruntime(tmp_path / "qdq_nbits.onnx", {"x": x}).values()
    assert np.abs(np.asarray(got, np.float64) - want).max() <= 0.05 + 1e-6
