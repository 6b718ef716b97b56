"""Brevitas' `QuantLSTMCell` (QONNX export of a fully quantized `QuantLSTM` layer) expanded into
standard ops and QONNX `Quant` nodes, one group per time step, before the graph walk.

Inputs (Brevitas `BrevitasQuantLSTMCellFn`): x (quantized), h0, c0, the input weights
W_i, W_f, W_c, W_o (hidden x inputs), the recurrent weights R_i, R_f, R_c, R_o, the biases b_i,
b_f, b_c, b_o, then a (scale, zero point, bit width) triple for each quantizer in the order of
`QUANTIZERS`; each quantizer's narrow / signed / rounding mode are attributes
`<quantizer>_narrow` (`output_sigmoid_narrow_range` in Brevitas 0.13), `_signed`, `_rounding_mode`.
Per step t (`_QuantLSTMCell.forward_iter`), with Q_q the QONNX Quant of quantizer q and
F.linear(x, W) = x W^T:

    i = Q_input_sigmoid(sigmoid(Q_input_acc(x_t W_i^T + h R_i^T + b_i)))      (f, o alike)
    g = Q_cell_tanh(tanh(Q_cell_acc(x_t W_c^T + h R_c^T + b_c)))
    c = Q_cell_state(Q_cell_state(f c) + Q_cell_state(i g))
    h = Q_output(o Q_hidden_state_tanh(tanh(c)))

An initial state that is a constant of zeros (Brevitas' default) drops the terms it makes 0 at the
first step: h R^T, the forget gate, and c = Q_cell_state(0 + Q_cell_state(i g)) = Q_cell_state(i g),
already on the cell state's grid (the same values, and no float product with an unquantized state,
so the whole cell stays integer).

Outputs: every step's h stacked on the sequence axis (axis 1 if `batch_first`, else 0), the last
h, the last c. `reverse_input` and `cifg` cells are refused in one line naming the node.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper

from bitfold.frontends import FrontendError
from bitfold.frontends.onnx.domains import QONNX_DOMAINS, node_label

QUANTIZERS = ("output", "cell_state", "input_acc", "forget_acc", "cell_acc", "output_acc", "input_sigmoid",
              "forget_sigmoid", "cell_tanh", "output_sigmoid", "hidden_state_tanh")  # fmt: skip
"""The quantizers whose (scale, zero point, bit width) follow the 15 tensor inputs, in order."""

GATES = ("input", "forget", "cell", "output")
TENSOR_INPUTS = 15
INPUTS = TENSOR_INPUTS + 3 * len(QUANTIZERS)


def _attributes(node: onnx.NodeProto) -> dict:
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


class _Expansion:
    """The nodes replacing one QuantLSTMCell node; values named `<node output 0>/<what>`."""

    def __init__(self, node: onnx.NodeProto, zero_states: set[str]):
        self.node, self.prefix = node, node.output[0] if node.output else node.name
        self.zero_states = zero_states
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.attributes = _attributes(node)

    def value(self, what: str) -> str:
        return f"{self.prefix}/{what}"

    def add(self, op_type: str, inputs: list[str], what: str, domain: str = "", **attributes) -> str:
        out = self.value(what)
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, domain=domain, **attributes))
        return out

    def constant(self, array: np.ndarray, what: str) -> str:
        self.initializers.append(numpy_helper.from_array(array, self.value(what)))
        return self.value(what)

    def quant(self, quantizer: str, x: str, what: str) -> str:
        """Q_quantizer(x): QONNX Quant with the quantizer's tensors and attributes."""
        first = TENSOR_INPUTS + 3 * QUANTIZERS.index(quantizer)
        scale, zero_point, bit_width = self.node.input[first : first + 3]
        narrow = self.attributes.get(f"{quantizer}_narrow", self.attributes.get(f"{quantizer}_narrow_range", 0))
        rounding = self.attributes.get(f"{quantizer}_rounding_mode", b"ROUND")
        rounding = rounding.decode() if isinstance(rounding, bytes) else rounding
        return self.add("Quant", [x, scale, zero_point, bit_width], what, domain=self.node.domain,
                        narrow=int(narrow), signed=int(self.attributes.get(f"{quantizer}_signed", 1)),
                        rounding_mode=rounding)  # fmt: skip

    def expand(self, steps: int) -> list[onnx.NodeProto]:
        node, attributes = self.node, self.attributes
        if attributes.get("reverse_input", 0) or attributes.get("cifg", 0):
            raise FrontendError(f"{node_label(node)}: QuantLSTMCell with reverse_input or cifg is not supported")
        seq_axis = 1 if attributes.get("batch_first", 0) else 0
        x, h, c = node.input[0], node.input[1], node.input[2]
        weights = {gate: self.add("Transpose", [node.input[3 + k]], f"W_{gate}T", perm=[1, 0])
                   for k, gate in enumerate(GATES)}  # fmt: skip
        recurrent = {gate: self.add("Transpose", [node.input[7 + k]], f"R_{gate}T", perm=[1, 0])
                     for k, gate in enumerate(GATES)}  # fmt: skip
        outputs = []
        for t in range(steps):
            x_t = self.add("Gather", [x, self.constant(np.array(t, np.int64), f"t{t}")], f"x{t}", axis=seq_axis)
            gates = {}
            for gate in GATES:
                if gate == "forget" and c in self.zero_states:
                    continue  # f multiplies the zero state only
                xh = self.add("MatMul", [x_t, weights[gate]], f"{gate}_x{t}")
                if h not in self.zero_states:
                    hr = self.add("MatMul", [h, recurrent[gate]], f"{gate}_h{t}")
                    xh = self.add("Add", [xh, hr], f"{gate}_xh{t}")
                total = self.add("Add", [xh, node.input[11 + GATES.index(gate)]], f"{gate}_sum{t}")
                acc = self.quant(f"{gate}_acc", total, f"{gate}_acc{t}")
                if gate == "cell":
                    gates[gate] = self.quant("cell_tanh", self.add("Tanh", [acc], f"cell_tanh{t}"), f"g{t}")
                else:
                    sigmoid = self.add("Sigmoid", [acc], f"{gate}_sigmoid{t}")
                    gates[gate] = self.quant(f"{gate}_sigmoid", sigmoid, f"{gate[0]}{t}")
            product = self.add("Mul", [gates["input"], gates["cell"]], f"ig_mul{t}")
            input_cell = self.quant("cell_state", product, f"ig{t}")
            if c in self.zero_states:
                c = input_cell
            else:
                forget_cell = self.quant("cell_state", self.add("Mul", [gates["forget"], c], f"fc_mul{t}"), f"fc{t}")
                c = self.quant("cell_state", self.add("Add", [forget_cell, input_cell], f"c_sum{t}"), f"c{t}")
            tanh_c = self.quant("hidden_state_tanh", self.add("Tanh", [c], f"c_tanh{t}"), f"tanh_c{t}")
            h = self.quant("output", self.add("Mul", [gates["output"], tanh_c], f"h_mul{t}"), f"h{t}")
            axes = self.constant(np.array([seq_axis], np.int64), f"axes{t}")
            outputs.append(self.add("Unsqueeze", [h, axes], f"y{t}"))
        finals = [self.add("Concat", outputs, "y", axis=seq_axis), h, c]
        renamed = {final: name for final, name in zip(finals, node.output) if name}
        for made in self.nodes:  # the cell's outputs keep their names
            made.input[:] = [renamed.get(value, value) for value in made.input]
            made.output[:] = [renamed.get(value, value) for value in made.output]
        return self.nodes


