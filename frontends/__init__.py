"""Importers from model formats into bitfold IR (ONNX: QDQ, QCDQ, QONNX, QOp)."""
