"""Each data-movement op, placed on a float graph input before its QuantizeLinear or on the
output after the last DequantizeLinear, compiles for RV32IM with no float code: the op runs on
the stored integers (canonicalize-quant moves the quantizers, onnx-data-movement-to-linalg
lowers it). Under qemu the outputs equal bitfold's interpreter on the same integer IR bit for
bit, and that interpreter's outputs, dequantized, equal onnxruntime's (data movement and
quantizers only: exact) with and without its graph optimizations."""

from __future__ import annotations

import functools

import numpy as np
import onnx
import pytest
from models.runners import run_onnxruntime
from onnx import TensorProto, helper, numpy_helper

from bitfold.compile import CompiledModel, compile_model
from bitfold.frontends.onnx import import_model

INPUT_SHAPE = (1, 4, 6, 6)
SCALE, ZERO_POINT = 0.05, 120


def ints(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


CASES = {
    "slice": ("Slice", [ints(1, 5, 0), ints(3, 0, 6), ints(1, 2, 3), ints(1, -2, 2)], {}),
    "gather": ("Gather", [ints(3, 0, -1)], {"axis": 1}),
    "gather_scalar": ("Gather", [np.array(2, np.int64)], {"axis": 2}),
    "split": ("Split", [ints(1, 3)], {"axis": 1}),
    "space_to_depth": ("SpaceToDepth", [], {"blocksize": 2}),
    "depth_to_space": ("DepthToSpace", [], {"blocksize": 2, "mode": "CRD"}),
    "resize_nearest": ("Resize", [None, np.array([1, 1, 1.5, 0.5], np.float32)], {"mode": "nearest"}),
    "transpose": ("Transpose", [], {"perm": [0, 2, 3, 1]}),
    "pad_zero": ("Pad", [ints(0, 0, 1, 2, 0, 0, 2, 1)], {}),
}
"""op, constant inputs after the data (None: absent), attributes."""
MULTIPLE_RESULTS = {"split"}


def model(case: str, before: bool) -> onnx.ModelProto:
    """input -> op -> Q -> DQ -> output (`before`), else input -> Q -> DQ -> op -> output(s)."""
    op_type, constants, attributes = CASES[case]
    names = ["" if c is None else f"c{i}" for i, c in enumerate(constants)]
    initializers = [numpy_helper.from_array(c, n) for c, n in zip(constants, names) if c is not None]
    initializers += [numpy_helper.from_array(np.array(SCALE, np.float32), "s"),
                     numpy_helper.from_array(np.array(ZERO_POINT, np.uint8), "z")]
    outputs = ["y0", "y1"] if case in MULTIPLE_RESULTS else ["y0"]
    if before:
        moved = [f"moved{i}" for i in range(len(outputs))]
        nodes = [helper.make_node(op_type, ["input", *names], moved, **attributes)]
        for piece, output in zip(moved, outputs):
            nodes += [helper.make_node("QuantizeLinear", [piece, "s", "z"], [f"{piece}_q"]),
                      helper.make_node("DequantizeLinear", [f"{piece}_q", "s", "z"], [output])]
    else:
        nodes = [helper.make_node("QuantizeLinear", ["input", "s", "z"], ["q"]),
                 helper.make_node("DequantizeLinear", ["q", "s", "z"], ["dq"]),
                 helper.make_node(op_type, ["dq", *names], outputs, **attributes)]
    graph = helper.make_graph(
        nodes, case, [helper.make_tensor_value_info("input", TensorProto.FLOAT, INPUT_SHAPE)],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs], initializers)
    built = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    built.ir_version = 8
    return onnx.shape_inference.infer_shapes(built, strict_mode=True)


def feeds() -> dict[str, np.ndarray]:
    return {"input": np.random.default_rng(7).standard_normal(INPUT_SHAPE).astype(np.float32) * 4}


@functools.cache
def compiled(case: str, before: bool) -> CompiledModel:
    return compile_model(import_model(model(case, before).SerializeToString()), "rv32im")