def _zero_constants(model: onnx.ModelProto) -> set[str]:
    """The initializers that hold only zeros (Brevitas' initial states)."""
    return {t.name for t in model.graph.initializer if not numpy_helper.to_array(t).any()}


def _steps(model: onnx.ModelProto, node: onnx.NodeProto) -> int:
    """The sequence length: the static dimension of the cell's input on the sequence axis."""
    seq_axis = 1 if _attributes(node).get("batch_first", 0) else 0
    shapes = {v.name: v.type.tensor_type.shape for v in [*model.graph.input, *model.graph.value_info]}
    source = node.input[0]
    producers = {o: n for n in model.graph.node for o in n.output}
    while source not in shapes and source in producers and producers[source].op_type in ("Quant", "Identity"):
        source = producers[source].input[0]  # the quantizers in front of the cell keep its shape
    dims = shapes[source].dim if source in shapes else []
    if len(dims) != 3 or not dims[seq_axis].HasField("dim_value"):
        raise FrontendError(f"{node_label(node)}: QuantLSTMCell needs a static 3-d input (batch, sequence, features)")
    return dims[seq_axis].dim_value


def expand_quant_lstm_cells(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model` with every QONNX `QuantLSTMCell` node replaced by its per-step expansion (the same
    model if it has none)."""
    cells = [n for n in model.graph.node if n.op_type == "QuantLSTMCell" and n.domain in QONNX_DOMAINS]
    if not cells:
        return model
    expanded = onnx.ModelProto()
    expanded.CopyFrom(model)
    graph = expanded.graph
    nodes = []
    for node in graph.node:
        if node in cells:
            if len(node.input) != INPUTS:
                raise FrontendError(f"{node_label(node)}: QuantLSTMCell needs {INPUTS} inputs, not {len(node.input)}")
            expansion = _Expansion(node, _zero_constants(model))
            nodes += expansion.expand(_steps(model, node))
            graph.initializer.extend(expansion.initializers)
        else:
            nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)
    return expanded
