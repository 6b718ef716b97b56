"""ONNX shape ops (see `base.py` for the conventions every onnx op follows)."""

OPS: list = []
