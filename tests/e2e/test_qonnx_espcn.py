"""The ESPCN super-resolution models shipped in the qonnx wheel (`bsd300x3-espcn/{subpixel,nn_resize}/
quant_model.onnx`, read from the installed qonnx package, with its input `test_data/input_0.pb`, an image
of 1x3x128x128, of which the tests take the top-left CROP x CROP pixels: the networks are fully
convolutional, and the interpreter needs a minute a variant on the whole image): the float input goes into a first Conv whose weights come from a weight `Quant` (a
float island), then 4-bit Convs with BatchNormalization (folded into the integer contraction; some
channels dead: zero weights at a scale clamped to 1e-10), and DepthToSpace (subpixel) or a nearest
Resize by 2 (nn_resize) before an 8-bit output of 1x3x(2 CROP)x(2 CROP).

- bitfold-run on the compiled integer IR (float input, 8-bit output) against qonnx's executor (after
  qonnx's `cleanup_model`): within ESPCN_BOUND_STEPS = 1 output step, the float-island bound of
  docs/float-islands.md. The float island computes in f32 in another summation order than
  onnxruntime; the folded BatchNormalizations round their bias to S' / 2^(k+1) (docs/integer-ir.md);
  either moves a value only where it lies that close to a rounding boundary, by one step, and the
  models' 4-bit layers rarely carry that on (measured on the whole image: 11 and 2 of 196,608
  outputs one step off).
- compiled for rv64imv (MLIR / LLVM: nn_resize) and rv32imf (bitfold's scalar backend, hardware float:
  subpixel), run under qemu bit-exact to bitfold-run on the same IR; one target a variant (the two
  share every layer but the last) and the reference's own rv64imv compilation reused, to keep the
  suite's time. (rv32im's soft float is bit-exact on them too, by hand:
  `bitfold-compile M --target rv32im --run x.npy`; its 2 minutes are left to the smaller soft-float
  island models of tests/backends/riscv/test_float_island_models_scalar.py, to keep the suite's time.)

All slow."""

import os

import numpy as np
import onnx
import pytest
from conftest import require_tools
from models.qonnx_models import SHIPPED_QONNX_MODELS, cleaned_model
from models.runners import run_qonnx
from onnx import numpy_helper

from bitfold.compile import compile_model
from bitfold.load import load_module

VARIANTS = ("subpixel", "nn_resize")
REFERENCE_TARGET = "rv64imv"
CASES = [("subpixel", "rv32imf"), ("nn_resize", REFERENCE_TARGET)]
ESPCN_BOUND_STEPS = 1
"""max |bitfold - qonnx| at the output, in steps of 1/255 (docs/float-islands.md)"""
CROP = 48
"""height and width of the image the tests run on (of the shipped 128 x 128)"""


def _shipped(variant: str):
    return next(m for m in SHIPPED_QONNX_MODELS if m.relpath == f"bsd300x3-espcn/{variant}/quant_model.onnx")


def _image(variant: str) -> np.ndarray:
    data = os.path.join(os.path.dirname(os.path.dirname(_shipped(variant).path)), "test_data", "input_0.pb")
    return numpy_helper.to_array(onnx.load_tensor(data))[:, :, :CROP, :CROP]


@pytest.fixture(scope="session")
def espcn_models(tmp_path_factory) -> dict[str, str]:
    """variant -> the shipped model with a CROP x CROP input (and no stored intermediate shapes), as a file."""
    paths = {}
    for variant in VARIANTS:
        model = onnx.load(_shipped(variant).path)
        dims = model.graph.input[0].type.tensor_type.shape.dim
        dims[2].dim_value = dims[3].dim_value = CROP
        del model.graph.value_info[:]
        paths[variant] = os.fspath(tmp_path_factory.mktemp("espcn") / f"{variant}.onnx")
        onnx.save(model, paths[variant])
    return paths


@pytest.fixture(scope="session")
def espcn_reference(espcn_models):
    """variant -> (the REFERENCE_TARGET compilation, its stored input, bitfold-run's outputs on its integer IR)."""
    require_tools("mlir-opt-22", "mlir-translate-22", "clang-22")
    references = {}
    for variant in VARIANTS:
        compiled = compile_model(load_module(espcn_models[variant]), REFERENCE_TARGET)
        stored = compiled.quantize({compiled.inputs[0].name: _image(variant)})
        references[variant] = compiled, stored, compiled.run_reference(stored)
    return references


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_integer_ir_follows_qonnx_within_the_bound(variant, espcn_models, espcn_reference):
    compiled, _, reference = espcn_reference[variant]
    cleaned = cleaned_model(espcn_models[variant])
    (name,) = _shipped(variant).cleaned_feeds(cleaned)
    (want,) = run_qonnx(cleaned, {name: _image(variant)}).values()
    (got,) = compiled.dequantize(reference)
    step = compiled.outputs[0].qtype.scale_values()[0]
    assert got.shape == want.shape == (1, 3, 2 * CROP, 2 * CROP)
    steps = np.abs(got.astype(np.float64) - want) / step
    print(f"\n{variant}: max {steps.max():.0f} steps, mean {steps.mean():.3f}, "
          f"{np.count_nonzero(steps > 0.5)} of {steps.size} outputs differ")
    assert steps.max() <= ESPCN_BOUND_STEPS + 1e-3


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "target"), CASES)
def test_qemu_is_bit_exact_to_bitfold_run(variant, target, espcn_models, espcn_reference, tmp_path):
    require_tools("qemu-riscv32", "qemu-riscv64", "riscv64-unknown-elf-gcc")
    reference_compilation, stored, reference = espcn_reference[variant]
    compiled = (reference_compilation if target == REFERENCE_TARGET
                else compile_model(load_module(espcn_models[variant]), target))
    for got, want in zip(compiled.run_qemu(stored, tmp_path), reference, strict=True):
        np.testing.assert_array_equal(got, want, err_msg=f"{variant} {target}")
