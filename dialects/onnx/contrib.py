"""onnxruntime contrib ops (domain com.microsoft) that its quantizer emits (in progress)."""

OPS: list = []
