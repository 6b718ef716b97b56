"""Requantization between float8 / float4 and integer storage compiles to a table lookup indexed by the
bit pattern (`quant_to_integer.tables.FloatStorageRequantToTable`): compiled for rv32im (bitfold's backend)
and rv64imv (LLVM), run under qemu on every stored input value (all 256 / 16 patterns, NaNs included),
bit-exact to bitfold-run on the same integer IR; and from float inputs end to end, the dequantized output
equal to onnx's reference evaluator on the source model."""

import numpy as np
import onnx
import pytest
from conftest import require_tools
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

from bitfold.compile import compile_model
from bitfold.dialects.quant_semantics import dequantize
from bitfold.frontends.onnx import import_model

QEMU_TOOLS = ("qemu-riscv32", "qemu-riscv64", "riscv64-linux-gnu-gcc", "riscv64-unknown-elf-gcc")
LLVM_TOOLS = ("mlir-opt-22", "mlir-translate-22", "clang-22")
TARGETS = [("rv32im", "bitfold"), ("rv64imv", "llvm")]


def requantization(first: tuple[int, float], second: tuple[int, float], saturate: int = 1) -> onnx.ModelProto:
    """x -> QuantizeLinear(first) -> DequantizeLinear -> QuantizeLinear(second) -> DequantizeLinear -> z, each
    (type, scale), float types without a zero point (`output_dtype`, opset 23), `saturate` on both."""
    nodes, initializers, previous = [], [], "x"
    for index, (code, scale) in enumerate([first, second]):
        initializers.append(onnx.numpy_helper.from_array(np.array(scale, np.float32), f"s{index}"))
        if code in (TensorProto.INT8, TensorProto.UINT8):
            initializers.append(helper.make_tensor(f"zp{index}", code, [], [0]))
            q_inputs = [previous, f"s{index}", f"zp{index}"]
            nodes.append(helper.make_node("QuantizeLinear", q_inputs, [f"q{index}"]))
        else:
            q_inputs = [previous, f"s{index}"]
            nodes.append(helper.make_node("QuantizeLinear", q_inputs, [f"q{index}"], output_dtype=code,
                                          saturate=saturate))
        nodes.append(helper.make_node("DequantizeLinear", [f"q{index}", *q_inputs[1:]], [f"d{index}"]))
        previous = f"d{index}"
    graph = helper.make_graph(nodes, "requantization", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16, 16])],
                              [helper.make_tensor_value_info(previous, TensorProto.FLOAT, [16, 16])], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    model.ir_version = 10
    return model


MODELS = {
    "e4m3fn_to_int8": requantization((TensorProto.FLOAT8E4M3FN, 0.05), (TensorProto.INT8, 0.1)),
    "e5m2_to_uint8": requantization((TensorProto.FLOAT8E5M2, 0.01), (TensorProto.UINT8, 0.25)),
    "int8_to_e4m3fnuz": requantization((TensorProto.INT8, 0.1), (TensorProto.FLOAT8E4M3FNUZ, 0.003)),
    "e2m1_to_int8": requantization((TensorProto.FLOAT4E2M1, 0.5), (TensorProto.INT8, 0.125)),
    "e5m2_to_e4m3fn_non_saturating": requantization((TensorProto.FLOAT8E5M2, 0.01), (TensorProto.FLOAT8E4M3FN, 0.5), 0),
}


@pytest.fixture(scope="module", params=[(n, t, b) for n in MODELS for t, b in TARGETS], ids=lambda p: f"{p[0]}-{p[1]}")
def compiled(request):
    name, target, backend = request.param
    require_tools(*QEMU_TOOLS, *(LLVM_TOOLS if backend == "llvm" else ()))
    return name, compile_model(import_model(MODELS[name].SerializeToString()), target, backend=backend)


def test_every_stored_input_runs_bit_exact_under_qemu(compiled, tmp_path):
    name, model = compiled
    (port,) = model.inputs
    patterns = np.arange(256 if port.qtype.storage_width == 8 else 16, dtype=np.int64)
    stored = [np.resize(patterns, (16, 16)).astype(port.dtype)]
    (got,), (want,) = model.run_qemu(stored, tmp_path), model.run_reference(stored)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), name


def test_float_inputs_end_to_end_equal_onnx_reference(compiled, tmp_path):
    name, model = compiled
    x = (np.random.default_rng(5).standard_normal((16, 16)) * 4).astype(np.float32)
    x.flat[:4] = [1e6, -1e6, -0.0, 1e-30]  # no infinities: onnx's reference casts them to int32 undefined
    (stored,) = model.run_qemu(model.quantize({"x": x}), tmp_path)
    (port,) = model.outputs
    got = dequantize(stored, port.qtype)
    with np.errstate(all="ignore"):
        (want,) = ReferenceEvaluator(MODELS[name]).run(None, {"x": x})
    assert got.tobytes() == want.tobytes(), name
