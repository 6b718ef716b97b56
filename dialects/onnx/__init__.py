"""The `onnx` dialect: one op per ONNX operator, ONNX semantics (conventions in `base.py`).
Ops are grouped by family, one module each; `Onnx` collects them."""

from xdsl.ir import Dialect

from bitfold.dialects.onnx import (
    constant,
    contrib,
    conv_transpose,
    elementwise,
    nn,
    quantization,
    recurrent,
    reduction,
    replication,
    shape,
)

Onnx = Dialect(
    "onnx",
    [*constant.OPS, *quantization.OPS, *nn.OPS, *elementwise.OPS, *shape.OPS, *replication.OPS, *reduction.OPS,
     *contrib.OPS, *recurrent.OPS, *conv_transpose.OPS],
    [],
)
