"""Input checks onnxruntime and qonnx make, made by bitfold too (issue 22): where the oracle
refuses a model, bitfold refuses it in one line naming the node; where the oracle accepts it,
bitfold computes its numbers. And +-inf, 1e38 and NaN through QuantizeLinear give
onnxruntime's integers, in bitfold-run and in the lowered qcast (`lower-quant`) alike.

onnxruntime's QuantizeLinear / DequantizeLinear kernels are exact on every x86 CPU (no u8 x s8
pair sums are involved), so they are oracles here."""

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from models.runners import run_onnxruntime, run_qonnx
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context

import bitfold
from bitfold.frontends import FrontendError
from bitfold.frontends.onnx import import_model
from bitfold.passes.lower_quant import LowerQuantPass
from bitfold.passes.onnx_to_quant import OnnxToQuantPass

QONNX_DOMAIN = "qonnx.custom_op.general"


def model(nodes, inputs, outputs, initializers, opsets=(("", 21),)) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializers)
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    proto.ir_version = 10
    return proto


def onnxruntime_refuses(proto: onnx.ModelProto, feeds) -> str | None:
    """onnxruntime's first error line (session or run), None where it runs the model."""
    try:
        run_onnxruntime(proto, feeds)
    except (ort.capi.onnxruntime_pybind11_state.Fail, ort.capi.onnxruntime_pybind11_state.InvalidArgument) as error:
        return str(error).splitlines()[0]
    return None


def bitfold_outputs(proto: onnx.ModelProto, feeds) -> dict[str, np.ndarray]:
    return bitfold.run(import_model(proto.SerializeToString()), feeds)


def refusal(proto: onnx.ModelProto) -> str:
    with pytest.raises(FrontendError) as error:
        import_model(proto.SerializeToString())
    (line,) = str(error.value).splitlines()
    return line


