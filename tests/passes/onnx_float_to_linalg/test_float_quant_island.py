"""QONNX FloatQuant as a float island (passes/float_quant_to_linalg.py), against qonnx's own
`float_quant` bit for bit (float32 patterns, NaNs by position): the integer IR run by bitfold's
interpreter, on inputs over every binade the format reaches, its ties, next to powers of two (where
qonnx's float32 log2 may take the coarser binade) and the specials; saturating, has_inf, has_nan,
max_val below the format's largest; a per-channel scale. Compiled for rv32im (soft float), rv32imf
and rv64imv, qemu is bit-exact to bitfold-run (slow). Refusals are one line naming the node."""

import numpy as np
import onnx
import pytest
from conftest import require_tools
from onnx import TensorProto, helper, numpy_helper
from qonnx.custom_op.general.floatquant import compute_max_val, float_quant
from xdsl.utils.exceptions import PassFailedException

import bitfold
from bitfold.backends.llvm import VECTOR_TARGETS
from bitfold.compile import compile_model
from bitfold.frontends.onnx import import_model
from bitfold.load import full_context
from bitfold.passes.pipelines import OnnxToIntegerPipeline

RNG = np.random.default_rng(19)
FORMATS = [(4, 3, 7), (5, 2, 15), (4, 3, 8), (3, 2, 3), (2, 1, 1), (5, 10, 15), (1, 3, 0)]
"""(E, M, B): OCP e4m3 / e5m2, fnuz biases, fp16-like (M = 10) and widths no MLIR type has"""
CONFIGURATIONS = {
    "saturating": {"has_inf": 0, "has_nan": 1, "saturation": 1},
    "has_inf": {"has_inf": 1, "has_nan": 0, "saturation": 0},
    "has_nan": {"has_inf": 0, "has_nan": 1, "saturation": 0},
}
CHANNELS = 2
SCALES = np.array([[0.75], [3.0]], np.float32)


def inputs(exponent_bits: int, mantissa_bits: int, bias: int) -> np.ndarray:
    """(CHANNELS, n) float32: spread over the binades, ties of the grid, neighbours of powers of two, specials."""
    top = int(2**exponent_bits - bias) + 2
    low = 1 - bias - mantissa_bits - 3
    powers = np.arange(low, top, dtype=np.float32)
    spread = (RNG.uniform(1, 2, (powers.size, 8)) * np.exp2(powers)[:, None]).ravel()
    ties = ((np.arange(-32, 32) + 0.5) * np.exp2(RNG.integers(low, top, 64) - mantissa_bits)).astype(np.float32)
    near = np.exp2(powers)
    near_powers = np.concatenate([np.nextafter(near, 0), near, np.nextafter(near, np.inf), near * (1 - 2.0**-22)])
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 1e-30, 3e38, -3e38], np.float32)
    values = np.concatenate([spread, -spread, ties, near_powers, -near_powers, specials]).astype(np.float32)
    values = np.resize(values, CHANNELS * ((values.size + CHANNELS - 1) // CHANNELS))
    with np.errstate(over="ignore"):
        return values.reshape(CHANNELS, -1) * SCALES


def model(fmt, configuration: str, max_val: float, width: int, rounding: str = "ROUND") -> onnx.ModelProto:
    attributes = {**CONFIGURATIONS[configuration], "has_subnormal": 1, "rounding_mode": rounding}
    names = ["scale", "exponent_bitwidth", "mantissa_bitwidth", "exponent_bias", "max_val"]
    node = helper.make_node("FloatQuant", ["x", *names], ["y"], name="float_quant", domain="qonnx.custom_op.general",
                            **attributes)
    values = [SCALES, *[np.array(v, np.float32) for v in fmt], np.array(max_val, np.float32)]
    graph = helper.make_graph([node], "float_quant",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [CHANNELS, width])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [CHANNELS, width])],
                              [numpy_helper.from_array(v, n) for n, v in zip(names, values, strict=True)])
    opsets = [helper.make_opsetid("", 13), helper.make_opsetid("qonnx.custom_op.general", 1)]
    built = helper.make_model(graph, opset_imports=opsets)
    built.ir_version = 10
    return built


def oracle(x: np.ndarray, fmt, configuration: str, max_val: float) -> np.ndarray:
    flags = CONFIGURATIONS[configuration]
    with np.errstate(all="ignore"):
        return np.asarray(float_quant(x.copy(), SCALES, *[np.array(v, np.float32) for v in fmt],
                                      max_val=np.float32(max_val), has_inf=bool(flags["has_inf"]),
                                      has_nan=bool(flags["has_nan"]), saturation=bool(flags["saturation"]),
                                      rounding_mode="ROUND")).astype(np.float32)


def integer_ir(built: onnx.ModelProto):
    module = import_model(built.SerializeToString())
    OnnxToIntegerPipeline().apply(full_context(), module)
    assert "FloatQuant" not in str(module)
    return module


def assert_same(got: np.ndarray, want: np.ndarray) -> None:
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert got[~nan].tobytes() == want[~nan].tobytes(), np.flatnonzero(got[~nan] != want[~nan])[:5]


@pytest.mark.parametrize("configuration", CONFIGURATIONS)
@pytest.mark.parametrize("fmt", FORMATS, ids=str)
def test_integer_ir_equals_qonnx(fmt, configuration):
    x = inputs(*fmt)
    largest = float(compute_max_val(*fmt))
    for max_val in (largest, largest / 2):
        got = bitfold.run(integer_ir(model(fmt, configuration, max_val, x.shape[1])), {"x": x})["y"]
        assert_same(got, oracle(x, fmt, configuration, max_val))


@pytest.mark.parametrize(("rounding", "fmt", "message"), [
    ("FLOOR", (4, 3, 7), "rounding FLOOR"),
    ("ROUND", (8, 23, 127), "23 mantissa bits"),
    ("ROUND", (4, 3, 130), "exponent bias"),
])
def test_refusal_is_one_line(rounding, fmt, message):
    built = model(fmt, "saturating", 1.0, 4, rounding)
    expected = f"'qonnx.FloatQuant' \\(float_quant\\): no float lowering .*{message}"
    with pytest.raises(PassFailedException, match=expected):
        integer_ir(built)


@pytest.mark.slow
@pytest.mark.parametrize("target", ["rv32im", "rv32imf", "rv64imv"])
@pytest.mark.parametrize("configuration", ["saturating", "has_inf"])
def test_qemu_is_bit_exact_to_bitfold_run(configuration, target, tmp_path):
    require_tools("qemu-riscv32", "qemu-riscv64", "riscv64-unknown-elf-gcc",
                  *(("mlir-opt-22", "mlir-translate-22", "clang-22") if target in VECTOR_TARGETS else ()))
    fmt = (4, 3, 7)
    x = inputs(*fmt)
    compiled = compile_model(import_model(model(fmt, configuration, 448.0, x.shape[1]).SerializeToString()), target)
    stored = compiled.quantize({"x": x})
    (got,), (want,) = compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored)
    assert got.tobytes() == want.tobytes()
    assert_same(got, oracle(x, fmt, configuration, 448.0))
