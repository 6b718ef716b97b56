"""Run a quantized model natively: `onnx-to-backend-input` with integer inputs and outputs, compiled for
the host (x86-64) by the LLVM backend into a shared object and called through ctypes
(`backends/llvm/native.py`).

    run_native(module, {"input": x}) -> {output name: array}

Float inputs are quantized by the model's input quantizers (integer model inputs pass as they are); the
function's integer outputs are bit for bit those of bitfold's interpreter on the same integer IR, and
are returned dequantized where the model returns floats (as the interpreter's run of the model's
integer IR, dequantized), else as the integers.
"""

import tempfile
from collections.abc import Mapping

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from bitfold.backends.llvm import HOST
from bitfold.compile import compile_model


def run_native(module: ModuleOp, inputs: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The outputs of one native call of `module` (ONNX-imported or quant-form IR) on `inputs`, by name."""
    compiled = compile_model(module.clone(), HOST)
    stored = compiled.quantize(inputs)
    with tempfile.TemporaryDirectory() as workdir:
        outputs = compiled.run_native(stored, workdir)
    real = compiled.dequantize(outputs)
    return {port.name: integers if port.model_integers else values
            for port, integers, values in zip(compiled.outputs, outputs, real, strict=True)}
