"""float32 inputs on which rounding into a minifloat format is decided, and the float8 / float4 QDQ
model the tests run them through."""

import numpy as np
import onnx
from onnx import TensorProto, helper

RNG = np.random.default_rng(20261126)


def rounding_cases() -> np.ndarray:
    """float32 values of both signs: every biased exponent with random fractions, then for every
    position k of the rounding point the fraction's low k bits at half - 1, half and half + 1 (ties and
    their neighbours), infinities and NaNs."""
    exponents = np.arange(256, dtype=np.uint32)[:, None]
    fractions = RNG.integers(0, 1 << 23, (1, 48)).astype(np.uint32)
    every_exponent = (exponents << 23 | fractions).ravel()
    high = RNG.integers(0, 1 << 23, 600).astype(np.uint32)
    near_ties = []
    for k in range(1, 24):
        for low in ((1 << (k - 1)) - 1, 1 << (k - 1), (1 << (k - 1)) + 1):
            exponent = RNG.integers(90, 160, high.size).astype(np.uint32)
            near_ties.append(exponent << 23 | ((high >> k) << k | low) & 0x7FFFFF)
    specials = np.array([0, 0x7F800000, 0x7FC00000, 0x7F800001, 0x7FFFFFFF], dtype=np.uint32)
    magnitudes = np.concatenate([every_exponent, *near_ties, specials])
    return np.concatenate([magnitudes, magnitudes | 0x80000000]).view(np.float32)


CASES = rounding_cases()


def qdq_model(code: int, saturate: int, scale: np.ndarray, axis: int = 1, shape=(4, 3)) -> onnx.ModelProto:
    """x -> QuantizeLinear (y_scale `scale`, a zero zero point of type `code`) -> y, DequantizeLinear -> z."""
    opset = 23 if code == TensorProto.FLOAT4E2M1 else 21
    zero = helper.make_tensor("zp", code, scale.shape, np.zeros(scale.shape, np.float32).ravel().tolist())
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y"], saturate=saturate, axis=axis),
             helper.make_node("DequantizeLinear", ["y", "s", "zp"], ["z"], axis=axis)]
    graph = helper.make_graph(nodes, "fp8", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", code, shape), helper.make_tensor_value_info("z", TensorProto.FLOAT, shape)],
                              [onnx.numpy_helper.from_array(scale, "s"), zero])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    return model
