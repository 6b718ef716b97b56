"""ONNX recurrent ops (conventions in `base.py`): LSTM and GRU, in the form torch.onnx.export
writes them: layout 0 (X is seq x batch x input), default activations (Sigmoid for the gates,
Tanh for the cell and hidden state), no clip, no sequence_lens but a constant one of the full
length everywhere (Brevitas writes it; the same as none),
direction forward, reverse or bidirectional, initial states optional. Other forms are refused
by `check_supported` (the reference raises ValueError, the passes name the node).

Gate order in W (dirs x G*H x I), R (dirs x G*H x H), B (dirs x 2*G*H: Wb then Rb):
LSTM i, o, f, c (G = 4); GRU z, r, h (G = 3). Per step t (the reverse direction walks t
backwards and writes Y at t):

    LSTM: i = s(x Wi' + h Ri' + Wbi + Rbi + Pi . c)    f = s(x Wf' + h Rf' + Wbf + Rbf + Pf . c)
          g = tanh(x Wc' + h Rc' + Wbc + Rbc)          c' = f . c + i . g
          o = s(x Wo' + h Ro' + Wbo + Rbo + Po . c')    h' = o . tanh(c')
    GRU:  z = s(x Wz' + h Rz' + Wbz + Rbz)              r = s(x Wr' + h Rr' + Wbr + Rbr)
          n = tanh(x Wh' + (r . h) Rh' + Rbh + Wbh)                    linear_before_reset = 0
          n = tanh(x Wh' + r . (h Rh' + Rbh) + Wbh)                    linear_before_reset = 1
          h' = (1 - z) . n + z . h

Y (seq x dirs x batch x H) holds every h', Y_h (dirs x batch x H) the last, Y_c (LSTM) the last c.
The reference computes in float64 and rounds each output once to X's type."""

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import I64, ArrayAttr, DenseArrayBase, FloatAttr, IntegerAttr, StringAttr
from xdsl.irdl import (
    AttrSizedOperandSegments,
    AttrSizedResultSegments,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    opt_operand_def,
    opt_result_def,
)

from bitfold.dialects.evaluation import named_operands
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.elementwise import logistic

DEFAULT_ACTIVATIONS = ("Sigmoid", "Tanh", "Tanh")
"""ONNX's default (f, g, h) for LSTM; GRU's (f, g) are its first two."""


class RecurrentOp(OnnxOp):
    """What LSTM and GRU share: directions, hidden size, the supported form, and the attributes
    these read (operands and results are each op's own: IRDL orders a subclass's first)."""

    GATES: ClassVar[int] = 0

    activation_alpha = opt_attr_def(DenseArrayBase)
    activation_beta = opt_attr_def(DenseArrayBase)
    activations = opt_attr_def(ArrayAttr[StringAttr])
    clip = opt_attr_def(FloatAttr)
    direction = attr_def(StringAttr)
    hidden_size = opt_attr_def(IntegerAttr[I64])
    layout = attr_def(IntegerAttr[I64])

    irdl_options = (AttrSizedOperandSegments(as_property=True), AttrSizedResultSegments(as_property=True))

    def directions(self) -> list[bool]:
        """Per direction of W, whether it walks the sequence backwards."""
        return {"forward": [False], "reverse": [True], "bidirectional": [False, True]}[self.string_attr("direction")]

    def check_supported(self) -> None:
        """Raise ValueError for a form outside the module docstring's."""
        activations = self.attributes.get("activations")
        if activations is not None:
            names = [a.data for a in activations.data]
            if any(n.lower() != d.lower() for n, d in zip(names, DEFAULT_ACTIVATIONS[: self.GATES - 1] * 2)):
                raise ValueError(f"{self.name} with activations {names} is not supported (only the defaults)")
        if "clip" in self.attributes:
            raise ValueError(f"{self.name} with clip is not supported")
        if self.int_attr("layout") != 0:
            raise ValueError(f"{self.name} with layout 1 is not supported (torch exports layout 0)")
        if self.sequence_lens is not None and not self._full_length(constant_array(self.sequence_lens)):
            raise ValueError(f"{self.name} with sequence_lens is not supported (every sequence has the full length)")
        if "input_forget" in self.attributes and self.int_attr("input_forget"):
            raise ValueError(f"{self.name} with input_forget is not supported")

    def _full_length(self, lengths: np.ndarray | None) -> bool:
        """Whether `lengths` (a constant sequence_lens, or None where it is computed) gives every
        sequence X's full length."""
        return lengths is not None and bool(np.all(lengths == self.x.type.get_shape()[0]))

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        self.check_supported()
        values = {
            k: (None if v is None else np.asarray(v, np.float64)) for k, v in named_operands(self, operands).items()
        }
        x = values["x"]
        seq, batch = x.shape[:2]
        hidden = values["r"].shape[-1]
        outputs = []
        for d, backwards in enumerate(self.directions()):
            w, r = values["w"][d], values["r"][d]
            b = np.zeros(2 * self.GATES * hidden) if values["b"] is None else values["b"][d]
            h = np.zeros((batch, hidden)) if values["initial_h"] is None else values["initial_h"][d]
            c = np.zeros((batch, hidden)) if values.get("initial_c") is None else values["initial_c"][d]
            ys = [None] * seq
            for t in reversed(range(seq)) if backwards else range(seq):
                h, c = self.step(x[t], h, c, w, r, b, None if values.get("p") is None else values["p"][d])
                ys[t] = h
            outputs.append((np.stack(ys), h, c))
        y = np.stack([o[0] for o in outputs], axis=1)
        dtype = operands[0].dtype
        results = [y.astype(dtype), np.stack([o[1] for o in outputs]).astype(dtype)]
        if self.GATES == 4:
            results.append(np.stack([o[2] for o in outputs]).astype(dtype))
        return tuple(value for value, result in zip(results, self.results_by_role()) if result is not None)

    def results_by_role(self) -> list:
        raise NotImplementedError

    def step(self, x, h, c, w, r, b, p):
        raise NotImplementedError


