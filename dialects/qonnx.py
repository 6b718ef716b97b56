"""The `qonnx` dialect: QONNX's Quant (IntQuant), BipolarQuant and Trunc ops (in progress)."""

from xdsl.ir import Dialect

QOnnx = Dialect("qonnx", [], [])
