"""`bitfold-quantize --data-free` end to end on DS-CNN with its BatchNormalization kept: the written
model runs (bitfold-run) with an SQNR floor against onnxruntime's float outputs, its QDQ export in
onnxruntime agrees with bitfold-run, it compiles for rv32im bit-exact under qemu; BatchNormalization
folding keeps the float model's outputs; the command line's errors are one line, exit 1."""

import numpy as np
import onnx
import pytest
from conftest import require_tools
from models.mlperf_tiny.architectures import BUILDERS, random_input
from models.mlperf_tiny.batch_norm_models import batch_norm_model
from models.runners import run_onnxruntime

from bitfold.calibration.batch_norm_folding import fold_batch_norms
from bitfold.compile import compile_model
from bitfold.dialects.onnx.nn import BatchNormalizationOp, ConvOp
from bitfold.dialects.quant import QuantizeCastOp, element_type
from bitfold.frontends.onnx import import_model
from bitfold.interpreter import entry_function, run
from bitfold.load import load_module
from bitfold.quantize_main import main

NETWORK = "dscnn"
TESTS = 16
SQNR_FLOOR = 31.0
"""dB at w8a8 per channel; bench/quantize_sqnr.py --data-free measures 34.9 on 128 test inputs
(data-driven MinMax 34.5)."""


@pytest.fixture(scope="module")
def float_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("data_free") / f"{NETWORK}.onnx"
    onnx.save(batch_norm_model(NETWORK), path)
    return path


@pytest.fixture(scope="module")
def tests():
    return [{"input": random_input(NETWORK, 1000 + seed)} for seed in range(TESTS)]


@pytest.fixture(scope="module")
def quantized(float_path):
    out = float_path.parent / "q.mlir"
    main([str(float_path), "--data-free", "--input-range=-4,4", "--per-channel", "-o", str(out)])
    main([str(float_path), "--data-free", "--input-range=-4,4", "--per-channel", "-o", str(out.with_suffix(".onnx"))])
    return out


def _sqnr(reference: np.ndarray, values: np.ndarray) -> float:
    return float(10 * np.log10(np.sum(reference**2) / np.sum((reference - values) ** 2)))


def _outputs(runner, tests) -> np.ndarray:
    return np.concatenate([next(iter(runner(t).values())) for t in tests])


@pytest.mark.parametrize("biases", [True, False], ids=["biased", "bias-less"])
def test_batch_norm_folding_keeps_the_outputs(float_path, tests, tmp_path, biases):
    """Every BatchNormalization folds (into a Conv without bias too, which gets one) and the model
    computes what onnxruntime computes with the BatchNormalization nodes."""
    model = onnx.load(float_path)
    if not biases:  # the builder's Conv biases are zeros: dropping them keeps the function
        for node in model.graph.node:
            if node.op_type == "Conv" and any(n.input[0] == node.output[0] and n.op_type == "BatchNormalization"
                                              for n in model.graph.node):
                del node.input[2:]
    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    module = import_model(path)
    function = entry_function(module)
    statistics = fold_batch_norms(function)
    assert len(statistics) == 9 and not any(isinstance(op, BatchNormalizationOp) for op in function.body.walk())
    assert all(len(op.operands) == 3 for op in function.body.walk() if isinstance(op, ConvOp))
    reference = _outputs(lambda t: run_onnxruntime(path, t), tests[:4])
    np.testing.assert_allclose(_outputs(lambda t: run(module, t), tests[:4]), reference, rtol=1e-4, atol=1e-4)


def test_data_free_model_keeps_an_sqnr_floor(float_path, quantized, tests):
    module = load_module(str(quantized))
    reference = _outputs(lambda t: run_onnxruntime(float_path, t), tests)
    ours = _outputs(lambda t: run(module, t), tests)
    assert _sqnr(reference, ours) >= SQNR_FLOOR
    in_onnxruntime = _outputs(lambda t: run_onnxruntime(quantized.with_suffix(".onnx"), t), tests)
    last = [op for op in module.walk() if isinstance(op, QuantizeCastOp)][-1]
    step = float(min(element_type(last.result.type).scale_values()))
    np.testing.assert_allclose(in_onnxruntime, ours, atol=step * 1.001, rtol=0)  # float32 rounding at ties


@pytest.mark.slow  # a RISC-V compilation and a qemu run
def test_data_free_model_compiles_bit_exact(quantized, tests, tmp_path):
    require_tools("qemu-riscv32")
    compiled = compile_model(load_module(str(quantized)), "rv32im")
    stored = compiled.quantize(tests[0])
    for got, want in zip(compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(got, want)


def _one_line_error(capsys, args: list[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        main(args)
    assert exit_.value.code == 1
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and error.startswith("error: ")
    return error


def test_cli_errors_are_one_line(float_path, tmp_path, capsys):
    folded = tmp_path / "folded.onnx"
    onnx.save(BUILDERS[NETWORK](), folded)
    out = ["-o", str(tmp_path / "q.mlir")]
    model = str(float_path)
    assert "mutually exclusive" in _one_line_error(capsys, [model, "--data-free", "--calibration", "x.npz", *out])
    assert "--calibration DATA.npz, or --data-free" in _one_line_error(capsys, [model, *out])
    assert "go with --data-free" in _one_line_error(capsys, [model, "--calibration", "x.npz", "--input-range=0,1",
                                                             *out])
    assert "input 'input' has no range" in _one_line_error(capsys, [model, "--data-free", *out])
    assert "no BatchNormalization" in _one_line_error(capsys, [str(folded), "--data-free", "--input-range=0,1", *out])
    assert "--method minmax or mse" in _one_line_error(capsys, [model, "--data-free", "--method", "percentile", *out])
    assert "not with --data-free" in _one_line_error(capsys, [model, "--data-free", "--input-range=0,1",
                                                              "--budget", "1000", *out])
