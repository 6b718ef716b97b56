"""The QONNX form: quantization points as QONNX `Quant` / `BipolarQuant` / `Trunc` nodes
(domain `qonnx.custom_op.general`; version 2 when a Trunc is written, whose opset-2 form this
writes). A quantized value is held as its fake-quantized float tensor (what the nodes output),
so `dcast` writes nothing and integers never appear.

- `qcast x` to `!quant.uniform<...>` -> `Quant(x, scale, zeropt, bitwidth)` {signed, narrow,
  rounding_mode}, which computes `(R(clamp(x / s + zp, lo, hi)) - zp) * s` in float32: the
  qcast in QONNX order (`zero_point_first`) followed by its dcast. The range must be a QONNX
  range of some bit width n (signed [-2^(n-1) + narrow, 2^(n-1) - 1], unsigned
  [0, 2^n - 1 - narrow]; signed n = 1 is bipolar in QONNX, so [-1, 0] has no Quant).
  A qcast in ONNX order (`R(x / s) + zp`, no `zero_point_first`) is the same Quant when every
  zero point is 0. Otherwise no rounding mode makes the two orders agree in QONNX's float32
  arithmetic: floor, ceil (and half to even with an even zp) commute with adding an integer
  in exact arithmetic, but `fl(x / s + zp)` rounds the sum (f32: x / s = -1e-9, zp = 1 gives
  1.0, floor 1 against floor(-1e-9) + 1 = 0). What does hold is the ONNX qcast's own identity
  `dcast(qcast(x)) = clamp(R(x / s), lo - zp, hi - zp) * s`: a Quant with zero point 0 and
  range [lo - zp, hi - zp]. Where a range [lo, hi] (either order) is no QONNX range (u8 with
  zp 149 gives [-149, 106]; Trunc's `i8<-32:63>`), the Quant takes the narrowest QONNX range
  holding it and `Min`/`Max` clamp its float output to the grid values `(lo - zp) * s`,
  `(hi - zp) * s`: exact, since the float grid is monotone in the integer. Per axis: scale,
  zero point and grid bounds shaped to broadcast along the axis. Sub-channel types are refused
  (QDQ holds them).
- `qcast` to `!quant.bipolar` -> `BipolarQuant(x, scale)` (both take the sign of x).
- an integer constant (`dcast(scast(c))`) -> its dequantized float values as an initializer
  and the `Quant` (or `BipolarQuant`) of its type, checked to give those values back.
- `requant` -> `Trunc` (v2): `(R(clamp(q / t, lo, hi)) - zp / t) * s_out` on the input's
  integers q with t = s_out / s_in; written when t is a power of two exactly, the output zero
  point is zp_in / t, the range is a QONNX range and the requant's order agrees (zero point
  first, or output zero point 0, or a rounding that commutes with adding it: q / t is exact).
  Trunc rounds its float input itself (`q = round_half_even(x / s_in + zp_in)`, no clamp), so
  a requant of a `qcast x` that rounds so, to a range no Quant holds, is `Trunc(x)`, no Quant
  before it, wherever the qcast's clamp to [lo_in, hi_in] cannot change the result (lo_in / t <= lo and
  hi_in / t >= hi: the output clamp covers it). That is how `onnx-to-quant` writes Trunc's
  input: a type holding every `in_bits`-bit integer, signed or unsigned (`i8<-32:63>` for 6
  bits), which no QONNX Quant range is.
- Trunc v1 (the requant followed by an `scast` pair that reads its integers with the input's
  scale and zero point, as `onnx-to-quant` writes v1): `Trunc` v1 of x, t = 2^(in - out
  bits), then a float `Clip` to the requant's range (v1 does not clamp; the IR does). A model
  holds Trunc of one version only (the QONNX domain's opset picks it).
- `scast(Flatten / Reshape / Transpose / Squeeze / Unsqueeze / Identity / MaxPool(scast q))` back to
  q's per-tensor type (a QOp model moving uint8 data, as `onnx-to-quant` keeps it): the
  same node on q's fake-quantized float tensor (moving data commutes with dequantizing).
- an `onnx` op on quantized tensors (`canonicalize-quant`'s data movement and MaxPool on
  stored values): the same node on the fake-quantized float tensors, for the same reason
  (MaxPool: dequantizing is non-decreasing).
- any other `scast` to integers (an integer graph output, an integer op) is refused: QONNX
  holds no integer tensors (QDQ and QCDQ do)."""

