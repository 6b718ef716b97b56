"""How fast the integer pipeline compiles QDQ models of about 10, 100 and 1,000 nodes.

Builds (fixed seed) a chain of BLOCKS_PER_SIZE blocks of NODES_PER_BLOCK nodes each:

    QuantizeLinear -> DequantizeLinear (u8 activations) ---------------------------+
    DequantizeLinear of int8 per-channel weights -> Conv 3x3 (pads 1) -> Relu      |
    -> QuantizeLinear -> DequantizeLinear                                          |
    DequantizeLinear of int8 weights (SIZE x SIZE) -> MatMul                       |
    -> QuantizeLinear -> DequantizeLinear -> Add (residual) <----------------------+

then one QuantizeLinear -> DequantizeLinear on the output. Imports it once per run, applies
the stages of `OnnxToIntegerPipeline` (onnx-to-quant, canonicalize-quant, quant-to-integer,
lower-quant) one at a time and prints, per size: the node count, the op count after import
and after each stage, the seconds of each stage and their total (best of REPEATS runs).
Prints figures, asserts nothing.

    python bench/quant_to_integer_speed.py
"""

import time

import numpy as np
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.dialects.builtin import ModuleOp

from bitfold import register_into
from bitfold.frontends.onnx import import_model
from bitfold.passes.pipelines import integer_stages

NODES_PER_BLOCK = 12
BLOCKS_PER_SIZE = (1, 8, 83)  # 14, 98 and 998 nodes (12 per block, 2 at the output)
CHANNELS = 8
SIZE = 8  # spatial height and width, and the MatMul's K = N
REPEATS = 3
SEED = 0
ACTIVATION_SCALE = 0.05  # every u8 activation: scale 0.05, zero point 128
ACTIVATION_ZERO_POINT = 128


def _activation_parameters(initializers: list, name: str) -> list[str]:
    initializers += [
        numpy_helper.from_array(np.array(ACTIVATION_SCALE, np.float32), f"{name}_scale"),
        numpy_helper.from_array(np.array(ACTIVATION_ZERO_POINT, np.uint8), f"{name}_zero_point"),
    ]
    return [f"{name}_scale", f"{name}_zero_point"]


def _qdq(nodes: list, initializers: list, value: str, name: str) -> str:
    """QuantizeLinear -> DequantizeLinear of `value`; returns the dequantized name."""
    parameters = _activation_parameters(initializers, name)
    nodes += [
        helper.make_node("QuantizeLinear", [value, *parameters], [f"{name}_q"], name=f"{name}_quantize"),
        helper.make_node("DequantizeLinear", [f"{name}_q", *parameters], [f"{name}_dq"], name=f"{name}_dequantize"),
    ]
    return f"{name}_dq"


def qdq_chain(blocks: int) -> tuple[bytes, int]:
    """The serialized model and its node count."""
    rng = np.random.default_rng(SEED)
    nodes, initializers = [], []
    value = "x"
    for i in range(blocks):
        x = _qdq(nodes, initializers, value, f"x{i}")
        initializers += [
            numpy_helper.from_array(rng.integers(-128, 128, (CHANNELS, CHANNELS, 3, 3), dtype=np.int8), f"conv{i}_w_q"),
            numpy_helper.from_array(rng.uniform(0.001, 0.01, CHANNELS).astype(np.float32), f"conv{i}_w_scale"),
            numpy_helper.from_array(rng.integers(-128, 128, (SIZE, SIZE), dtype=np.int8), f"mm{i}_w_q"),
            numpy_helper.from_array(np.array(0.004, np.float32), f"mm{i}_w_scale"),
        ]
        nodes += [
            helper.make_node("DequantizeLinear", [f"conv{i}_w_q", f"conv{i}_w_scale"], [f"conv{i}_w"],
                             name=f"conv{i}_weights", axis=0),
            helper.make_node("Conv", [x, f"conv{i}_w"], [f"conv{i}"], name=f"conv{i}", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", [f"conv{i}"], [f"relu{i}"], name=f"relu{i}"),
        ]
        relu = _qdq(nodes, initializers, f"relu{i}", f"relu{i}")
        nodes += [
            helper.make_node("DequantizeLinear", [f"mm{i}_w_q", f"mm{i}_w_scale"], [f"mm{i}_w"], name=f"mm{i}_weights"),
            helper.make_node("MatMul", [relu, f"mm{i}_w"], [f"mm{i}"], name=f"mm{i}"),
        ]
        product = _qdq(nodes, initializers, f"mm{i}", f"mm{i}")
        nodes.append(helper.make_node("Add", [product, x], [f"add{i}"], name=f"add{i}"))
        value = f"add{i}"
    output = _qdq(nodes, initializers, value, "y")
    shape = [1, CHANNELS, SIZE, SIZE]
    graph = helper.make_graph(
        nodes, "qdq_chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, shape)],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return model.SerializeToString(), len(nodes)


def _context() -> Context:
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    register_into(ctx)
    return ctx


def _op_count(module: ModuleOp) -> int:
    """Every op, nested ones (generic bodies) included, less the module and the function."""
    return sum(1 for _ in module.walk()) - 2


def _compile(data: bytes, ctx: Context) -> tuple[list[int], list[float]]:
    """(op counts after import and after each stage, seconds of each stage) for one run."""
    module = import_model(data)
    counts, seconds = [_op_count(module)], []
    for stage in integer_stages(integer_io=False):
        start = time.perf_counter()
        stage.apply(ctx, module)
        seconds.append(time.perf_counter() - start)
        counts.append(_op_count(module))
    return counts, seconds


def main() -> None:
    ctx = _context()
    names = [stage.name for stage in integer_stages(integer_io=False)]
    print(f"stages: {', '.join(names)}; ops after import and after each stage; seconds best of {REPEATS}")
    for blocks in BLOCKS_PER_SIZE:
        data, nodes = qdq_chain(blocks)
        runs = [_compile(data, ctx) for _ in range(REPEATS)]
        counts = runs[0][0]
        best = [min(run[1][i] for run in runs) for i in range(len(names))]
        total = min(sum(run[1]) for run in runs)
        ops = " -> ".join(str(c) for c in counts)
        stage_seconds = ", ".join(f"{name} {s:.3f}" for name, s in zip(names, best))
        print(f"nodes: {nodes:5d}  ops: {ops}  s: {stage_seconds}  total {total:.3f}")


if __name__ == "__main__":
    main()
