"""The QDQ form: every quantization point as ONNX QuantizeLinear / DequantizeLinear on the
native integer type its range is.

- `qcast x` -> `QuantizeLinear(x, scale, zero_point)`, the quantized value being its integer
  output. QuantizeLinear computes `saturate(round_half_even(x / scale) + zero_point)`, so the
  qcast must round half to even in ONNX order (`zero_point_first` only with zero points 0).
- `dcast q` -> `DequantizeLinear(q, scale, zero_point)`.
- `scast` of an integer constant -> an initializer holding the stored values (`from_storage`:
  a signless constant holds their bit patterns) in the narrowest ONNX integer type holding
  the type's range that the model's opset has, else the narrowest (`constant_container`):
  its values need no clamp, so a narrow range (`i8<-127:127>` in int8, `i4<-7:7>` in int8 at
  opset 13 and int4 at 21) is a constant like any other, and so is a bipolar one (its values
  -1 and +1 with zero point 0: DequantizeLinear gives q * s, the dcast); other `scast`s name
  the same ONNX tensor (the integer type must be the container's).
- `requant` -> DequantizeLinear then QuantizeLinear, where that float path gives the exact
  requantization for every stored input value (checked by enumeration).
- an `onnx` op on quantized tensors (the data movement and MaxPool `canonicalize-quant` runs
  on stored values) -> the op on the integer tensors where its schema takes their type at
  some opset, else (MaxPool on int16, uint16, int4, ...) the op in float between
  DequantizeLinear and QuantizeLinear, which is exact where QuantizeLinear(DequantizeLinear(q))
  returns every stored q: the op only moves or selects values, and MaxPool commutes with the
  non-decreasing dequantization.
The container of a value computed at run time is the ONNX integer type whose full range is
the storage range: int8/uint8, int16/uint16 and int32 (DequantizeLinear only) at opset 13,
int4/uint4 (opset 21), int2/uint2 (opset 25). QuantizeLinear cannot clamp to a narrower range
(`i4<-7:7>`, `u8<0:63>`): QCDQ (Clip) or QONNX (bit width, `narrow`) hold such a value.
Per-axis types write a 1-D scale and zero point with `axis`; sub-channel types with one
blocked axis write ONNX blocked quantization (opset 21: `axis`, `block_size`). Bipolar values
computed at run time and other rounding modes are QONNX's.
Float storage (`!quant.uniform<f8E4M3FN:f32, s>`): the ONNX float8 / float4 type holds the
values; qcast -> QuantizeLinear (`saturate` 1) and dcast -> DequantizeLinear with a zero zero
point of that type (opset 19, float4 23), scast -> the same tensor (constants: an
initializer of that type); reinterpreting them as integers has no ONNX form."""

import numpy as np
import onnx
from onnx import helper
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from bitfold.backends.onnx.errors import ExportError
from bitfold.backends.onnx.graph import GraphEmitter, QuantForm, op_label
from bitfold.backends.onnx.opsets import takes_type
from bitfold.backends.onnx.types import integer_code, integer_container, tensor_code
from bitfold.dialects.canonicalization_patterns.quant import round_trip_is_exact
from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.onnx.constant import ConstantOp, dense_to_numpy
from bitfold.dialects.quant import (
    BipolarQuantizedType,
    DequantizeCastOp,
    FloatQuantizedType,
    Granularity,
    QuantizeCastOp,
    QuantizedType,
    RequantizeOp,
    RoundingCastOpBase,
    RoundingMode,
    StorageCastOp,
    UniformQuantizedType,
    element_type,
    integer_range,
)
from bitfold.dialects.quant_semantics import dequantize, from_storage, quantize, requantize
from bitfold.dialects.quantized_constants import is_quantized_constant

NATIVE_WIDTHS = (2, 4, 8, 16, 32)
"""Bit widths of ONNX integer types QuantizeLinear / DequantizeLinear take (32: DQ only)."""

DEQUANTIZE_OPSETS = {2: 25, 4: 21, 8: 13, 16: 21, 32: 13}
"""The lowest opset whose DequantizeLinear takes each width's integer types."""

ENUMERABLE_VALUES = 1 << 16
"""Largest input range whose requantization is checked value by value."""


def onnx_order_equivalent(op: RoundingCastOpBase, qtype: UniformQuantizedType) -> bool:
    """Whether a qcast or requant computes what ONNX's QuantizeLinear order computes: half
    to even, and zero point first only where every zero point is 0."""
    return op.rounding_mode == RoundingMode.HALF_TO_EVEN and (not op.adds_zero_point_first or qtype.is_symmetric)