import math

import numpy as np
from onnx import TensorProto, helper
from xdsl.ir import Operation

from bitfold.backends.onnx.errors import ExportError
from bitfold.backends.onnx.graph import QONNX_DOMAIN, GraphEmitter, QuantForm, op_label
from bitfold.backends.onnx.qdq import tensor_shape
from bitfold.backends.onnx.types import tensor_code
from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.onnx.constant import ConstantOp, dense_to_numpy
from bitfold.dialects.onnx.elementwise import IdentityOp
from bitfold.dialects.onnx.nn import MaxPoolOp
from bitfold.dialects.onnx.shape import FlattenOp, ReshapeOp, SqueezeOp, TransposeOp, UnsqueezeOp
from bitfold.dialects.qonnx import ROUNDING_MODES, qonnx_int_range
from bitfold.dialects.quant import (
    BipolarQuantizedType,
    DequantizeCastOp,
    Granularity,
    QuantizeCastOp,
    QuantizedType,
    RequantizeOp,
    RoundingMode,
    StorageCastOp,
    UniformQuantizedType,
    element_type,
)
from bitfold.dialects.quant_semantics import bipolar_sign, dequantize, from_storage, scale_and_round

QONNX_ROUNDING = {mode: name for name, mode in reversed(ROUNDING_MODES.items()) if name != "ROUND_TO_ZERO"}
"""Each rounding mode's QONNX name (ROUND for half to even, DOWN for toward zero)."""

DATA_MOVEMENT = (FlattenOp, ReshapeOp, TransposeOp, SqueezeOp, UnsqueezeOp, IdentityOp, MaxPoolOp)
"""Ops that move (or, MaxPool, select) elements without computing: they commute with
dequantization, whose scale is positive."""

SHIFT_INVARIANT = (RoundingMode.FLOOR, RoundingMode.CEIL)
"""Modes with R(v + k) = R(v) + k for every integer k (half to even: for even k only)."""


def qonnx_range(low: int, high: int) -> tuple[int, bool, bool] | None:
    """(bit width, signed, narrow) of a QONNX Quant whose range is [low, high], or None.
    Signed 1-bit is QONNX's bipolar and is excluded."""
    for bits in range(1, 33):
        for signed in (True, False):
            for narrow in (False, True):
                if (not signed or bits > 1) and qonnx_int_range(bits, signed, narrow) == (low, high):
                    return bits, signed, narrow
    return None


def enclosing_qonnx_range(low: int, high: int) -> tuple[int, bool, bool]:
    """(bit width, signed, narrow = False) of the narrowest QONNX range holding [low, high]
    (signed 1-bit is bipolar, so signed starts at 2 bits)."""
    signed = low < 0
    bits = 2 if signed else 1
    while not (qonnx_int_range(bits, signed, False)[0] <= low and high <= qonnx_int_range(bits, signed, False)[1]):
        bits += 1
    return bits, signed, False


def commutes_with_shift(mode: RoundingMode, shift: int) -> bool:
    """R(v + shift) = R(v) + shift for every real v (exact arithmetic)."""
    return shift == 0 or mode in SHIFT_INVARIANT or (mode == RoundingMode.HALF_TO_EVEN and shift % 2 == 0)


