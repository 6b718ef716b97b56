"""bitfold dialects: the quant dialect, and the ONNX and QONNX ops it imports."""
