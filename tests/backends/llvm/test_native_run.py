"""`bitfold-run MODEL --native` and `bitfold.native.run_native`: a quantized test model compiled for the
host through MLIR and LLVM and called through ctypes gives, bit for bit, bitfold's interpreter on the
model's integer IR (dequantized as the model's outputs are); `--native` with `--function` is refused."""

import subprocess

import numpy as np
from conftest import require_tools

from bitfold.load import load_module
from bitfold.native import run_native

MODEL = "residual-qdq-u8s8-perchannel"


def interpreted(catalogue_compilations, inputs):
    """The interpreter on the model's integer IR, its outputs dequantized."""
    compiled = catalogue_compilations(MODEL, "host", "llvm")
    outputs = compiled.run_reference(compiled.quantize(inputs))
    return dict(zip([p.name for p in compiled.outputs], compiled.dequantize(outputs), strict=True))


def test_api_equals_the_interpreter(model_catalogue, catalogue_compilations):
    require_tools("mlir-opt-22", "mlir-translate-22", "clang-22")
    inputs = model_catalogue.inputs(MODEL, seed=0)
    native = run_native(load_module(str(model_catalogue.path(MODEL))), inputs)
    expected = interpreted(catalogue_compilations, inputs)
    assert native.keys() == expected.keys()
    for name, want in expected.items():
        np.testing.assert_array_equal(native[name], want, err_msg=name)


def test_command_line_equals_the_interpreter(model_catalogue, catalogue_compilations, tmp_path):
    require_tools("mlir-opt-22", "mlir-translate-22", "clang-22")
    inputs = model_catalogue.inputs(MODEL, seed=0)
    arguments = []
    for name, value in inputs.items():
        np.save(tmp_path / f"{name}.npy", value)
        arguments += ["--input", f"{name}={tmp_path / name}.npy"]
    done = subprocess.run(["bitfold-run", str(model_catalogue.path(MODEL)), "--native", *arguments,
                           "--output-dir", str(tmp_path / "out")], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    expected = interpreted(catalogue_compilations, inputs)
    for line in done.stdout.splitlines():
        name, _, path = line.partition(": ")
        np.testing.assert_array_equal(np.load(path), expected[name], err_msg=name)


def test_native_takes_no_function(model_catalogue):
    done = subprocess.run(["bitfold-run", str(model_catalogue.path(MODEL)), "--native", "--function", "f"],
                          check=False, capture_output=True, text=True)
    assert done.returncode == 2
    assert "--native runs the model's one public function: no --function" in done.stderr