def tensor_shape(value: SSAValue) -> tuple[int, ...]:
    """The shape of a value of ranked tensor type (the exporters see no other)."""
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


class QdqForm(QuantForm):
    """See the module docstring."""

    name = "QDQ"
    alternatives = "QCDQ (Clip) or QONNX (bit width, narrow)"
    """The forms that hold a range without a native container."""

    # -- what each quantized type is stored as ----------------------------------------

    def container(self, qtype: QuantizedType, op: Operation) -> tuple[int, bool]:
        """(bits, signed) of the ONNX integer type holding `qtype`'s values (`holding_type`)."""
        if isinstance(qtype, BipolarQuantizedType):
            raise ExportError(f"{self.name} cannot express the bipolar type {qtype} at {op_label(op)}; QONNX (BipolarQuant) can")
        if isinstance(qtype, FloatQuantizedType):
            raise ExportError(f"{self.name} cannot hold the float-storage type {qtype} at {op_label(op)} in an integer "
                              "tensor (data movement on it, or a requantization); QDQ holds it where it is quantized")
        assert isinstance(qtype, UniformQuantizedType)
        found = self.holding_type(qtype)
        if found is None:
            low, high = qtype.value_range()
            raise ExportError(f"{self.name} cannot express the range [{low}, {high}] of {qtype} at {op_label(op)} "
                              f"(no ONNX integer type has it); {self.alternatives} can")
        return found

    def constant_container(self, qtype: QuantizedType, op: Operation, opset: int) -> tuple[int, bool]:
        """(bits, signed) of the ONNX integer type a constant of `qtype` is written in: the
        narrowest native one holding its range (a constant's values lie in it, so no clamp is
        needed), of its signedness first, among those DequantizeLinear takes at `opset` where
        one does (int8 rather than int4 at opset 13)."""
        low, high = qtype.value_range()
        signed = not isinstance(qtype, UniformQuantizedType) or qtype.is_signed
        holding = [(bits, s) for bits in NATIVE_WIDTHS for s in (signed, not signed)
                   if integer_range(bits, s)[0] <= low and high <= integer_range(bits, s)[1]]
        return next((t for t in holding if DEQUANTIZE_OPSETS[t[0]] <= opset), holding[0])

    @staticmethod
    def tensor_container(emitter: GraphEmitter, name: str) -> tuple[int, bool]:
        """(bits, signed) of the ONNX integer tensor `name` that holds a quantized value (a
        constant's `constant_container`, a computed value's `container`)."""
        container = integer_container(emitter.builder.codes[name])
        assert container is not None, f"{name} holds quantized values, so it is an integer tensor"
        return container

    def holding_type(self, qtype: UniformQuantizedType) -> tuple[int, bool] | None:
        """QDQ: the native integer type whose full range is `qtype`'s, if any."""
        native = ((bits, signed) for bits in NATIVE_WIDTHS for signed in (True, False))
        return next((t for t in native if integer_range(*t) == qtype.value_range()), None)

    def narrow(self, emitter: GraphEmitter, name: str, qtype: UniformQuantizedType, op: Operation) -> str:
        """The container tensor `name` restricted to `qtype`'s range (QDQ: already is)."""
        return name

    # -- parameters ---------------------------------------------------------------------

    def parameters(self, emitter: GraphEmitter, qtype: QuantizedType, shape: tuple[int, ...],
                   op: Operation, hint: str, container: tuple[int, bool]) -> tuple[list[str], list[onnx.AttributeProto]]:
        """[scale, zero point] initializers and the `axis` / `block_size` attributes of a
        QuantizeLinear / DequantizeLinear of `qtype` on a tensor of `shape` held in the ONNX
        integer type `container` (bits, signed), the zero point's type."""
        bits, signed = container
        scale_code = tensor_code(qtype.expressed_type, op_label(op))
        scales = np.array(qtype.scale_values(), dtype=numpy_dtype(qtype.expressed_type))
        zero_points = np.array(qtype.zero_point_values(), dtype=np.int64)
        attributes: list[onnx.AttributeProto] = []
        if qtype.kind == Granularity.PER_TENSOR:
            scales, zero_points = scales.reshape(()), zero_points.reshape(())
        elif qtype.kind == Granularity.PER_AXIS:
            attributes.append(helper.make_attribute("axis", qtype.axis))
        else:
            scale_table, zero_table, axis, block = self._blocked(qtype, shape, op)
            scales, zero_points = scale_table.astype(scales.dtype), zero_table
            attributes += [helper.make_attribute("axis", axis), helper.make_attribute("block_size", block)]
        builder = emitter.builder
        return [builder.initializer(f"{hint}_scale", scales, scale_code),
                builder.initializer(f"{hint}_zero_point", zero_points, integer_code(bits, signed))], attributes

    def _blocked(self, qtype: UniformQuantizedType, shape: tuple[int, ...], op: Operation):
        """ONNX blocked parameters of a sub-channel type: the table with every axis but the
        blocked one at full size (repeated), the blocked axis and its block size."""
        blocks = {axis: size for axis, size in qtype.block_size_info().items() if size > 1}
        if len(blocks) > 1:
            raise ExportError(f"{self.name} cannot express {qtype} at {op_label(op)}: ONNX blocks one axis, "
                              f"this type blocks {len(blocks)}; no ONNX form holds it")
        axis, block = next(iter(blocks.items())) if blocks else (0, 1)
        scales, zero_points = qtype.parameter_arrays(shape)
        keep = [slice(None, None, block) if dim == axis else slice(None) for dim in range(len(shape))]
        return scales[tuple(keep)], zero_points[tuple(keep)], axis, block

    # -- the casts ----------------------------------------------------------------------

    def emit(self, emitter: GraphEmitter, op: Operation) -> None:
        if isinstance(op, QuantizeCastOp):
            emitter.define(op.result, self.quantize(emitter, op, emitter.name(op.input), op.input))
        elif isinstance(op, DequantizeCastOp):
            emitter.define(op.result, self.dequantize(emitter, op, emitter.name(op.input), element_type(op.input.type)))
        elif isinstance(op, StorageCastOp):
            emitter.define(op.result, self.storage_cast(emitter, op))
        elif isinstance(op, RequantizeOp):
            emitter.define(op.result, self.requantize(emitter, op))
        elif any(isinstance(element_type(value.type), QuantizedType) for value in op.results):
            self.emit_on_stored_values(emitter, op)
        else:
            emitter.emit_op(op)

    def emit_on_stored_values(self, emitter: GraphEmitter, op: Operation) -> None:
        """An onnx op on quantized tensors, on their integer tensors or in float (module
        docstring). Its results hold the first quantized operand's stored values."""
        held = next(emitter.name(v) for v in op.operands if isinstance(element_type(v.type), QuantizedType))
        code = emitter.builder.codes[held]
        _, _, op_type = op.name.partition(".")
        if takes_type(op_type, code, emitter.minimum_opset):
            emitter.emit_op(op, [code] * len(op.results))
            return
        floats = {v: self.dequantize_operand(emitter, op, v) for v in op.operands
                  if isinstance(element_type(v.type), QuantizedType)}
        emitter.emit_op(op, [tensor_code(element_type(r.type).expressed_type, op_label(op)) for r in op.results], floats)
        for result in op.results:
            emitter.define(result, self.requantize_result(emitter, op, result))

    def dequantize_operand(self, emitter: GraphEmitter, op: Operation, value: SSAValue) -> str:
        """DequantizeLinear of the quantized operand `value` of `op`, for `op` in float."""
        qtype = element_type(value.type)
        q = emitter.name(value)
        name = emitter.node_name(op, "_DequantizeLinear")
        inputs, attributes = self.parameters(emitter, qtype, tensor_shape(value), op, name, self.tensor_container(emitter, q))
        code = tensor_code(qtype.expressed_type, op_label(op))
        return emitter.builder.node("DequantizeLinear", [q, *inputs], [code], name, attributes=attributes,
                                    output_hints=[f"{q}_dequantized"])[0]

    def requantize_result(self, emitter: GraphEmitter, op: Operation, result: SSAValue) -> str:
        """QuantizeLinear of `op`'s float result back to its quantized type, refused where
        that does not return every stored value (`round_trip_is_exact`)."""
        qtype = element_type(result.type)
        bits, signed = self.container(qtype, op)
        if not round_trip_is_exact(qtype, RoundingMode.HALF_TO_EVEN, False):
            raise ExportError(f"{self.name} cannot write {op_label(op)} on {integer_code_name(bits, signed)} values, "
                              f"and in float QuantizeLinear(DequantizeLinear(q)) does not return every stored value of "
                              f"{qtype}")
        name = emitter.node_name(op, "_QuantizeLinear")
        inputs, attributes = self.parameters(emitter, qtype, tensor_shape(result), op, name, (bits, signed))
        (q,) = emitter.builder.node("QuantizeLinear", [emitter.names[result], *inputs], [integer_code(bits, signed)],
                                    name, attributes=attributes, output_hints=[result.name_hint or name])
        return self.narrow(emitter, q, qtype, op)

    def check_rounding(self, op: RoundingCastOpBase, qtype: UniformQuantizedType) -> None:
        """Refuse a qcast / requant that QuantizeLinear's rounding does not compute."""
        if not onnx_order_equivalent(op, qtype):
            what = f"rounding '{op.rounding_mode}'" if op.rounding_mode != RoundingMode.HALF_TO_EVEN else \
                "the zero point added before rounding (QONNX order) with a non-zero zero point"
            raise ExportError(f"{self.name} cannot express {what} at {op_label(op)}; QONNX (Quant) can")

    def float_parameters(self, emitter: GraphEmitter, qtype: FloatQuantizedType, op: Operation,
                         hint: str) -> tuple[list[str], list[onnx.AttributeProto]]:
        """[scale, zero point (zeros of the float storage type)] initializers and `axis` of a
        QuantizeLinear / DequantizeLinear of a float-storage type."""
        scales = np.array(qtype.scale_values(), dtype=numpy_dtype(qtype.expressed_type))
        attributes = [helper.make_attribute("axis", qtype.axis)] if qtype.kind == Granularity.PER_AXIS else []
        if qtype.kind == Granularity.PER_TENSOR:
            scales = scales.reshape(())
        zeros = np.zeros(scales.shape, np.uint8).view(numpy_dtype(qtype.storage_type))
        builder = emitter.builder
        return [builder.initializer(f"{hint}_scale", scales, tensor_code(qtype.expressed_type, op_label(op))),
                builder.initializer(f"{hint}_zero_point", zeros, tensor_code(qtype.storage_type, op_label(op)))], attributes

    def quantize_to_float(self, emitter: GraphEmitter, op: RoundingCastOpBase, x: str, qtype: FloatQuantizedType) -> str:
        """QuantizeLinear of the float tensor `x` to a float-storage type (`saturate` 0 for a
        `non_saturating` qcast)."""
        name = emitter.node_name(op)
        inputs, attributes = self.float_parameters(emitter, qtype, op, name)
        saturate = 0 if isinstance(op, QuantizeCastOp) and not op.saturates else 1
        attributes.append(helper.make_attribute("saturate", saturate))
        (q,) = emitter.builder.node("QuantizeLinear", [x, *inputs], [tensor_code(qtype.storage_type, op_label(op))], name,
                                    attributes=attributes, output_hints=[op.result.name_hint or name])
        return q

    def quantize(self, emitter: GraphEmitter, op: RoundingCastOpBase, x: str, value: SSAValue) -> str:
        """QuantizeLinear of the float tensor `x` to `op`'s result type (then `narrow`)."""
        qtype = element_type(op.result.type)
        if isinstance(qtype, FloatQuantizedType):
            return self.quantize_to_float(emitter, op, x, qtype)
        bits, signed = self.container(qtype, op)
        assert isinstance(qtype, UniformQuantizedType)
        if bits == 32:
            raise ExportError(f"no ONNX form quantizes to 32 bits ({qtype} at {op_label(op)})")
        self.check_rounding(op, qtype)
        name = emitter.node_name(op)
        inputs, attributes = self.parameters(emitter, qtype, tensor_shape(value), op, name, (bits, signed))
        (q,) = emitter.builder.node("QuantizeLinear", [x, *inputs], [integer_code(bits, signed)], name,
                                    attributes=attributes, output_hints=[op.result.name_hint or name])
        return self.narrow(emitter, q, qtype, op)

    def dequantize(self, emitter: GraphEmitter, op: Operation, q: str, qtype: QuantizedType) -> str:
        """DequantizeLinear of the container tensor `q` of `qtype` (op: the dcast, or the
        requant it is a step of)."""
        result = op.results[0]
        suffix = "" if isinstance(op, DequantizeCastOp) else "_DequantizeLinear"
        name = emitter.node_name(op, suffix)
        if isinstance(qtype, FloatQuantizedType):
            inputs, attributes = self.float_parameters(emitter, qtype, op, name)
        else:
            inputs, attributes = self.parameters(emitter, qtype, tensor_shape(result), op, name, self.tensor_container(emitter, q))
        (x,) = emitter.builder.node("DequantizeLinear", [q, *inputs], [tensor_code(qtype.expressed_type, op_label(op))],
                                    name, attributes=attributes, output_hints=[(result.name_hint or name) + suffix])
        return x

    def storage_cast(self, emitter: GraphEmitter, op: StorageCastOp) -> str:
        """The ONNX tensor of an scast's result: its operand's, or for an integer constant
        a new initializer of the container type (see `constant`)."""
        quantized, integer = op.quantized_and_integer()
        qtype = element_type(quantized)
        if isinstance(qtype, FloatQuantizedType):
            return self.float_storage_cast(emitter, op, qtype, element_type(integer))
        if is_quantized_constant(op.result):
            return self.constant(emitter, op, from_storage(dense_to_numpy(op.input.owner.value), qtype), qtype)
        bits, signed = self.container(qtype, op)
        source = emitter.name(op.input)
        if emitter.builder.codes[source] != integer_code(bits, signed):
            raise ExportError(f"{self.name} holds {qtype} as {integer_code_name(bits, signed)}, but "
                              f"{op_label(op)} reinterprets it as {element_type(integer)}")
        return source

    def float_storage_cast(self, emitter: GraphEmitter, op: StorageCastOp, qtype: FloatQuantizedType, storage) -> str:
        """The ONNX tensor of an scast between a float-storage type and its float type: the
        operand's, or for a constant an initializer of the float type."""
        if storage != qtype.storage_type:
            raise ExportError(f"{self.name} holds {qtype} as {qtype.storage_type}, but {op_label(op)} reinterprets "
                              f"it as {storage}; no ONNX form does")
        if is_quantized_constant(op.result):
            owner = op.input.owner
            assert isinstance(owner, ConstantOp)
            codes = from_storage(dense_to_numpy(owner.value), qtype).astype(np.uint8)
            return emitter.constant(owner, codes.view(numpy_dtype(qtype.storage_type)), tensor_code(storage, op_label(op)))
        return emitter.name(op.input)

    def constant(self, emitter: GraphEmitter, op: StorageCastOp, values: np.ndarray, qtype: QuantizedType) -> str:
        """An integer constant of `qtype` as an initializer of its `constant_container` type
        (values outside the type's range are an error)."""
        bits, signed = self.constant_container(qtype, op, emitter.minimum_opset)
        low, high = qtype.value_range()
        if values.size and not (low <= values.min() and values.max() <= high):
            raise ExportError(f"constant of {op_label(op)} holds values outside the range [{low}, {high}] of {qtype}")
        owner = op.input.owner
        assert isinstance(owner, ConstantOp)
        name = emitter.constant(owner, values, integer_code(bits, signed))
        return name if isinstance(qtype, BipolarQuantizedType) else self.narrow(emitter, name, qtype, op)

    def requantize(self, emitter: GraphEmitter, op: RequantizeOp) -> str:
        """DequantizeLinear then QuantizeLinear, where that is the exact requantization."""
        in_type, out_type = element_type(op.input.type), element_type(op.result.type)
        if not float_requantization_is_exact(op, in_type, out_type):
            raise ExportError(f"{self.name} cannot express the requantization {in_type} -> {out_type} at {op_label(op)} "
                              "(DequantizeLinear then QuantizeLinear rounds differently); QONNX (Trunc) can where the "
                              "scales differ by a power of two")
        x = self.dequantize(emitter, op, emitter.name(op.input), in_type)
        return self.quantize(emitter, op, x, op.result)


def integer_code_name(bits: int, signed: bool) -> str:
    return f"{'' if signed else 'u'}int{bits}"


def float_requantization_is_exact(op: RequantizeOp, in_type: QuantizedType, out_type: QuantizedType) -> bool:
    """Whether QuantizeLinear(DequantizeLinear(q)) equals `op`'s exact requantization for
    every stored value q of a per-tensor `in_type` (at most `ENUMERABLE_VALUES` of them)."""
    if not (isinstance(in_type, UniformQuantizedType) and isinstance(out_type, UniformQuantizedType)):
        return False
    if in_type.kind != Granularity.PER_TENSOR or out_type.kind != Granularity.PER_TENSOR:
        return False
    low, high = in_type.value_range()
    if high - low >= ENUMERABLE_VALUES or not onnx_order_equivalent(op, out_type):
        return False
    stored = np.arange(low, high + 1).astype(numpy_dtype(in_type))
    through_float = quantize(dequantize(stored, in_type), out_type)
    exact = requantize(stored, in_type, out_type, op.rounding_mode, op.adds_zero_point_first)
    return bool(np.array_equal(through_float, exact))
