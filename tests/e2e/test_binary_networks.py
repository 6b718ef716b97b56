"""FINN-style binary networks (tests/models/binary_networks.py) against qonnx's executor, the
oracle: bitfold-run on the model and on its integer IR bit for bit, and the integer IR compiled
for rv32im, rv64im, rv32im_zbb and rv64im_zbb bit for bit to bitfold-run on that IR under qemu (on
RV64 the XNOR-popcounts on 64-bit words, `bitfold-riscv-wide-binary-words`: `cpop` rather than `cpopw`)."""

import numpy as np
import onnx
import pytest
from conftest import require_tools
from models.binary_networks import BINARY_NETWORKS
from models.runners import run_qonnx

import bitfold
from bitfold.frontends.onnx import import_model
from bitfold.load import full_context
from bitfold.passes.pipelines import integer_stages

SEEDS = (0, 1, 2)


def inputs(model: onnx.ModelProto, seed: int) -> dict[str, np.ndarray]:
    """Inputs over the whole int8 range of the first quantizer (and beyond, to saturate)."""
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    return {"x": (np.random.default_rng(seed).normal(size=shape) * 3).astype(np.float32)}


@pytest.fixture(scope="module", params=sorted(BINARY_NETWORKS))
def network(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("binary") / f"{request.param}.onnx"
    model = BINARY_NETWORKS[request.param]()
    onnx.save(model, path)
    expected = [run_qonnx(path, inputs(model, seed)) for seed in SEEDS]
    return path, model, expected


def integer_module(path):
    module = import_model(path)
    ctx = full_context()
    for module_pass in integer_stages(integer_io=False):
        module_pass.apply(ctx, module)
    return module


def test_bitfold_run_equals_qonnx(network):
    path, model, expected = network
    module = import_model(path)
    for seed, want in zip(SEEDS, expected):
        got = bitfold.run(module, inputs(model, seed))
        assert got.keys() == want.keys()
        for name in want:
            np.testing.assert_array_equal(got[name], want[name])


def test_integer_ir_equals_qonnx(network):
    path, model, expected = network
    module = integer_module(path)
    text = str(module)
    assert "math.ctpop" in text and "onnx.Conv" not in text and "onnx.MatMul" not in text
    for seed, want in zip(SEEDS, expected):
        got = bitfold.run(module, inputs(model, seed))
        for name in want:
            np.testing.assert_array_equal(got[name], want[name])


@pytest.mark.parametrize("target", ["rv32im", "rv64im", "rv32im_zbb", "rv64im_zbb"])
def test_riscv_equals_the_integer_ir(network, target, tmp_path):
    from bitfold.compile import compile_model

    require_tools("riscv64-unknown-elf-gcc", "riscv64-linux-gnu-gcc", f"qemu-riscv{target[2:4]}")
    path, model, _ = network
    compiled = compile_model(import_model(path), target)
    assert ("cpop" in compiled.assembly) == target.endswith("_zbb")
    if target == "rv64im_zbb":
        assert "cpop " in compiled.assembly  # the 64-bit count
    stored = compiled.quantize(inputs(model, SEEDS[0]))
    for got, want in zip(compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(got, want)
