"""Float islands (docs/float-islands.md) on the three fixture models of `models.float_islands`: a float
first Conv before QDQ layers, a Sigmoid on an unrequantized i32 accumulator, a LayerNorm-like
Reduce/Sub/Div computation with Tanh, a float Gemm and Softmax between quantizers.

- the integer IR run by bitfold's interpreter against onnxruntime: within one output step
  (FLOAT_ISLAND_BOUND_STEPS) on 20 random inputs each;
- the integer IR against the host code (`--target host`, called through ctypes, and
  `bitfold-run --native`): bit-exact;
- rv64imv and rv32imv under qemu: bit-exact (slow);
- `integer-only` refuses each with one line naming the first float op."""

import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from conftest import require_tools
from models.float_islands import FLOAT_ISLAND_MODELS

from bitfold.compile import compile_model
from bitfold.load import load_module

LLVM_TOOLS = ("mlir-opt-22", "mlir-translate-22", "clang-22")
QEMU_TOOLS = ("qemu-riscv32", "qemu-riscv64", "riscv64-unknown-elf-gcc")
SEEDS = range(20)
FLOAT_ISLAND_BOUND_STEPS = 1
"""|bitfold - onnxruntime| in output steps on these models (docs/float-islands.md)"""


@pytest.fixture(scope="session")
def island_models(tmp_path_factory) -> dict[str, str]:
    directory = tmp_path_factory.mktemp("float-islands")
    paths = {}
    for name, build in FLOAT_ISLAND_MODELS.items():
        paths[name] = str(directory / f"{name}.onnx")
        onnx.save(build(), paths[name])
    return paths


@pytest.fixture(scope="session")
def host_compiled(island_models):
    require_tools(*LLVM_TOOLS)
    return {name: compile_model(load_module(path), "host") for name, path in island_models.items()}


def _inputs(path: str, seed: int) -> dict[str, np.ndarray]:
    (graph_input,) = ort.InferenceSession(path).get_inputs()
    return {graph_input.name: np.random.default_rng(seed).normal(0, 1, graph_input.shape).astype(np.float32)}


@pytest.mark.parametrize("name", FLOAT_ISLAND_MODELS)
def test_integer_ir_within_one_output_step_of_onnxruntime(name, island_models, host_compiled):
    compiled = host_compiled[name]
    session = ort.InferenceSession(island_models[name])
    step = compiled.outputs[0].qtype.scale_values()[0]
    for seed in SEEDS:
        inputs = _inputs(island_models[name], seed)
        (got,) = compiled.dequantize(compiled.run_reference(compiled.quantize(inputs)))
        (want,) = session.run(None, inputs)
        assert np.max(np.abs(got - want)) <= FLOAT_ISLAND_BOUND_STEPS * step * (1 + 1e-6), f"{name} seed {seed}"


@pytest.mark.parametrize("name", FLOAT_ISLAND_MODELS)
def test_host_code_is_bit_exact_to_the_integer_ir(name, island_models, host_compiled, tmp_path):
    compiled = host_compiled[name]
    for seed in SEEDS[:3]:
        stored = compiled.quantize(_inputs(island_models[name], seed))
        for got, want in zip(compiled.run_native(stored, tmp_path / str(seed)), compiled.run_reference(stored), strict=True):
            np.testing.assert_array_equal(got, want, err_msg=f"{name} seed {seed}")


def test_a_float_input_is_a_float_port_in_the_header(host_compiled):
    compiled = host_compiled["float_first_conv"]
    assert compiled.inputs[0].qtype is None and compiled.inputs[0].dtype == np.float32
    assert "const float *input" in compiled.header and "float input[1][3][8][8] (IEEE binary32" in compiled.header


def test_bitfold_run_native_equals_the_integer_ir_stage(island_models, tmp_path):
    """`bitfold-run --native` against `bitfold-run` on `bitfold-opt -p onnx-to-integer`'s IR."""
    require_tools(*LLVM_TOOLS)
    model = island_models["accumulator_sigmoid"]
    np.save(tmp_path / "x.npy", _inputs(model, 1)["input"])
    commands = [
        ["bitfold-opt", model, "-p", "onnx-to-integer", "-o", str(tmp_path / "integer.mlir")],
        ["bitfold-run", str(tmp_path / "integer.mlir"), "--input", f"input={tmp_path / 'x.npy'}", "--output-dir",
         str(tmp_path / "interpreted")],
        ["bitfold-run", model, "--native", "--input", f"input={tmp_path / 'x.npy'}", "--output-dir",
         str(tmp_path / "native")],
    ]  # fmt: skip
    for command in commands:
        done = subprocess.run(command, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    interpreted, native = (np.load(tmp_path / d / "output.npy") for d in ("interpreted", "native"))
    assert native.dtype == interpreted.dtype == np.float32
    np.testing.assert_array_equal(native, interpreted)


@pytest.mark.slow
@pytest.mark.parametrize("target", ["rv64imv", "rv32imv"])
@pytest.mark.parametrize("name", FLOAT_ISLAND_MODELS)
def test_vector_code_under_qemu_is_bit_exact_to_the_integer_ir(name, target, island_models, tmp_path):
    require_tools(*LLVM_TOOLS, *QEMU_TOOLS)
    compiled = compile_model(load_module(island_models[name]), target)
    stored = compiled.quantize(_inputs(island_models[name], 0))
    for got, want in zip(compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(got, want, err_msg=f"{name} {target}")


FIRST_FLOAT_OP = {
    "float_first_conv": "'onnx.Conv' (float_conv)",
    "accumulator_sigmoid": "'onnx.Sigmoid' (sigmoid)",
    "reduce_normalize": "'onnx.Sub' (span)",  # the integer ReduceMax/ReduceMin before it are exact
}


@pytest.mark.parametrize("name", FLOAT_ISLAND_MODELS)
def test_integer_only_refuses_in_one_line_naming_the_float_op(name, island_models, tmp_path):
    command = ["bitfold-compile", island_models[name], "--target", "host", "--integer-only", "-o", str(tmp_path)]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert FIRST_FLOAT_OP[name] in lines[0], lines[0]
