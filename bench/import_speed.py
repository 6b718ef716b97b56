"""How fast the ONNX frontend imports a ~1,000-node QDQ model.

Builds (fixed seed) a chain of BLOCKS blocks, each QuantizeLinear -> DequantizeLinear on the
activations, DequantizeLinear of int8 per-channel weights, Conv 3x3 and Relu (5 nodes), and
prints the node count and the seconds `import_model` takes on the serialized model.

    python bench/import_speed.py
"""

import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from bitfold.frontends.onnx import import_model

BLOCKS = 200
CHANNELS = 16
SIZE = 8
SEED = 0


def qdq_conv_chain(blocks: int = BLOCKS) -> bytes:
    rng = np.random.default_rng(SEED)
    nodes, initializers = [], []
    value = "x"
    for i in range(blocks):
        weights = rng.integers(-128, 128, size=(CHANNELS, CHANNELS, 3, 3), dtype=np.int8)
        initializers += [
            numpy_helper.from_array(np.array(0.02, np.float32), f"s{i}"),
            numpy_helper.from_array(np.array(0, np.int8), f"z{i}"),
            numpy_helper.from_array(weights, f"w{i}_q"),
            numpy_helper.from_array(rng.uniform(0.001, 0.01, CHANNELS).astype(np.float32), f"w{i}_scale"),
        ]
        nodes += [
            helper.make_node("QuantizeLinear", [value, f"s{i}", f"z{i}"], [f"q{i}"], name=f"quantize{i}"),
            helper.make_node("DequantizeLinear", [f"q{i}", f"s{i}", f"z{i}"], [f"dq{i}"], name=f"dequantize{i}"),
            helper.make_node("DequantizeLinear", [f"w{i}_q", f"w{i}_scale"], [f"w{i}"], name=f"weights{i}", axis=0),
            helper.make_node("Conv", [f"dq{i}", f"w{i}"], [f"conv{i}"], name=f"conv{i}", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", [f"conv{i}"], [f"relu{i}"], name=f"relu{i}"),
        ]
        value = f"relu{i}"
    shape = [1, CHANNELS, SIZE, SIZE]
    graph = helper.make_graph(
        nodes, "qdq_conv_chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info(value, TensorProto.FLOAT, shape)],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def main() -> None:
    data = qdq_conv_chain()
    start = time.perf_counter()
    module = import_model(data)
    seconds = time.perf_counter() - start
    ops = sum(1 for _ in module.walk()) - 2  # less the module and the function
    print(f"nodes: {BLOCKS * 5}, ops: {ops}, import: {seconds:.2f} s")


if __name__ == "__main__":
    main()
