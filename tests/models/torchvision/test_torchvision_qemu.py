"""The torchvision fixtures (`models.torchvision`, QDQ per channel) compiled and run under qemu,
bit-exact to `bitfold-run` on the same integer IR (slow). One target a network, chosen for what the
network adds (each compile takes 10-70 s on one core, so not every network on every target):
ShuffleNetV2's channel split and shuffle (Slice, Split, Transpose), ResNet-18's residual adds and the
RegNetX-style network's grouped convolutions on rv32im (bitfold's code generator), MobileNetV3-Small's
HardSwish and squeeze-excite on rv64imv (MLIR and LLVM). Its ops on rv32im (HardSwish chains as one
table lookup, backends/riscv/schedule/tabulated_elementwise.py; the squeeze-excite gate fused) run
end to end on a MobileNetV3-style block of the same ops (tests/backends/riscv/test_elementwise_chains.py:
4 s of compile instead of the network's 56 s). EfficientNet-B0 runs in `bitfold-run`
(test_torchvision_models.py) and in `bench/compile_speed.py`."""

from __future__ import annotations

import numpy as np
import pytest

from bitfold.compile import compile_model
from bitfold.load import load_module
from models import torchvision

CASES = [("shufflenet_v2_x0_5", "rv32im"), ("resnet18", "rv32im"), ("mobilenet_v3_small", "rv64imv"),
         ("regnet_x", "rv32im")]


@pytest.mark.slow
@pytest.mark.parametrize(("network", "target"), CASES)
def test_qemu_equals_bitfold_run(network, target, tmp_path):
    compiled = compile_model(load_module(str(torchvision.path(f"{network}-qdq-u8s8-perchannel"))), target)
    stored = compiled.quantize(torchvision.inputs(f"{network}-qdq-u8s8-perchannel"))
    for port, got, want in zip(compiled.outputs, compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored),
                               strict=True):  # fmt: skip
        assert got.dtype == want.dtype and got.shape == want.shape, port.name
        np.testing.assert_array_equal(got, want, err_msg=f"{network} on {target}: {port.name}")
