"""Every quantized test model through the integer pipeline, run after each stage (issue 5's
acceptance): import, onnx-to-quant + canonicalize-quant, quant-to-integer, lower-quant.

- The canonical form computes exactly what the imported model computes (the import itself is
  checked against onnxruntime / qonnx in tests/e2e).
- Integer code against the canonical form: on every output a quantizer produces, at most 1 LSB
  apart, where the float reference rounds a product, sum or average to float32 before its
  qcast and lands next to a rounding boundary; such elements are counted over the catalogue,
  printed and bounded. Outputs that float compute produces after the last quantizer (QONNX
  models ending in a float Gemm or pool) hold within float32 rounding (rtol 1e-5 of the
  output's magnitude).
- lower-quant against quant-to-integer: within 1 LSB (its fixed-point requantization is
  within 1 LSB of the exact `quant.requant`, tests/passes/lower_quant), counted and bounded.
- Between the input qcasts and output dcasts no float op remains; with `integer-io` no float
  type remains at all, and (both lowered) the integer function computes the storage integers
  of the float function's outputs bit for bit.
"""

from dataclasses import dataclass, field

import numpy as np
import pytest
from models.recipes import names
from xdsl.dialects import func
from xdsl.dialects.builtin import AnyFloat, ModuleOp, TensorType
from xdsl.ir import BlockArgument

import bitfold
from bitfold.dialects.quant import DequantizeCastOp, QuantizeCastOp, UniformQuantizedType, element_type
from bitfold.dialects.quant_semantics import dequantize, from_storage, quantize, to_storage
from bitfold.load import full_context, load_module
from bitfold.passes.canonicalize_quant import CanonicalizeQuantPass
from bitfold.passes.lower_quant import LowerQuantPass
from bitfold.passes.onnx_to_quant import OnnxToQuantPass
from bitfold.passes.quant_to_integer import QuantToIntegerPass

SEEDS = (0, 1)
MAX_ONE_LSB_FRACTION = 1e-2
QUANTIZED_MODELS = [name for name in names() if not name.endswith("-float")]


@dataclass
class Tally:
    compared: int = 0
    one_lsb: dict[str, int] = field(default_factory=dict)

    def add(self, name: str, compared: int, differing: int) -> None:
        self.compared += compared
        if differing:
            self.one_lsb[name] = self.one_lsb.get(name, 0) + differing

    @property
    def differing(self) -> int:
        return sum(self.one_lsb.values())


@pytest.fixture(scope="module")
def integer_tally():
    tally = Tally()
    yield tally
    print(f"\nquant-to-integer vs canonical form: {tally.differing} of {tally.compared} quantized output "
          f"elements differ by 1 LSB, none by more; by model: {tally.one_lsb}")
    assert tally.differing <= MAX_ONE_LSB_FRACTION * max(tally.compared, 1)


@pytest.fixture(scope="module")
def lowering_tally():
    tally = Tally()
    yield tally
    print(f"\nlower-quant vs quant-to-integer: {tally.differing} of {tally.compared} quantized output "
          f"elements differ by 1 LSB, none by more; by model: {tally.one_lsb}")
    assert tally.differing <= MAX_ONE_LSB_FRACTION * max(tally.compared, 1)


def _apply(module: ModuleOp, *passes) -> None:
    ctx = full_context()
    for stage in passes:
        stage.apply(ctx, module)
    module.verify()


def _function(module: ModuleOp) -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks)


def _output_steps(module: ModuleOp) -> list[np.ndarray | None]:
    """Per result of the canonical form: the quantization step (scales broadcastable to the
    output) when a quantizer's dcast produces it, None when float compute does."""
    ret = _function(module).body.blocks[-1].last_op
    steps = []
    for value in ret.operands:
        owner = value.owner
        qtype = element_type(owner.input.type) if isinstance(owner, DequantizeCastOp) else None
        steps.append(qtype.parameter_arrays(value.type.get_shape())[0] if isinstance(qtype, UniformQuantizedType) else None)
    return steps


