"""One-node LSTM / GRU models (onnx.helper) in the form torch.onnx.export writes: layout 0, default
activations, seeded weights, biases and optional initial states and peepholes."""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from .float_models import IR_VERSION

OPSET = 17


def recurrent_model(
    op_type: str,
    direction: str,
    *,
    hidden: int = 5,
    inputs: int = 3,
    seq: int = 4,
    batch: int = 2,
    initial: bool = True,
    linear_before_reset: int = 0,
    peepholes: bool = False,
    seed: int = 0,
    **attributes,
) -> onnx.ModelProto:
    """`op_type` ("LSTM" / "GRU") over x (seq x batch x inputs) with outputs y, y_h (and y_c)."""
    rng = np.random.default_rng(seed)
    dirs = 2 if direction == "bidirectional" else 1
    gates = 4 if op_type == "LSTM" else 3
    initializers = [
        numpy_helper.from_array(rng.normal(0, 0.5, shape).astype(np.float32), name)
        for name, shape in (
            ("w", (dirs, gates * hidden, inputs)),
            ("r", (dirs, gates * hidden, hidden)),
            ("b", (dirs, 2 * gates * hidden)),
        )
    ]
    names = ["x", "w", "r", "b", ""]
    if initial:
        names += ["h0", "c0"][: 2 if op_type == "LSTM" else 1]
        initializers += [
            numpy_helper.from_array(rng.normal(0, 1, (dirs, batch, hidden)).astype(np.float32), n) for n in names[5:]
        ]
    if peepholes:
        names += [""] * (7 - len(names)) + ["p"]
        initializers.append(numpy_helper.from_array(rng.normal(0, 0.5, (dirs, 3 * hidden)).astype(np.float32), "p"))
    outputs = ["y", "y_h", "y_c"][: 3 if op_type == "LSTM" else 2]
    if op_type == "GRU":
        attributes["linear_before_reset"] = linear_before_reset
    node = helper.make_node(op_type, names, outputs, name="rnn", hidden_size=hidden, direction=direction, **attributes)
    shapes = {"y": [seq, dirs, batch, hidden], "y_h": [dirs, batch, hidden], "y_c": [dirs, batch, hidden]}
    graph = helper.make_graph(
        [node],
        "rnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [seq, batch, inputs])],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, shapes[o]) for o in outputs],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=IR_VERSION)
