"""Brevitas' QuantLSTMCell expanded at import (`frontends/onnx/quant_lstm_cell.py`): the committed
QuantLSTM export becomes per-step standard and Quant ops (its numbers against PyTorch are checked in
tests/e2e/test_brevitas_fixtures.py); the cell forms not expanded are one error line naming the node."""

import re

import onnx
import pytest
from models import brevitas
from onnx import helper

from bitfold.frontends import FrontendError
from bitfold.frontends.onnx import import_model
from bitfold.frontends.onnx.quant_lstm_cell import expand_quant_lstm_cells

ENTRY = brevitas.manifest()["qonnx_only"]["quantlstm-cell"]


def _model() -> onnx.ModelProto:
    return onnx.load(brevitas.FIXTURES / ENTRY["file"])


def test_expansion_has_one_group_of_ops_per_step():
    """Batch 4, 3 steps, zero initial states: 3 input-gate sigmoids, 2 forget-gate sigmoids (the
    first step's forget gate multiplies the zero cell state only), outputs keep their names."""
    model = _model()
    (cell,) = [n for n in model.graph.node if n.op_type == "QuantLSTMCell"]
    expanded = expand_quant_lstm_cells(model).graph
    ops = [n.op_type for n in expanded.node]
    assert "QuantLSTMCell" not in ops
    assert [n.name.rsplit("/", 1)[1] for n in expanded.node if n.op_type == "Sigmoid"] == [
        "input_sigmoid0", "output_sigmoid0", "input_sigmoid1", "forget_sigmoid1", "output_sigmoid1",
        "input_sigmoid2", "forget_sigmoid2", "output_sigmoid2"]  # fmt: skip
    produced = {o for n in expanded.node for o in n.output}
    assert set(cell.output) <= produced


@pytest.mark.parametrize("attribute", ["cifg", "reverse_input"])
def test_unexpanded_cell_forms_are_one_error_line(attribute):
    model = _model()
    (cell,) = [n for n in model.graph.node if n.op_type == "QuantLSTMCell"]
    cell.attribute.remove(next(a for a in cell.attribute if a.name == attribute))
    cell.attribute.append(helper.make_attribute(attribute, 1))
    message = f"node '{ENTRY['cell_node']}': QuantLSTMCell with reverse_input or cifg is not supported"
    with pytest.raises(FrontendError, match=f"^{re.escape(message)}$"):
        import_model(model.SerializeToString())
