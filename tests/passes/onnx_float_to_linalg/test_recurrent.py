"""LSTM and GRU (`dialects/onnx/recurrent.py`; forward, reverse, bidirectional, initial states,
peepholes, GRU's linear_before_reset 0 and 1): bitfold-run's reference against onnxruntime and
onnx's reference evaluator, the integer IR (unrolled by `recurrent_decomposition` into a float
island) against onnxruntime, both within float32 rounding; the host code bit-exact to the
interpreter (slow: clang-22 on the unrolled steps takes about a minute a model), and a GRU's rv32im
code (soft float; the LSTM runs on RISC-V in tests/e2e/test_brevitas_fixtures.py) under qemu; a constant
sequence_lens of the full length is the same as none; an unsupported form (clip, shorter sequences)
is one line naming the node."""

import numpy as np
import onnx
import pytest
from conftest import require_tools
from models.recurrent import recurrent_model
from models.runners import run_onnxruntime
from onnx.reference import ReferenceEvaluator
from xdsl.context import Context
from xdsl.utils.exceptions import PassFailedException

import bitfold
from bitfold.compile import compile_model
from bitfold.frontends.onnx import import_model
from bitfold.load import load_module
from bitfold.passes.pipelines import OnnxToIntegerPipeline

CASES = {
    "lstm_forward": {"op_type": "LSTM", "direction": "forward"},
    "lstm_bidirectional": {"op_type": "LSTM", "direction": "bidirectional"},
    "lstm_reverse_no_state": {"op_type": "LSTM", "direction": "reverse", "initial": False},
    "lstm_peepholes": {"op_type": "LSTM", "direction": "forward", "peepholes": True},
    "gru_linear_before_reset": {"op_type": "GRU", "direction": "forward", "linear_before_reset": 1},
    "gru_bidirectional": {"op_type": "GRU", "direction": "bidirectional"},
}
TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}
"""float32 rounding of a few steps of 5- and 3-term sums, sigmoid and tanh (a few ulp each)"""


def _input(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    return {"x": np.random.default_rng(1).normal(0, 1, shape).astype(np.float32)}


@pytest.mark.parametrize("name", CASES)
def test_recurrent_against_onnxruntime(name, tmp_path):
    model = recurrent_model(**CASES[name])
    path = tmp_path / f"{name}.onnx"
    onnx.save(model, path)
    inputs = _input(model)
    want = run_onnxruntime(path, inputs)
    reference = dict(zip(want, ReferenceEvaluator(model).run(None, inputs), strict=True))
    module = import_model(str(path))
    imported = bitfold.run(module, inputs)
    OnnxToIntegerPipeline().apply(Context(), module)
    assert "onnx.LSTM" not in str(module) and "onnx.GRU" not in str(module)
    integer = bitfold.run(module, inputs)
    for output in want:
        np.testing.assert_allclose(imported[output], want[output], **TOLERANCE)
        np.testing.assert_allclose(imported[output], reference[output], **TOLERANCE)
        np.testing.assert_allclose(integer[output], want[output], **TOLERANCE)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["lstm_bidirectional", "gru_linear_before_reset"])
def test_host_code_is_bit_exact_to_the_interpreter(name, tmp_path):
    require_tools("mlir-opt-22", "mlir-translate-22", "clang-22")
    model = recurrent_model(**CASES[name])
    onnx.save(model, tmp_path / "m.onnx")
    compiled = compile_model(load_module(str(tmp_path / "m.onnx")), "host")
    stored = compiled.quantize(_input(model))
    for native, reference in zip(compiled.run_native(stored, tmp_path), compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(native.view(np.int32), reference.view(np.int32))


@pytest.mark.slow
def test_gru_on_rv32im_is_bit_exact_to_the_interpreter(tmp_path):
    require_tools("qemu-riscv32", "riscv64-unknown-elf-gcc")
    model = recurrent_model(**CASES["gru_bidirectional"])
    onnx.save(model, tmp_path / "m.onnx")
    compiled = compile_model(load_module(str(tmp_path / "m.onnx")), "rv32im")
    stored = compiled.quantize(_input(model))
    for got, reference in zip(compiled.run_qemu(stored, tmp_path), compiled.run_reference(stored), strict=True):
        np.testing.assert_array_equal(np.asarray(got).view(np.int32), np.asarray(reference).view(np.int32))


def test_clip_is_one_line(tmp_path):
    onnx.save(recurrent_model("LSTM", "forward", clip=3.0), tmp_path / "clip.onnx")
    module = import_model(str(tmp_path / "clip.onnx"))
    with pytest.raises(PassFailedException, match=r"'onnx.LSTM' \(rnn\): onnx.LSTM with clip is not supported"):
        OnnxToIntegerPipeline().apply(Context(), module)


def _with_sequence_lens(lengths: list[int]) -> onnx.ModelProto:
    """lstm_forward with a constant sequence_lens input (as Brevitas' QuantLSTM export writes it)."""
    model = recurrent_model("LSTM", "forward")
    model.graph.initializer.append(onnx.numpy_helper.from_array(np.array(lengths, np.int32), "lengths"))
    model.graph.node[0].input[4] = "lengths"
    return model


def test_full_length_sequence_lens_is_no_sequence_lens(tmp_path):
    """Every sequence its full length (4): the integer IR computes onnxruntime's outputs as without it."""
    path = tmp_path / "lengths.onnx"
    onnx.save(_with_sequence_lens([4, 4]), path)
    inputs = _input(onnx.load(path))
    want = run_onnxruntime(path, inputs)
    module = import_model(str(path))
    OnnxToIntegerPipeline().apply(Context(), module)
    integer = bitfold.run(module, inputs)
    for output in want:
        np.testing.assert_allclose(integer[output], want[output], **TOLERANCE)


def test_shorter_sequence_lens_is_one_line(tmp_path):
    onnx.save(_with_sequence_lens([4, 2]), tmp_path / "short.onnx")
    module = import_model(str(tmp_path / "short.onnx"))
    with pytest.raises(PassFailedException, match=r"'onnx.LSTM' \(rnn\): onnx.LSTM with sequence_lens is not supported"):
        OnnxToIntegerPipeline().apply(Context(), module)