def onnxruntime_outputs(case: str, before: bool, optimize: bool) -> dict[str, np.ndarray]:
    """onnxruntime's outputs, literally (`run_onnxruntime`) or with every graph optimization."""
    if not optimize:
        return run_onnxruntime(model(case, before), feeds())
    import onnxruntime as ort

    session = ort.InferenceSession(model(case, before).SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds()), strict=True))


PLACES = {"before_quantize": True, "after_dequantize": False}


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("case", CASES)
def test_qemu_equals_bitfold_run_and_onnxruntime(case, place, tmp_path):
    before = PLACES[place]
    program = compiled(case, before)
    stored = program.quantize(feeds())
    reference = program.run_reference(stored)
    for port, got, want in zip(program.outputs, program.run_qemu(stored, tmp_path), reference, strict=True):
        np.testing.assert_array_equal(got, want, err_msg=f"{case}: {port.name}")
    for optimize in (False, True):
        expected = onnxruntime_outputs(case, before, optimize)
        for port, got in zip(program.outputs, program.dequantize(reference), strict=True):
            np.testing.assert_array_equal(got, expected[port.name], err_msg=f"{case}: {port.name}")


def shuffle_block() -> onnx.ModelProto:
    """ShuffleNetV2's unit in QDQ: Split the channels, a 1x1 Conv + Relu on one half, Concat,
    channel shuffle (Reshape, Transpose, Reshape) after the last DequantizeLinear."""
    weights = np.random.default_rng(3).integers(-50, 51, (2, 2, 1, 1)).astype(np.int8)
    constants = {"s": np.array(SCALE, np.float32), "z": np.array(ZERO_POINT, np.uint8),
                 "s2": np.array(0.03, np.float32), "z2": np.array(0, np.uint8), "wq": weights,
                 "ws": np.array(0.01, np.float32), "wz": np.array(0, np.int8), "halves": ints(2, 2),
                 "grouped": ints(1, 2, 2, 6, 6), "flat": ints(1, 4, 6, 6)}
    node = helper.make_node
    nodes = [node("QuantizeLinear", ["input", "s", "z"], ["q"]), node("DequantizeLinear", ["q", "s", "z"], ["dq"]),
             node("Split", ["dq", "halves"], ["kept", "branch"], axis=1),
             node("DequantizeLinear", ["wq", "ws", "wz"], ["w"]), node("Conv", ["branch", "w"], ["conv"]),
             node("Relu", ["conv"], ["relu"]), node("QuantizeLinear", ["relu", "s2", "z2"], ["rq"]),
             node("DequantizeLinear", ["rq", "s2", "z2"], ["rdq"]), node("Concat", ["kept", "rdq"], ["joined"], axis=1),
             node("QuantizeLinear", ["joined", "s", "z"], ["jq"]), node("DequantizeLinear", ["jq", "s", "z"], ["jdq"]),
             node("Reshape", ["jdq", "grouped"], ["groups"]),
             node("Transpose", ["groups"], ["swapped"], perm=[0, 2, 1, 3, 4]),
             node("Reshape", ["swapped", "flat"], ["y0"])]
    graph = helper.make_graph(
        nodes, "shuffle_block", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4, 6, 6])],
        [helper.make_tensor_value_info("y0", TensorProto.FLOAT, [1, 4, 6, 6])],
        [numpy_helper.from_array(value, name) for name, value in constants.items()])
    built = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    built.ir_version = 8
    return built


def test_channel_split_and_shuffle_compile(tmp_path):
    block = shuffle_block()
    program = compile_model(import_model(block.SerializeToString()), "rv32im")
    inputs = {"input": np.random.default_rng(8).standard_normal((1, 4, 6, 6)).astype(np.float32) * 3}
    stored = program.quantize(inputs)
    reference = program.run_reference(stored)
    np.testing.assert_array_equal(program.run_qemu(stored, tmp_path)[0], reference[0])
    expected = run_onnxruntime(block, inputs)["y0"]
    off = np.abs(program.dequantize(reference)[0].astype(np.float64) - expected)
    assert off.max() <= SCALE * (1 + 1e-6)  # float Conv in onnxruntime: at most one output step