@irdl_op_definition
class LSTMOp(RecurrentOp):
    """LSTM (module docstring)."""

    name = "onnx.LSTM"
    GATES: ClassVar[int] = 4
    x = operand_def()
    w = operand_def()
    r = operand_def()
    b = opt_operand_def()
    sequence_lens = opt_operand_def()
    initial_h = opt_operand_def()
    initial_c = opt_operand_def()
    p = opt_operand_def()
    y = opt_result_def()
    y_h = opt_result_def()
    y_c = opt_result_def()

    input_forget = attr_def(IntegerAttr[I64])

    def results_by_role(self) -> list:
        return [self.y, self.y_h, self.y_c]

    def step(self, x, h, c, w, r, b, p):
        hidden = h.shape[-1]
        gates = x @ w.T + h @ r.T + b[: 4 * hidden] + b[4 * hidden :]
        i, o, f, g = (gates[:, k * hidden : (k + 1) * hidden] for k in range(4))
        pi, po, pf = (np.zeros(hidden),) * 3 if p is None else (p[:hidden], p[hidden : 2 * hidden], p[2 * hidden :])
        i, f = logistic(i + pi * c), logistic(f + pf * c)
        c = f * c + i * np.tanh(g)
        o = logistic(o + po * c)
        return o * np.tanh(c), c


@irdl_op_definition
class GRUOp(RecurrentOp):
    """GRU (module docstring)."""

    name = "onnx.GRU"
    GATES: ClassVar[int] = 3
    x = operand_def()
    w = operand_def()
    r = operand_def()
    b = opt_operand_def()
    sequence_lens = opt_operand_def()
    initial_h = opt_operand_def()
    y = opt_result_def()
    y_h = opt_result_def()

    linear_before_reset = attr_def(IntegerAttr[I64])

    def results_by_role(self) -> list:
        return [self.y, self.y_h]

    def step(self, x, h, c, w, r, b, p):
        hidden = h.shape[-1]
        wb, rb = b[: 3 * hidden], b[3 * hidden :]
        xw = x @ w.T + wb
        part = lambda a, k: a[:, k * hidden : (k + 1) * hidden]
        z = logistic(part(xw, 0) + h @ r[:hidden].T + rb[:hidden])
        reset = logistic(part(xw, 1) + h @ r[hidden : 2 * hidden].T + rb[hidden : 2 * hidden])
        rh, rbh = r[2 * hidden :], rb[2 * hidden :]
        if self.int_attr("linear_before_reset"):
            n = np.tanh(part(xw, 2) + reset * (h @ rh.T + rbh))
        else:
            n = np.tanh(part(xw, 2) + (reset * h) @ rh.T + rbh)
        return (1 - z) * n + z * h, c


OPS = [LSTMOp, GRUOp]
