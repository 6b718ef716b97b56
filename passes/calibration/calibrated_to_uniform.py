"""`calibrated-to-uniform`: calibration statistics become uniform quantization, and the weights
and biases of the contractions are quantized: the float model with `!quant.calibrated` points
becomes the canonical quant form (docs/canonical-quant-form.md).

- Every `quant.qcast` to `!quant.calibrated<f32<lo:hi>>` gets `activation_type(lo, hi)` of the
  scheme (`schemes.py`: `activation-bits`, `symmetric`, `power-of-two`).
- Conv, Gemm and MatMul with a constant float weight: the weight becomes a constant of
  `weight_type` (`weight-bits`, or per layer `layer-weight-bits`: one width for each of
  `weighted_contractions` in program order; per output channel with `per-channel`: Conv axis 0,
  Gemm axis 0 if transB else 1, MatMul the last axis; peaks clipped for the least squared error
  with `clip-weights`), `scast` + `dcast`; a constant float bias (Conv, Gemm
  with alpha = beta = 1) becomes int32 on the accumulator grid s_x s_w. The input scale s_x is
  that of the per-tensor quantization point the input comes from (through pass-through ops)."""

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.constant import ConstantOp, dense_to_numpy
from bitfold.dialects.onnx.nn import ConvOp, GemmOp, MatMulOp
from bitfold.dialects.quant import (
    CalibratedQuantizedType,
    DequantizeCastOp,
    QuantizeCastOp,
    QuantizedType,
    UniformQuantizedType,
    element_type,
)
from bitfold.dialects.quant_semantics import quantize
from bitfold.dialects.quantized_constants import quantized_constant
from bitfold.passes.calibration.points import PASS_THROUGH
from bitfold.passes.calibration.schemes import Scheme, activation_type, bias_values, weight_type


class CalibrationError(Exception):
    """A model the chosen scheme cannot quantize (one line naming the node)."""


def _constant(value: SSAValue) -> np.ndarray | None:
    return dense_to_numpy(value.owner.value) if isinstance(value.owner, ConstantOp) else None


def _quantized_constant(stored: np.ndarray, qtype: QuantizedType, before: Operation) -> SSAValue:
    """`dcast` of the canonical constant holding the stored values `stored` of `qtype`, inserted before `before`."""
    integers, cast = quantized_constant(stored, TensorType(qtype, stored.shape))
    real = DequantizeCastOp(cast.result, TensorType(qtype.expressed_type, stored.shape))
    Rewriter.insert_op([integers, cast, real], InsertPoint.before(before))
    return real.result


def _input_scale(op: OnnxOp) -> float:
    value = op.operands[0]
    while isinstance(value.owner, PASS_THROUGH):
        value = value.owner.operands[0]
    source = value.owner
    if isinstance(source, DequantizeCastOp):
        quantized = element_type(source.input.type)
        if isinstance(quantized, QuantizedType) and len(quantized.scale_values()) == 1:
            return quantized.scale_values()[0]
    raise CalibrationError(f"node '{op.node_name}': its input is not quantized per tensor, so its bias has no grid")


def weight_axis(op: OnnxOp, rank: int) -> int:
    """The output-channel axis of `op`'s weight (of `rank` axes): its per-channel quantization axis."""
    if isinstance(op, ConvOp):
        return 0
    if isinstance(op, GemmOp):
        return 0 if op.int_attr("transB") else 1
    return rank - 1


def contraction_weight_type(op: OnnxOp, weights: np.ndarray, scheme: Scheme, per_channel: bool,
                            clip: bool) -> QuantizedType:
    """The type `op`'s constant `weights` are quantized to: `weight_type` per output channel
    (`weight_axis`) or per tensor, peaks clipped with `clip`."""
    axis = weight_axis(op, weights.ndim) if per_channel else None
    return weight_type(weights, scheme, axis, op.operands[1].type.element_type, clip)


def weighted_contractions(scope: Operation) -> list[OnnxOp]:
    """The Conv, Gemm and MatMul ops in `scope` whose weight (second operand) is a float constant,
    in program order: the layers whose weights `calibrated-to-uniform` quantizes."""
    return [op for op in scope.walk()
            if isinstance(op, ConvOp | GemmOp | MatMulOp) and _constant(op.operands[1]) is not None]


def _quantize_contraction(op: OnnxOp, scheme: Scheme, per_channel: bool, clip: bool) -> None:
    weights = _constant(op.operands[1])
    expressed = op.operands[1].type.element_type
    wtype = contraction_weight_type(op, weights, scheme, per_channel, clip)
    axis = weight_axis(op, weights.ndim) if per_channel else None
    op.operands[1] = _quantized_constant(quantize(weights, wtype), wtype, op)
    if len(op.operands) < 3 or (bias := _constant(op.operands[2])) is None:
        return
    if isinstance(op, GemmOp) and (op.float_attr("alpha") != 1.0 or op.float_attr("beta") != 1.0):
        raise CalibrationError(f"node '{op.node_name}': a Gemm bias with alpha or beta other than 1 has no int32 grid")
    values, scales = bias_values(bias, _input_scale(op), np.asarray(wtype.scale_values()))
    btype = UniformQuantizedType.get(32, True, expressed, scales.tolist() if axis is not None else float(scales[0]),
                                     axis=0 if axis is not None else None)
    op.operands[2] = _quantized_constant(values, btype, op)


@dataclass(frozen=True)
class CalibratedToUniformPass(ModulePass):
    """Calibration statistics to uniform types; weights and biases quantized (module docstring)."""

    name = "calibrated-to-uniform"

    activation_bits: int = 8
    weight_bits: int = 8
    per_channel: bool = False
    symmetric: bool = False
    power_of_two: bool = False
    clip_weights: bool = False
    layer_weight_bits: tuple[int, ...] = ()
    """one weight width for each of `weighted_contractions` in program order (empty: `weight_bits` for all)"""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        activations = Scheme(self.activation_bits, self.symmetric, self.power_of_two)
        contractions = weighted_contractions(op)
        widths = self.layer_weight_bits or (self.weight_bits,) * len(contractions)
        if len(widths) != len(contractions):
            raise CalibrationError(f"layer-weight-bits lists {len(widths)} widths for {len(contractions)} layers "
                                   "with constant weights")
        for quantize_op in [o for o in op.walk() if isinstance(o, QuantizeCastOp)]:
            calibrated = element_type(quantize_op.result.type)
            if isinstance(calibrated, CalibratedQuantizedType):
                qtype = activation_type(calibrated.min, calibrated.max, activations, calibrated.expressed_type)
                Rewriter.replace_value_with_new_type(
                    quantize_op.result, TensorType(qtype, quantize_op.result.type.get_shape()))
        for contraction, bits in zip(contractions, widths, strict=True):
            _quantize_contraction(contraction, Scheme(bits, True, self.power_of_two), self.per_channel,
                                  self.clip_weights)
