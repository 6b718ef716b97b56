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
  range [lo - zp, hi - zp], written when that is a QONNX range (u8 with zp 128 is int8).
  Else the qcast is refused (QDQ and QCDQ hold it). Per axis: scale and zero point shaped to
  broadcast along the axis. Sub-channel types are refused (QDQ holds them).
- `qcast` to `!quant.bipolar` -> `BipolarQuant(x, scale)` (both take the sign of x).
- an integer constant (`dcast(scast(c))`) -> its dequantized float values as an initializer
  and the `Quant` (or `BipolarQuant`) of its type, checked to give those values back.
- `requant` -> `Trunc` (v2): `(R(clamp(q / t, lo, hi)) - zp / t) * s_out` on the input's
  integers q with t = s_out / s_in; written when t is a power of two exactly, the output zero
  point is zp_in / t, the range is a QONNX range and the requant's order agrees (zero point
  first, or output zero point 0, or a rounding that commutes with adding it: q / t is exact).
- an `scast` to integers (an integer graph output, an integer op) is refused: QONNX holds
  no integer tensors (QDQ and QCDQ do)."""

import math

import numpy as np
from onnx import TensorProto, helper
from xdsl.ir import Operation

from bitfold.backends.onnx.errors import ExportError
from bitfold.backends.onnx.graph import QONNX_DOMAIN, GraphEmitter, QuantForm, op_label
from bitfold.backends.onnx.qdq import rounding_of, shape_of
from bitfold.backends.onnx.types import tensor_code
from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.onnx.constant import ConstantOp, dense_to_numpy
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

    def quantize(self, emitter: GraphEmitter, op: Operation, x: str, qtype: QuantizedType, constant: bool = False) -> str:
        """`Quant` / `BipolarQuant` of the float tensor `x` computing `dcast(op)`; `constant`:
        x holds grid values exactly (either order then agrees)."""
        name = emitter.node_name(op)
        rank = len(shape_of(op.results[0]))
        emitter.require_domain(QONNX_DOMAIN, 1, op)
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
        zero_point_first = constant or op.attributes.get("zero_point_first") is not None or not zero_points.any()
        if not zero_point_first:
            if len(set(zero_points.tolist())) != 1:
                raise ExportError(f"QONNX cannot express the ONNX-order quantization {qtype} at {op_label(op)} "
                                  "(per-channel non-zero zero points); QDQ or QCDQ can")
            low, high = low - int(zero_points[0]), high - int(zero_points[0])
            zero_points = np.zeros_like(zero_points)
        quant_range = qonnx_range(low, high) if not constant else self._enclosing_range(qtype)
        if quant_range is None:
            why = "" if zero_point_first else " (the ONNX-order qcast's range shifted by its zero point)"
            raise ExportError(f"QONNX cannot express the range [{low}, {high}]{why} of {qtype} at {op_label(op)}; "
                              f"QCDQ{'' if zero_point_first else ' or QDQ'} can")
        bits, signed, narrow = quant_range
        inputs = [x, self._parameter(emitter, qtype.scale_values(), qtype, rank, f"{name}_scale"),
                  self._parameter(emitter, zero_points, qtype, rank, f"{name}_zeropt"),
                  emitter.builder.initializer(f"{name}_bitwidth", np.array(bits, dtype=np.float32), TensorProto.FLOAT)]
        attributes = [helper.make_attribute("signed", int(signed)), helper.make_attribute("narrow", int(narrow)),
                      helper.make_attribute("rounding_mode", QONNX_ROUNDING[rounding_of(op)])]
        return emitter.builder.node("Quant", inputs, [code], name, QONNX_DOMAIN, attributes, output_hints=[hint])[0]

    @staticmethod
    def _enclosing_range(qtype: UniformQuantizedType) -> tuple[int, bool, bool]:
        """The narrowest QONNX range holding `qtype`'s (for constants, whose values are known)."""
        low, high = qtype.value_range()
        signed = low < 0
        bits = max(qtype.bit_width, 2 if signed else 1)
        return bits, signed, qtype.is_narrow_range and bits == qtype.bit_width

    def storage_cast(self, emitter: GraphEmitter, op: StorageCastOp) -> str:
        """An integer constant as the float grid values and their Quant; nothing else."""
        quantized, integer = op.quantized_and_integer()
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
        return self.quantize(emitter, op, x, qtype, constant=True)

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

    def truncate(self, emitter: GraphEmitter, op: RequantizeOp) -> str:
        """`Trunc` (v2) of the input's fake-quantized tensor (see the module docstring)."""
        in_type, out_type = element_type(op.input.type), element_type(op.result.type)
        refusal = f"QONNX cannot express the requantization {in_type} -> {out_type} at {op_label(op)}"
        if in_type.kind != Granularity.PER_TENSOR or out_type.kind != Granularity.PER_TENSOR:
            raise ExportError(f"{refusal}: Trunc is per tensor")
        mantissa, exponent = math.frexp(out_type.scale / in_type.scale)
        factor = 2.0 ** (exponent - 1)
        mode = rounding_of(op)
        order_agrees = op.zero_point_first is not None or commutes_with_shift(mode, out_type.zero_point)
        quant_range = qonnx_range(*out_type.value_range())
        if mantissa != 0.5 or in_type.zero_point != out_type.zero_point * factor or not order_agrees or quant_range is None:
            raise ExportError(f"{refusal}: Trunc needs scales a power of two apart, zero points in the same ratio, "
                              "a QONNX range and QONNX's order of zero point and rounding")
        bits, signed, narrow = quant_range
        name = emitter.node_name(op)
        emitter.require_domain(QONNX_DOMAIN, 2, op)
        float_code = tensor_code(in_type.expressed_type, op_label(op))
        dtype = numpy_dtype(in_type.expressed_type)
        builder = emitter.builder
        inputs = [emitter.name(op.input),
                  builder.initializer(f"{name}_scale", np.array(in_type.scale, dtype=dtype), float_code),
                  builder.initializer(f"{name}_zeropt", np.array(in_type.zero_point, dtype=dtype), float_code),
                  builder.initializer(f"{name}_in_bitwidth", np.array(in_type.bit_width, dtype=np.float32), TensorProto.FLOAT),
                  builder.initializer(f"{name}_out_scale", np.array(out_type.scale, dtype=dtype), float_code),
                  builder.initializer(f"{name}_out_bitwidth", np.array(bits, dtype=np.float32), TensorProto.FLOAT)]
        attributes = [helper.make_attribute("rounding_mode", QONNX_ROUNDING[mode]),
                      helper.make_attribute("signed", int(signed)), helper.make_attribute("narrow", int(narrow))]
        return builder.node("Trunc", inputs, [float_code], name, QONNX_DOMAIN, attributes,
                            output_hints=[op.result.name_hint or name])[0]
