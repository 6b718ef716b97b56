"""Where a float model is quantized, and the calibration statistics recorded there.

The quantization points of a float function are its float arguments and the float results of
its ONNX ops, except:
- constants (weights and biases are quantized by `calibrated-to-uniform`, not calibrated);
- results of ops that only move, copy or select elements (`PASS_THROUGH`): they keep their
  input's quantization (canonicalize-quant moves the dequantization through them);
- the result of an op whose only reader is a Relu: the Relu's result is the point, and the Relu
  goes. Its observed range starts at 0, so every scheme gives it zero point 0 at the bottom of
  the storage range, and the quantizer's clamp computes the Relu exactly (as onnxruntime's QDQ
  quantizer fuses it).

Average pools keep the range of the point their input comes from (`range_source`), as
onnxruntime's quantizer keeps their scale: an average never leaves its input's range, while its
own observed range can miss values calibration did not see.

`annotate_calibration(function, ranges)` records each point's range as
`dcast(qcast(x : !quant.calibrated<f32<lo:hi>>))`, upstream's calibration statistics type."""

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import AnyFloat, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.dialects.onnx import replication, shape
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.constant import ConstantOp
from bitfold.dialects.onnx.elementwise import IdentityOp, ReluOp
from bitfold.dialects.onnx.nn import AveragePoolOp, GlobalAveragePoolOp, MaxPoolOp
from bitfold.dialects.quant import CalibratedQuantizedType, DequantizeCastOp, QuantizeCastOp

PASS_THROUGH = (*(op for op in shape.OPS if op is not shape.ConcatOp), *replication.OPS, MaxPoolOp, IdentityOp)
"""Single-input ops that move, copy or select elements (a Concat's inputs may differ in range)."""
RANGE_KEEPING = (AveragePoolOp, GlobalAveragePoolOp)
SMALLEST_RANGE = 1e-8


def _is_float_tensor(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and isinstance(value.type.element_type, AnyFloat)


def _feeds_only_relu(value: SSAValue) -> bool:
    uses = list(value.uses)
    return len(uses) == 1 and isinstance(uses[0].operation, ReluOp)


def quantization_points(function: func.FuncOp) -> list[SSAValue]:
    """The values of `function` to calibrate and quantize (module docstring), in program order."""
    points = [arg for arg in function.args if _is_float_tensor(arg) and not _feeds_only_relu(arg)]
    for op in function.body.walk():
        if not isinstance(op, OnnxOp) or isinstance(op, (ConstantOp, *PASS_THROUGH)):
            continue
        points += [r for r in op.results if _is_float_tensor(r) and not _feeds_only_relu(r)]
    return points


def range_source(point: SSAValue, points: Sequence[SSAValue]) -> SSAValue | None:
    """The point whose range `point` keeps (an average pool's input point, through pass-through ops), if any."""
    if not isinstance(point.owner, RANGE_KEEPING):
        return None
    source = point.owner.operands[0]
    while source not in points and isinstance(source.owner, PASS_THROUGH):
        source = source.owner.operands[0]
    return source if source in points else None


def _record(value: SSAValue, low: float, high: float, after: Operation | None, function: func.FuncOp) -> None:
    """Put `dcast(qcast(value))` with the calibrated type of [low, high] between `value` and its readers."""
    value_type = value.type
    assert isinstance(value_type, TensorType)
    high = max(high, low + SMALLEST_RANGE)
    calibrated = TensorType(CalibratedQuantizedType.get(low, high, value_type.element_type), value_type.get_shape())
    quantize = QuantizeCastOp(value, calibrated)
    dequantize = DequantizeCastOp(quantize.result, value_type)
    where = InsertPoint.after(after) if after is not None else InsertPoint.at_start(function.body.block)
    Rewriter.insert_op([quantize, dequantize], where)
    value.replace_uses_with_if(dequantize.result, lambda use: use.operation is not quantize)


def annotate_calibration(function: func.FuncOp, points: Sequence[SSAValue],
                         ranges: Sequence[tuple[float, float]]) -> None:
    """Record each point's range (module docstring); a Relu result's point moves to the Relu's
    input and the Relu goes."""
    for value, (low, high) in zip(points, ranges, strict=True):
        owner = value.owner
        if isinstance(owner, ReluOp) and _feeds_only_relu(owner.operands[0]):
            source = owner.operands[0]
            value.replace_all_uses_with(source)
            Rewriter.erase_op(owner)
            _record(source, low, high, source.owner if isinstance(source.owner, Operation) else None, function)
        else:
            _record(value, low, high, owner if isinstance(owner, Operation) else None, function)
