"""A w4a4 convolution (int4 QDQ: activations, weights and output all 4-bit, opset 21) compiled for
rv32im and rv64im, where `bitfold-riscv-narrow-lanes` packs two (RV32) or four (RV64) output
channels a register, against onnx's reference evaluator. Every scale is a power of two, so the
float reference is exact (small integers times powers of two) and the comparison is bit for bit;
qemu's integers also equal bitfold-run's on the integer IR."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from test_codegen_execution import needs_qemu, riscv_toolchain  # noqa: F401 (fixture)

from bitfold.backends.riscv.pipeline import riscv_context
from bitfold.backends.riscv.schedule.narrow_lanes import BitfoldRiscvNarrowLanesPass
from bitfold.compile import compile_model
from bitfold.load import import_onnx

IN_CHANNELS, OUT_CHANNELS, SIZE = 8, 8, 6
OPSET, IR_VERSION = 21, 10


def int4(name: str, values) -> onnx.TensorProto:
    values = np.asarray(values)
    return helper.make_tensor(name, TensorProto.INT4, values.shape, values.reshape(-1).astype(np.int8).tolist())


def w4a4_model() -> onnx.ModelProto:
    rng = np.random.default_rng(21)
    w = rng.integers(-8, 8, size=(OUT_CHANNELS, IN_CHANNELS, 3, 3))
    w[0] = -8  # channel 0's lane sums lie in [-8 * 7 * 72, 8 * 8 * 72]; 4608 where x = -8 everywhere
    bias = rng.integers(-300, 300, size=OUT_CHANNELS)
    initializers = [
        numpy_helper.from_array(np.array(0.5, np.float32), "x_scale"), int4("x_zero_point", -1),
        int4("w", w), numpy_helper.from_array(np.array(0.25, np.float32), "w_scale"),
        numpy_helper.from_array(bias.astype(np.int32), "bias"),
        numpy_helper.from_array(np.array(0.125, np.float32), "bias_scale"),
        numpy_helper.from_array(np.array(64.0, np.float32), "y_scale"), int4("y_zero_point", 1),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero_point"], ["x_q"]),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero_point"], ["x_dq"]),
        helper.make_node("DequantizeLinear", ["w", "w_scale"], ["w_dq"]),
        helper.make_node("DequantizeLinear", ["bias", "bias_scale"], ["bias_dq"]),
        helper.make_node("Conv", ["x_dq", "w_dq", "bias_dq"], ["y_real"], kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node("QuantizeLinear", ["y_real", "y_scale", "y_zero_point"], ["y_q"]),
        helper.make_node("DequantizeLinear", ["y_q", "y_scale", "y_zero_point"], ["y"]),
    ]
    shape = [1, IN_CHANNELS, SIZE, SIZE]
    graph = helper.make_graph(nodes, "w4a4_conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, OUT_CHANNELS, SIZE, SIZE])],
                              initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = IR_VERSION
    return model


def inputs() -> dict[str, np.ndarray]:
    """Every int4 code of x (0.5 (q + 1), q in -8..7), row 0 of every channel at q = -8."""
    rng = np.random.default_rng(4)
    codes = rng.integers(-8, 8, size=(1, IN_CHANNELS, SIZE, SIZE))
    codes[:, :, 0] = -8
    return {"x": (0.5 * (codes + 1)).astype(np.float32)}


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_w4a4_conv_equals_onnx_reference(target, tmp_path):
    model = w4a4_model()
    onnx.checker.check_model(model, full_check=True)
    (want,) = ReferenceEvaluator(model).run(None, inputs())
    assert len(np.unique(want)) > 4  # the output uses more than a few of its 16 codes
    compiled = compile_model(import_onnx(model.SerializeToString(), None, "w4a4_conv"), target)
    packed = compiled.module.clone()
    BitfoldRiscvNarrowLanesPass(xlen=int(target[2:4])).apply(riscv_context(), packed)
    assert str(packed) != str(compiled.module)  # the contraction is packed
    stored = compiled.quantize(inputs())
    (got,) = compiled.run_qemu(stored, tmp_path)
    np.testing.assert_array_equal(got, compiled.run_reference(stored)[0])
    (real,) = compiled.dequantize([got])
    np.testing.assert_array_equal(real, want)