def quantize_linear(output_dtype: int, zero_point_type: int) -> onnx.ModelProto:
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q", output_dtype=output_dtype)
    return model([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                 [helper.make_tensor_value_info("y", output_dtype, [4])],
                 [numpy_helper.from_array(np.array(0.5, np.float32), "s"), helper.make_tensor("z", zero_point_type, [], [1])])


@pytest.mark.parametrize("output_dtype, zero_point_type", [(TensorProto.INT8, TensorProto.UINT8),
                                                           (TensorProto.UINT8, TensorProto.INT8),
                                                           (TensorProto.INT4, TensorProto.INT8)])
def test_output_dtype_that_disagrees_with_the_zero_point_is_refused(output_dtype, zero_point_type):
    proto = quantize_linear(output_dtype, zero_point_type)
    assert "does not match y_zero_point type" in onnxruntime_refuses(proto, {"x": np.ones(4, np.float32)})
    line = refusal(proto)
    assert "node name: q" in line and "does not match y_zero_point type" in line


def blocked(op_type: str, block_size: int, scale_blocks: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """`op_type` on a [2, 6] tensor blocked along axis 1, the scale and zero point [2, scale_blocks]."""
    parameters = [numpy_helper.from_array(np.full((2, scale_blocks), 0.5, np.float32), "s"),
                  numpy_helper.from_array(np.array([[1, -2, 3][:scale_blocks]] * 2, np.int8), "z")]
    node = helper.make_node(op_type, ["x", "s", "z"], ["y"], name="blocked", axis=1, block_size=block_size)
    quantizing = op_type == "QuantizeLinear"
    x_type, y_type = (TensorProto.FLOAT, TensorProto.INT8) if quantizing else (TensorProto.INT8, TensorProto.FLOAT)
    proto = model([node], [helper.make_tensor_value_info("x", x_type, [2, 6])],
                  [helper.make_tensor_value_info("y", y_type, [2, 6])], parameters)
    x = np.linspace(-70, 70, 12, dtype=np.float32) if quantizing else np.arange(-60, 60, 10, dtype=np.int8)
    return proto, {"x": x.reshape(2, 6)}


@pytest.mark.parametrize("op_type", ["QuantizeLinear", "DequantizeLinear"])
@pytest.mark.parametrize("block_size, scale_blocks", [(4, 2), (5, 2), (3, 2), (8, 1), (2, 2), (4, 1), (6, 2)])
def test_block_sizes_as_onnxruntime_takes_them(op_type, block_size, scale_blocks):
    """The specification accepts block sizes B in [ceil(D/S), ceil(D/(S-1)) - 1] for D = 6
    elements in S blocks, that is ceil(D/B) = S: B need not divide D (4, 5 with S = 2; 8 with
    S = 1: the last block is short). onnxruntime accepts exactly those and bitfold computes
    its numbers; the others (B 2 or 6 with S = 2, 4 with S = 1) both refuse."""
    proto, feeds = blocked(op_type, block_size, scale_blocks)
    refused = onnxruntime_refuses(proto, feeds)
    if refused is None:
        expected = run_onnxruntime(proto, feeds)["y"]
        np.testing.assert_array_equal(bitfold_outputs(proto, feeds)["y"], expected)
    else:
        assert "ceil(Di/block_size)" in refused
        assert refusal(proto).endswith(f"node 'blocked' ({op_type}): '{'y' if op_type == 'QuantizeLinear' else 'x'}_scale' "
                                       f"must be of shape [2, {-(-6 // block_size)}] (blocks of {block_size} along axis 1), "
                                       f"got shape [2, {scale_blocks}]")


def qonnx_quant(bit_width: float, scale_shape: tuple[int, ...]) -> onnx.ModelProto:
    node = helper.make_node("Quant", ["x", "s", "z", "b"], ["y"], domain=QONNX_DOMAIN, name="quant0",
                            signed=1, narrow=0, rounding_mode="ROUND")
    parameters = [numpy_helper.from_array(np.full(scale_shape, 0.5, np.float32), "s"),
                  numpy_helper.from_array(np.array(0, np.float32), "z"),
                  numpy_helper.from_array(np.array(bit_width, np.float32), "b")]
    return model([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], parameters,
                 opsets=(("", 13), (QONNX_DOMAIN, 1)))


QONNX_X = {"x": (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5) * np.float32(3e9)}


@pytest.mark.parametrize("scale_shape", [(4,), (2,), (3, 2)])
def test_qonnx_scale_that_does_not_broadcast_is_refused(scale_shape):
    with pytest.raises(ValueError, match="could not be broadcast|does not broadcast"):
        run_qonnx(qonnx_quant(8, scale_shape), QONNX_X)
    assert refusal(qonnx_quant(8, scale_shape)).endswith(
        f"node 'quant0' (Quant): 'scale' of shape {list(scale_shape)} does not broadcast to x's shape [2, 3]")


@pytest.mark.parametrize("scale_shape", [(), (3,), (2, 1), (1, 3)])
def test_qonnx_scale_that_broadcasts_gives_qonnx_numbers(scale_shape):
    proto = qonnx_quant(8, scale_shape)
    np.testing.assert_array_equal(bitfold_outputs(proto, QONNX_X)["y"], run_qonnx(proto, QONNX_X)["y"])


@pytest.mark.parametrize("bit_width", [33, 40])
def test_qonnx_bit_width_above_32_runs_as_qonnx_and_is_refused_by_the_quant_form(bit_width):
    """qonnx's executor computes Quant at any integer bit width; bitfold-run does the same. The
    quant dialect holds at most 32 bits (MLIR's storage types), so onnx-to-quant refuses it in
    one line naming the node."""
    proto = qonnx_quant(bit_width, ())
    np.testing.assert_array_equal(bitfold_outputs(proto, QONNX_X)["y"], run_qonnx(proto, QONNX_X)["y"])
    module = import_model(proto.SerializeToString())
    with pytest.raises(Exception, match=f"'qonnx.Quant' \\(quant0\\): bitwidth must be one integer in 1..32, got {bit_width}"):
        OnnxToQuantPass().apply(Context(), module)


@pytest.mark.parametrize("bit_width", [2.5, 0, 65])
def test_qonnx_bit_width_not_an_integer_in_range_is_refused(bit_width):
    """qonnx asserts `int(bitwidth) == bitwidth` where it reads the bit width's data type
    (`get_output_dtype`); bitfold refuses at import, naming the node."""
    if bit_width == 2.5:
        from qonnx.core.modelwrapper import ModelWrapper
        from qonnx.custom_op.registry import getCustomOp

        wrapper = ModelWrapper(qonnx_quant(bit_width, ()))
        with pytest.raises(AssertionError, match="Bitwidth must be integer"):
            getCustomOp(wrapper.graph.node[0]).get_output_dtype(wrapper)
    assert refusal(qonnx_quant(bit_width, ())).endswith(
        f"node 'quant0' (Quant): 'bitwidth' must be an integer in [1, 64], got {float(bit_width)}")


NON_FINITE = np.array([np.inf, -np.inf, np.nan, -np.nan, 1e38, -1e38, 3e38, 1.5, 2.0**31, -2.0**31 - 1000],
                      np.float32)


@pytest.mark.parametrize("zero_point_type, zero_point", [(TensorProto.UINT8, 128), (TensorProto.UINT8, 0),
                                                         (TensorProto.INT8, -3), (TensorProto.INT8, 0),
                                                         (TensorProto.INT16, 7), (TensorProto.UINT16, 9)])
def test_non_finite_inputs_quantize_as_onnxruntime(zero_point_type, zero_point):
    """+-inf saturate; NaN gives the storage minimum whatever the zero point (onnxruntime on x86:
    its float clamp keeps the bound where x / s is NaN; onnx's reference evaluator casts NaN to
    int32 first, which numpy leaves undefined, and disagrees). bitfold-run on the imported model
    and on its lowered form (the maxnumf/minnumf clamp before fptosi) both give onnxruntime's."""
    node = helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q")
    proto = model([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, [10])],
                  [helper.make_tensor_value_info("y", zero_point_type, [10])],
                  [numpy_helper.from_array(np.array(0.5, np.float32), "s"),
                   helper.make_tensor("z", zero_point_type, [], [zero_point])])
    feeds = {"x": NON_FINITE}
    expected = run_onnxruntime(proto, feeds)["y"]
    np.testing.assert_array_equal(bitfold_outputs(proto, feeds)["y"], expected)
    module = import_model(proto.SerializeToString())
    OnnxToQuantPass().apply(Context(), module)
    LowerQuantPass().apply(Context(), module)
    assert "quant." not in str(module) and "arith.fptosi" in str(module)
    np.testing.assert_array_equal(bitfold.run(module, feeds)["y"], expected)
