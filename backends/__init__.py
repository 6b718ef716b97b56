"""Emitters from bitfold IR: RISC-V assembly, ONNX in a chosen quantization form."""
