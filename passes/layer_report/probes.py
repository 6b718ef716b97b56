"""Make every layer's output observable, and take activation quantization out of a network.

`add_layer_probes(function)` appends, for each layer (`layer_ops`), its output as the real value
the model computes to the function's results, named `probe<i>`: `dcast(qcast(y))` where
the layer's output `y` feeds a `quant.qcast`, `dcast(y)` where `y` is itself quantized, else `y`.

`strip_activation_quantization(module)` replaces every `quant.qcast` of a computed (non-constant)
value by its saturation alone, `min(max(x, (q_min - zp) * s), (q_max - zp) * s)` (onnx.Max,
onnx.Min: quantizers often stand for a Relu or Clip the producer removed), drops the
`quant.dcast` / `quant.requant` that then read float values, and gives ops on formerly quantized
values their expressed float type: the network without rounding, with the model's own
(quantized) weights, the reference each layer's quantization error is measured against."""

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.dialects.onnx.constant import ConstantOp, dense_attr
from bitfold.dialects.onnx.elementwise import MaxOp, MinOp
from bitfold.dialects.quant import DequantizeCastOp, QuantizeCastOp, QuantizedType, RequantizeOp, element_type
from bitfold.passes.layer_report.costs import is_constant, layer_ops
from bitfold.passes.utils.observed_values import append_results

PROBE_PREFIX = "probe"


def _dequantized(value: SSAValue, after: Operation) -> SSAValue:
    if not isinstance(element_type(value.type), QuantizedType):
        return value
    cast = DequantizeCastOp(value, QuantizedType.cast_to_expressed_type(value.type))
    Rewriter.insert_op(cast, InsertPoint.after(after))
    return cast.result


def _probe(op: Operation) -> SSAValue:
    output = op.results[0]
    quantizers = [use.operation for use in output.uses if isinstance(use.operation, QuantizeCastOp)]
    if quantizers:
        return _dequantized(quantizers[0].result, quantizers[0])
    return _dequantized(output, op)


def add_layer_probes(function: func.FuncOp) -> list[str]:
    """Append every layer's output to `function`'s results (module docstring); returns the
    layers' node names, in the order of the probes `probe0`, `probe1`, ..."""
    layers = layer_ops(function)
    append_results(function, [_probe(op) for op in layers], PROBE_PREFIX)
    return [op.node_name for op in layers]


def _saturation(quantize: QuantizeCastOp) -> list[Operation]:
    """onnx.Max / onnx.Min clamping the qcast's input to the real range its type represents."""
    quantized = element_type(quantize.result.type)
    assert isinstance(quantized, QuantizedType)
    value_type = quantize.input.type
    assert isinstance(value_type, TensorType)
    scales, zero_points = quantized.parameter_arrays(value_type.get_shape())
    low, high = ((bound - zero_points) * scales for bound in quantized.value_range())
    bounds = [ConstantOp.create(attributes={"value": dense_attr(b, value_type.element_type)},
                                result_types=[TensorType(value_type.element_type, b.shape)]) for b in (low, high)]
    floor = MaxOp.create(operands=[quantize.input, bounds[0].output], result_types=[value_type])
    ceiling = MinOp.create(operands=[floor.result, bounds[1].output], result_types=[value_type])
    return [*bounds, floor, ceiling]


def strip_activation_quantization(module: ModuleOp) -> None:
    """Remove activation quantization from `module` in place (module docstring)."""
    for op in list(module.walk()):
        if isinstance(op, QuantizeCastOp) and not is_constant(op.input):
            clamp = _saturation(op)
            Rewriter.insert_op(clamp, InsertPoint.before(op))
            op.result.replace_all_uses_with(clamp[-1].results[0])
            Rewriter.erase_op(op)
        elif isinstance(op, DequantizeCastOp | RequantizeOp) and not isinstance(
                element_type(op.input.type), QuantizedType):
            op.result.replace_all_uses_with(op.input)
            Rewriter.erase_op(op)
        elif not isinstance(op, func.FuncOp):
            for result in op.results:
                if isinstance(result.type, TensorType) and isinstance(element_type(result.type), QuantizedType) \
                        and not is_constant(result):
                    Rewriter.replace_value_with_new_type(result, QuantizedType.cast_to_expressed_type(result.type))
