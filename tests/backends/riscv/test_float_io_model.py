"""A quantized model compiled without integer-io: the function takes the float input, quantizes it
(lower-quant's qcast: divf, roundeven, clamp, fptosi) and returns the float output (dcast: sitofp,
mulf), all inside the generated code. With soft float (rv32im: libgcc calls; rv64im's soft float is
tested op by op in test_float_codegen.py) and hardware float (rv32imf,
rv64imfd) it runs under qemu bit-exact to bitfold-run on the same IR."""

from pathlib import Path

import numpy as np
import pytest
from conftest import require_tools

from bitfold.backend_input import lower_to_backend_input
from bitfold.backends.kernel.harness import run_assembly
from bitfold.backends.riscv import compile_kernel
from bitfold.interpreter import run
from bitfold.load import full_context, load_module

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.fixture(scope="module")
def float_io_model():
    """The bundled QDQ CNN at the backend's input with float input and output, its input, and
    bitfold-run's output on it."""
    module = load_module(str(EXAMPLES / "cnn_depthwise_qdq.onnx"))
    lower_to_backend_input(full_context(), module, integer_io=False)
    x = np.load(EXAMPLES / "cnn_depthwise_input.npy").astype(np.float32)
    (want,) = run(module, [x]).values()
    return module, x, np.asarray(want, np.float32)


@pytest.mark.slow
@pytest.mark.parametrize("target", ["rv32im", "rv32imf", "rv64imfd"])
def test_float_io_model_is_bit_exact_to_bitfold_run(float_io_model, target, tmp_path):
    require_tools("riscv64-linux-gnu-gcc", "riscv64-unknown-elf-gcc", "qemu-riscv64", "qemu-riscv32")
    module, x, want = float_io_model
    kernel = compile_kernel(module, target, "cnn")
    soft = target == "rv32im"
    assert {"__divsf3", "__mulsf3", "__fixsfsi", "__floatsisf"} <= set(kernel.calls) if soft else not kernel.calls
    (got,) = run_assembly(kernel.assembly, target, "cnn", [x], [(want.shape, np.float32)], tmp_path)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
