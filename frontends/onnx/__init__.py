"""ONNX frontend: a model (QDQ, QCDQ, QONNX, QLinear/Integer ops, float) as bitfold IR.

`import_model` reads the model (`model_file`), expands Brevitas' QuantLSTMCell nodes into
per-step standard and Quant ops (`quant_lstm_cell`), infers the type of every value (`shapes`),
folds the shape computations on static shapes into constants (`shape_folding`; again after
each inference the folds make more precise), reads the opset of each domain (`domains`),
upgrades older node forms to the newest signature (`upgrades`) and walks the graph into one `func.func` of `onnx.*` / `qonnx.*` ops (`graph`,
with `types` and `attributes` converting ONNX's types, tensors and attributes). Every bad
input raises `bitfold.frontends.FrontendError` with one line naming the file or node,
including a tensor over the size cap (`bitfold.dialects.tensor_limits`).
"""

from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from bitfold.dialects.tensor_limits import TensorTooLarge, check_module
from bitfold.frontends import FrontendError
from bitfold.frontends.onnx.graph import import_graph
from bitfold.frontends.onnx.model_file import read_model
from bitfold.frontends.onnx.quant_lstm_cell import expand_quant_lstm_cells
from bitfold.frontends.onnx.shape_folding import check_static_shapes, fold_shape_computations
from bitfold.frontends.onnx.shapes import infer_value_types


def import_model(source: bytes | str | Path, base_dir: str | Path | None = None, name: str | None = None) -> ModuleOp:
    """Import an ONNX model given as bytes or a file path. External data files are read from
    `base_dir` (default: the model file's directory). `name` labels the model in errors
    (default: the file path)."""
    try:
        model, label = read_model(source, base_dir, name)
        model = expand_quant_lstm_cells(model)
        value_types = infer_value_types(model, label)
        while (folded := fold_shape_computations(model, value_types, label)) is not model:
            model, value_types = folded, infer_value_types(folded, label)  # folded shapes type more values
        check_static_shapes(model, value_types, label)
        module = import_graph(model, value_types, label)
        check_module(module)
        return module
    except TensorTooLarge as error:
        raise FrontendError(str(error)) from None