def _is_float(value_type) -> bool:
    element = value_type.element_type if isinstance(value_type, TensorType) else value_type
    return isinstance(element, AnyFloat)


def float_ops_between(module: ModuleOp) -> list[str]:
    """Ops touching float values other than input qcasts (of arguments) and output dcasts
    (read only by the return)."""
    found = []
    for op in _function(module).walk():
        if isinstance(op, (func.FuncOp, func.ReturnOp)):
            continue
        if isinstance(op, QuantizeCastOp) and isinstance(op.input, BlockArgument):
            continue
        if isinstance(op, DequantizeCastOp) and all(isinstance(u.operation, func.ReturnOp) for u in op.result.uses):
            continue
        if any(_is_float(v.type) for v in (*op.operands, *op.results)):
            found.append(op.name)
    return found


def _compare(name: str, expected: dict, actual: dict, steps, tally: Tally) -> None:
    for (key, want), step in zip(expected.items(), steps, strict=True):
        got = actual[key]
        assert got.shape == want.shape and got.dtype == want.dtype, key
        if step is None:
            scale = max(1.0, float(np.abs(want).max()))
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * scale, err_msg=f"{name}: {key}")
            continue
        lsb = np.rint((got.astype(np.float64) - want.astype(np.float64)) / step)
        assert np.abs(lsb).max(initial=0) <= 1, f"{name}: {key} differs by {np.abs(lsb).max()} LSB"
        tally.add(name, want.size, int(np.count_nonzero(lsb)))


@pytest.mark.parametrize("name", QUANTIZED_MODELS)
def test_every_stage_computes_the_model(name, model_catalogue, integer_tally, lowering_tally):
    module = load_module(str(model_catalogue.path(name)))
    inputs = [model_catalogue.inputs(name, seed=seed) for seed in SEEDS]
    imported = [bitfold.run(module, x) for x in inputs]

    _apply(module, OnnxToQuantPass(), CanonicalizeQuantPass())
    canonical = [bitfold.run(module, x) for x in inputs]
    for want, got in zip(imported, canonical):
        for key in want:
            np.testing.assert_array_equal(got[key], want[key], err_msg=f"{name}: {key} (canonical form)")
    steps = _output_steps(module)

    _apply(module, QuantToIntegerPass())
    assert float_ops_between(module) == []
    integer = [bitfold.run(module, x) for x in inputs]
    for want, got in zip(canonical, integer):
        _compare(name, want, got, steps, integer_tally)

    _apply(module, LowerQuantPass())
    lowered = [bitfold.run(module, x) for x in inputs]
    for want, got in zip(integer, lowered):
        _compare(name, want, got, steps, lowering_tally)


@pytest.mark.parametrize("name", QUANTIZED_MODELS[::5])
def test_integer_io_computes_the_storage_integers(name, model_catalogue):
    float_io = load_module(str(model_catalogue.path(name)))
    _apply(float_io, OnnxToQuantPass(), CanonicalizeQuantPass(), QuantToIntegerPass())
    integer_io = float_io.clone()
    _apply(integer_io, QuantToIntegerPass(integer_io=True), LowerQuantPass())
    assert not any(_is_float(v.type) for op in integer_io.walk() for v in (*op.operands, *op.results))
    function = _function(float_io)
    input_types = [element_type(next(iter(arg.uses)).operation.result.type) for arg in function.args]
    output_types = [element_type(v.owner.input.type) for v in function.body.blocks[-1].last_op.operands]
    _apply(float_io, LowerQuantPass())
    for seed in SEEDS:
        inputs = model_catalogue.inputs(name, seed=seed)
        stored = [to_storage(quantize(x, t), t) for x, t in zip(inputs.values(), input_types, strict=True)]
        expected = bitfold.run(float_io, inputs)
        actual = bitfold.run(integer_io, stored)
        for (key, want), got, qtype in zip(expected.items(), actual.values(), output_types, strict=True):
            np.testing.assert_array_equal(dequantize(from_storage(got, qtype), qtype), want, err_msg=key)
