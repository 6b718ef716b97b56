"""Static cost of each layer of a quant-form module.

- `macs`: multiply-accumulates of Conv (output elements x input channels per group x kernel
  elements), Gemm and MatMul (output elements x reduction length); 0 for other ops.
- `weight_bits` / `activation_bits`: bit width of the quantized weight (second operand) and
  activation (first operand) the op reads through `quant.dcast` (`UniformQuantizedType.bit_width`,
  1 for bipolar), or the float width where the operand is not quantized (as QONNX counts FLOAT32).
- `bops = macs x weight_bits x activation_bits` (QONNX's inference-cost definition).
- `weight_bytes`: the constant operands (weights and bias) packed at their bit widths,
  ceil(elements x bits / 8) each.
- `output_bits` / `output_bytes`: the output's quantized width (the `quant.qcast` it feeds, or its
  own quantized type) and its bytes at one storage byte per 8 bits rounded up per element
  (ceil(bits / 8) x elements: what the integer code stores).
- `live_bytes`: bytes of layer outputs alive after the layer (produced at or before it, read
  after it or returned), the activation memory the model needs at that point.
"""

from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ShapedType
from xdsl.ir import Operation, SSAValue

from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.constant import ConstantOp
from bitfold.dialects.onnx.nn import ConvOp, GemmOp, MatMulOp
from bitfold.dialects.quant import (
    BipolarQuantizedType,
    DequantizeCastOp,
    FloatQuantizedType,
    QuantizeCastOp,
    QuantizedType,
    StorageCastOp,
    UniformQuantizedType,
    element_type,
)


@dataclass
class LayerCost:
    name: str
    op: str
    macs: int
    bops: int
    weight_bits: int | None
    weight_bytes: int
    activation_bits: int | None
    output_bits: int
    output_bytes: int
    live_bytes: int


def layer_ops(scope: Operation) -> list[OnnxOp]:
    """The layers inside `scope` (a function or module) in program order: ONNX ops other than constants."""
    return [op for op in scope.walk() if isinstance(op, OnnxOp) and not isinstance(op, ConstantOp)]


def _shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, ShapedType), value.type
    return tuple(value.type.get_shape())


def _elements(value: SSAValue) -> int:
    count = 1
    for size in _shape(value):
        count *= size
    return count


def _type_bits(element) -> int:
    if isinstance(element, UniformQuantizedType):
        return element.bit_width
    if isinstance(element, BipolarQuantizedType):
        return 1
    if isinstance(element, FloatQuantizedType):
        return element.storage_width
    return element.bitwidth


def operand_bits(value: SSAValue) -> int:
    """The bit width `value` carries: that of the quantized type a `quant.dcast` reads, else its own."""
    owner = value.owner
    if isinstance(owner, DequantizeCastOp):
        return _type_bits(element_type(owner.input.type))
    return _type_bits(element_type(value.type))


def is_constant(value: SSAValue) -> bool:
    """Whether `value` is a constant seen through quant casts."""
    owner = value.owner
    while isinstance(owner, DequantizeCastOp | StorageCastOp | QuantizeCastOp):
        owner = owner.input.owner
    return isinstance(owner, ConstantOp)


def macs(op: OnnxOp) -> int:
    if isinstance(op, ConvOp):
        per_output = 1
        for size in _shape(op.w)[1:]:
            per_output *= size
        return _elements(op.y) * per_output
    if isinstance(op, GemmOp):
        reduction = _shape(op.a)[0 if op.int_attr("transA") else 1]
        return _elements(op.y) * reduction
    if isinstance(op, MatMulOp):
        return _elements(op.results[0]) * _shape(op.operands[0])[-1]
    return 0


def output_quantization(op: Operation) -> QuantizedType | None:
    """The quantized type of `op`'s output: that of the `quant.qcast` reading it, or its own."""
    result = op.results[0]
    for use in result.uses:
        if isinstance(use.operation, QuantizeCastOp):
            result = use.operation.result
            break
    quantized = element_type(result.type)
    return quantized if isinstance(quantized, QuantizedType) else None


def output_bits(op: Operation) -> int:
    quantized = output_quantization(op)
    return _type_bits(quantized if quantized is not None else element_type(op.results[0].type))


def _live_bytes_after(ops: list[OnnxOp], output_bytes: list[int]) -> list[int]:
    """Bytes of outputs of ops[:i+1] still read by a later layer or returned, for each i."""
    position = {op: i for i, op in enumerate(ops)}

    def last_reader(op: OnnxOp) -> int:
        last = position[op]
        pending = [use.operation for result in op.results for use in result.uses]
        while pending:
            reader = pending.pop()
            if isinstance(reader, func.ReturnOp):
                return len(ops)
            if reader in position:
                last = max(last, position[reader])
            else:  # a quant cast between layers
                pending.extend(use.operation for result in reader.results for use in result.uses)
        return last

    ends = [last_reader(op) for op in ops]
    return [sum(size for j, size in enumerate(output_bytes) if j <= i < ends[j]) for i in range(len(ops))]


def layer_costs(scope: Operation) -> list[LayerCost]:
    """One `LayerCost` per layer inside `scope` (module docstring), in program order."""
    ops = layer_ops(scope)
    rows = []
    for op in ops:
        count = macs(op)
        contraction = count > 0
        activation = operand_bits(op.operands[0]) if contraction else None
        weight = operand_bits(op.operands[1]) if contraction else None
        constants = [value for value in op.operands if is_constant(value)]
        packed = sum((_elements(value) * operand_bits(value) + 7) // 8 for value in constants)
        bits = output_bits(op)
        rows.append(LayerCost(
            name=op.node_name, op=op.name.removeprefix("onnx."), macs=count,
            bops=count * (activation or 0) * (weight or 0), weight_bits=weight, weight_bytes=packed,
            activation_bits=activation, output_bits=bits,
            output_bytes=_elements(op.results[0]) * ((bits + 7) // 8), live_bytes=0))
    for row, size in zip(rows, _live_bytes_after(ops, [row.output_bytes for row in rows]), strict=True):
        row.live_bytes = size
    return rows