class QonnxForm(QuantForm):
    """See the module docstring."""

    name = "QONNX"

    def emit(self, emitter: GraphEmitter, op: Operation) -> None:
        if isinstance(op, QuantizeCastOp):
            emitter.define(op.result, self.quantize(emitter, op, emitter.name(op.input), element_type(op.result.type)))
        elif isinstance(op, DequantizeCastOp):
            emitter.define(op.result, emitter.name(op.input))
        elif isinstance(op, StorageCastOp):
            emitter.define(op.result, self.storage_cast(emitter, op))
        elif isinstance(op, RequantizeOp):
            emitter.define(op.result, self.truncate(emitter, op))
        elif quantized := [element_type(r.type) for r in op.results if isinstance(element_type(r.type), QuantizedType)]:
            emitter.emit_op(op, [tensor_code(q.expressed_type, op_label(op)) for q in quantized])
        else:
            emitter.emit_op(op)

    def _parameter(self, emitter: GraphEmitter, values, qtype: QuantizedType, rank: int, hint: str) -> str:
        """A float initializer of per-tensor or per-axis parameter values, shaped to
        broadcast against a tensor of `rank` (the expressed type)."""
        array = np.asarray(values, dtype=numpy_dtype(qtype.expressed_type))
        if qtype.kind == Granularity.PER_AXIS:
            array = array.reshape([array.size if d == qtype.axis else 1 for d in range(rank)])
        else:
            array = array.reshape(())
        return emitter.builder.initializer(hint, array, tensor_code(qtype.expressed_type, hint))

    def quantize(self, emitter: GraphEmitter, op: QuantizeCastOp | StorageCastOp, x: str, qtype: QuantizedType) -> str:
        """`Quant` / `BipolarQuant` of the float tensor `x` computing `dcast(op)`; for an scast
        (an integer constant) x holds grid values exactly, so either order agrees."""
        constant = isinstance(op, StorageCastOp)
        name = emitter.node_name(op)
        rank = len(tensor_shape(op.results[0]))
        emitter.require_domain(QONNX_DOMAIN, 1)
        code = tensor_code(qtype.expressed_type, op_label(op))
        hint = op.results[0].name_hint or name
        if isinstance(qtype, BipolarQuantizedType):
            scale = self._parameter(emitter, qtype.scale_values(), qtype, rank, f"{name}_scale")
            return emitter.builder.node("BipolarQuant", [x, scale], [code], name, QONNX_DOMAIN, output_hints=[hint])[0]
        assert isinstance(qtype, UniformQuantizedType)
        if qtype.kind == Granularity.SUB_CHANNEL:
            raise ExportError(f"QONNX cannot express the sub-channel type {qtype} at {op_label(op)}; QDQ can")
        zero_points = np.array(qtype.zero_point_values())
        low, high = qtype.value_range()
        rounding = RoundingMode.HALF_TO_EVEN if constant else op.rounding_mode
        zero_point_first = constant or op.adds_zero_point_first or not zero_points.any()
        if not zero_point_first:
            if len(set(zero_points.tolist())) != 1:
                raise ExportError(f"QONNX cannot express the ONNX-order quantization {qtype} at {op_label(op)} "
                                  "(per-channel non-zero zero points); QDQ or QCDQ can")
            low, high = low - int(zero_points[0]), high - int(zero_points[0])
            zero_points = np.zeros_like(zero_points)
        quant_range = qonnx_range(low, high) if not constant else self._enclosing_range(qtype)
        if quant_range is None:
            quant_range = enclosing_qonnx_range(low, high)
        bits, signed, narrow = quant_range
        inputs = [x, self._parameter(emitter, qtype.scale_values(), qtype, rank, f"{name}_scale"),
                  self._parameter(emitter, zero_points, qtype, rank, f"{name}_zeropt"),
                  emitter.builder.initializer(f"{name}_bitwidth", np.array(bits, dtype=np.float32), TensorProto.FLOAT)]
        attributes = [helper.make_attribute("signed", int(signed)), helper.make_attribute("narrow", int(narrow)),
                      helper.make_attribute("rounding_mode", QONNX_ROUNDING[rounding])]
        quant_hint = hint if qonnx_int_range(*quant_range) == (low, high) else f"{hint}_enclosing"
        output = emitter.builder.node("Quant", inputs, [code], name, QONNX_DOMAIN, attributes, output_hints=[quant_hint])[0]
        if quant_hint == hint:
            return output
        emitter.builder.shapes[output] = tensor_shape(op.results[0])
        return self._clamp_to_grid(emitter, op, output, qtype, zero_points, (low, high), rank, hint)

    def _clamp_to_grid(self, emitter: GraphEmitter, op: Operation, x: str, qtype: UniformQuantizedType,
                       zero_points: np.ndarray, bounds: tuple[int, int], rank: int, hint: str) -> str:
        """Clamp a Quant's float output to the grid values of the integer range `bounds`:
        `Max(Min(x, (hi - zp) * s), (lo - zp) * s)`, the bounds computed in the expressed type
        as Quant computes its outputs (`(q - zp) * s`). Since `(q - zp) * s` is monotone in q,
        clamping the floats clamps the integers: the result is exact."""
        dtype = numpy_dtype(qtype.expressed_type)
        scales = np.asarray(qtype.scale_values(), dtype=dtype)
        low, high = ((np.asarray(b - zero_points, dtype=dtype) * scales) for b in bounds)
        name, code = emitter.node_name(op), tensor_code(qtype.expressed_type, op_label(op))
        high_name = self._parameter(emitter, high, qtype, rank, f"{name}_grid_max")
        low_name = self._parameter(emitter, low, qtype, rank, f"{name}_grid_min")
        capped = emitter.builder.node("Min", [x, high_name], [code], f"{name}_grid_min", output_hints=[f"{hint}_capped"])[0]
        emitter.builder.shapes[capped] = emitter.builder.shapes[x]
        return emitter.builder.node("Max", [capped, low_name], [code], f"{name}_grid_max", output_hints=[hint])[0]

    @staticmethod
    def _enclosing_range(qtype: UniformQuantizedType) -> tuple[int, bool, bool]:
        """The narrowest QONNX range holding `qtype`'s (for constants, whose values are known)."""
        bits, signed, _ = enclosing_qonnx_range(*qtype.value_range())
        return bits, signed, qtype.is_narrow_range and bits == qtype.bit_width

    def storage_cast(self, emitter: GraphEmitter, op: StorageCastOp) -> str:
        """An integer constant as the float grid values and their Quant; nothing else."""
        quantized, integer = op.quantized_and_integer()
        if quantized is op.result.type and (written := self.truncate_v1(emitter, op)) is not None:
            return written
        if quantized is op.result.type and (written := self.float_data_movement(emitter, op)) is not None:
            return written
        if quantized is not op.result.type or not isinstance(op.input.owner, ConstantOp):
            raise ExportError(f"QONNX holds no integer tensors: {op_label(op)} reinterprets quantized values as "
                              f"{element_type(integer)}; QDQ or QCDQ can")
        qtype = element_type(quantized)
        stored = from_storage(dense_to_numpy(op.input.owner.value), qtype)
        values = dequantize(stored, qtype)
        x = emitter.constant(op.input.owner, values, tensor_code(qtype.expressed_type, op_label(op)))
        if not np.array_equal(self._fake_quantize(values, qtype), values):
            raise ExportError(f"QONNX cannot express the constant of {op_label(op)}: its dequantized values do not "
                              "quantize back to themselves in float arithmetic; QDQ or QCDQ can")
        return self.quantize(emitter, op, x, qtype)

    def float_data_movement(self, emitter: GraphEmitter, op: StorageCastOp) -> str | None:
        """The data-movement op between `scast q` to integers and `op` (scast back to q's
        per-tensor type) written on q's float tensor; None where that is not the pattern."""
        move = op.input.owner
        if not isinstance(move, DATA_MOVEMENT) or not move.results[0].has_one_use():
            return None
        inner = move.operands[0].owner
        qtype = element_type(op.result.type)
        if not (isinstance(inner, StorageCastOp) and element_type(inner.input.type) == qtype
                and isinstance(qtype, UniformQuantizedType) and qtype.kind == Granularity.PER_TENSOR
                and all(use.operation is move for use in inner.result.uses)):
            return None
        emitter.define(inner.result, emitter.name(inner.input))
        emitter.emit_op(move)
        moved = emitter.name(move.results[0])
        emitter.builder.codes[moved] = tensor_code(qtype.expressed_type, op_label(op))
        return moved

    def _fake_quantize(self, values: np.ndarray, qtype: QuantizedType) -> np.ndarray:
        """QONNX's Quant / BipolarQuant of grid values `values` of `qtype` (as written)."""
        scale, zero_point = qtype.parameter_arrays(values.shape)
        scale, zero_point = scale.astype(values.dtype), zero_point.astype(values.dtype)
        if isinstance(qtype, BipolarQuantizedType):
            return bipolar_sign(values) * scale
        bits, signed, narrow = self._enclosing_range(qtype)
        low, high = qonnx_int_range(bits, signed, narrow)
        grid = scale_and_round(values, scale, zero_point, low, high, RoundingMode.HALF_TO_EVEN, True)
        return (grid - zero_point) * scale

    @staticmethod
    def _trunc_input(op: RequantizeOp, t: float, out_range: tuple[int, int]) -> QuantizeCastOp | None:
        """The `qcast x` whose requant by t is `Trunc(x)` (see the module docstring), or None."""
        qcast = op.input.owner
        if not isinstance(qcast, QuantizeCastOp):
            return None
        qtype = element_type(qcast.result.type)
        if not isinstance(qtype, UniformQuantizedType) or qtype.kind != Granularity.PER_TENSOR:
            return None
        zero_point_first = qcast.adds_zero_point_first or qtype.zero_point == 0
        low, high = qtype.value_range()
        clamp_is_redundant = low / t <= out_range[0] and high / t >= out_range[1]
        # A range a Quant holds keeps its Quant (Trunc re-rounds its grid values exactly).
        needed = qonnx_range(low, high) is None
        return qcast if needed and qcast.rounding_mode == RoundingMode.HALF_TO_EVEN and zero_point_first and clamp_is_redundant else None

    @staticmethod
    def _input_bits(qtype: UniformQuantizedType) -> int:
        """Fewest bits n whose signed or unsigned range, [-2^(n-1), 2^n - 1] together, holds
        `qtype`'s range (Trunc's input bit width: 6 for `i8<-32:63>`, 4 for `u4`)."""
        low, high = qtype.value_range()
        bits = 1
        while not (-(2 ** (bits - 1)) <= low and high <= 2**bits - 1):
            bits += 1
        return bits

    def _trunc_inputs(self, emitter: GraphEmitter, x: str, in_type: UniformQuantizedType, name: str) -> list[str]:
        """Trunc's first inputs (both versions): x, its scale, zero point and bit width."""
        float_code, dtype = tensor_code(in_type.expressed_type, name), numpy_dtype(in_type.expressed_type)
        builder = emitter.builder
        return [x, builder.initializer(f"{name}_scale", np.array(in_type.scale, dtype=dtype), float_code),
                builder.initializer(f"{name}_zeropt", np.array(in_type.zero_point, dtype=dtype), float_code),
                builder.initializer(f"{name}_in_bitwidth", np.array(self._input_bits(in_type), dtype=np.float32), TensorProto.FLOAT)]

    def truncate(self, emitter: GraphEmitter, op: RequantizeOp) -> str:
        """`Trunc` (v2) of the input's fake-quantized tensor, or of the float input of the
        qcast it requantizes (see the module docstring)."""
        in_type, out_type = element_type(op.input.type), element_type(op.result.type)
        refusal = f"QONNX cannot express the requantization {in_type} -> {out_type} at {op_label(op)}"
        if in_type.kind != Granularity.PER_TENSOR or out_type.kind != Granularity.PER_TENSOR:
            raise ExportError(f"{refusal}: Trunc is per tensor")
        mantissa, exponent = math.frexp(out_type.scale / in_type.scale)
        factor = 2.0 ** (exponent - 1)
        mode = op.rounding_mode
        order_agrees = op.adds_zero_point_first or commutes_with_shift(mode, out_type.zero_point)
        quant_range = qonnx_range(*out_type.value_range())
        if mantissa != 0.5 or in_type.zero_point != out_type.zero_point * factor or not order_agrees or quant_range is None:
            raise ExportError(f"{refusal}: Trunc needs scales a power of two apart, zero points in the same ratio, "
                              "a QONNX range and QONNX's order of zero point and rounding")
        bits, signed, narrow = quant_range
        name = emitter.node_name(op)
        emitter.require_trunc(2, op)
        float_code = tensor_code(in_type.expressed_type, op_label(op))
        dtype = numpy_dtype(in_type.expressed_type)
        builder = emitter.builder
        qcast = self._trunc_input(op, factor, out_type.value_range())
        inputs = [*self._trunc_inputs(emitter, emitter.name(qcast.input if qcast is not None else op.input), in_type, name),
                  builder.initializer(f"{name}_out_scale", np.array(out_type.scale, dtype=dtype), float_code),
                  builder.initializer(f"{name}_out_bitwidth", np.array(bits, dtype=np.float32), TensorProto.FLOAT)]
        attributes = [helper.make_attribute("rounding_mode", QONNX_ROUNDING[mode]),
                      helper.make_attribute("signed", int(signed)), helper.make_attribute("narrow", int(narrow))]
        return builder.node("Trunc", inputs, [float_code], name, QONNX_DOMAIN, attributes,
                            output_hints=[op.result.name_hint or name])[0]

    def truncate_v1(self, emitter: GraphEmitter, op: StorageCastOp) -> str | None:
        """`Trunc` v1 and a float `Clip` for `scast(scast(requant(qcast x)))` reading the
        requant's integers with the qcast's scale and zero point (Trunc v1's meaning), where
        t = s_out / s_in is 2^k and the requant's zero point is zp / t; else None."""
        inner = op.input.owner
        if not isinstance(inner, StorageCastOp) or not isinstance(requant := inner.input.owner, RequantizeOp):
            return None
        in_type, grid_type = element_type(requant.input.type), element_type(requant.result.type)
        out_type = element_type(op.result.type)
        if not all(isinstance(t, UniformQuantizedType) and t.kind == Granularity.PER_TENSOR
                   for t in (in_type, grid_type, out_type)):
            return None
        mantissa, exponent = math.frexp(grid_type.scale / in_type.scale)
        t = 2.0 ** (exponent - 1)
        low, high = grid_type.value_range()
        if (mantissa != 0.5 or exponent - 1 < 0 or out_type.scale != in_type.scale
                or out_type.zero_point != in_type.zero_point or in_type.zero_point != grid_type.zero_point * t
                or out_type.value_range() != (low, high)
                or not (requant.adds_zero_point_first or commutes_with_shift(requant.rounding_mode, grid_type.zero_point))):
            return None
        qcast = self._trunc_input(requant, t, (low, high))
        if qcast is None:
            return None
        name = emitter.node_name(requant)
        emitter.require_trunc(1, requant)
        float_code = tensor_code(in_type.expressed_type, op_label(op))
        dtype = numpy_dtype(in_type.expressed_type)
        builder = emitter.builder
        out_bits = self._input_bits(in_type) - (exponent - 1)
        inputs = [*self._trunc_inputs(emitter, emitter.name(qcast.input), in_type, name),
                  builder.initializer(f"{name}_out_bitwidth", np.array(out_bits, dtype=np.float32), TensorProto.FLOAT)]
        attributes = [helper.make_attribute("rounding_mode", QONNX_ROUNDING[requant.rounding_mode])]
        (truncated,) = builder.node("Trunc", inputs, [float_code], name, QONNX_DOMAIN, attributes,
                                    output_hints=[(op.result.name_hint or name) + "_unclipped"])
        builder.shapes[truncated] = tensor_shape(op.result)
        # (g - zp) * s is monotone in g: clipping at the float values of the range ends is
        # the requant's clamp of g.
        bounds = [builder.initializer(f"{name}_Clip_{which}", np.array(value - in_type.zero_point, dtype=dtype) * np.array(in_type.scale, dtype=dtype), float_code)
                  for which, value in (("min", low), ("max", high))]
        return builder.node("Clip", [truncated, *bounds], [float_code], f"{name}_Clip",
                            output_hints=[op.result.name_hint or name])[0]
