"""ONNX frontend (in progress)."""
