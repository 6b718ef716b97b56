"""The QCDQ form (Brevitas' export): QDQ on 8-bit integers (16-bit above 8 bits), with a
`Clip` narrowing the range where the bit width is below the container's.

A uniform type of bit width n <= 8 is held in int8 (a range with negatives) or uint8, n in
9..16 in int16 / uint16 (opset 21), int32 only as DequantizeLinear's input (bias). A qcast is
`QuantizeLinear` then, when the range [lo, hi] is narrower than the container's,
`Clip(q, lo, hi)`: `clamp(clamp(round(x / s) + zp, container), lo, hi)` is the qcast's
`clamp(round(x / s) + zp, lo, hi)`. An integer constant of a narrow type becomes a container
initializer followed by the same Clip (a no-op on its values, written so the bit width stays
visible, as Brevitas writes weights). Rounding as QDQ (`bitfold.backends.onnx.qdq`)."""

from xdsl.ir import Operation

from bitfold.backends.onnx.graph import GraphEmitter
from bitfold.backends.onnx.qdq import QdqForm
from bitfold.backends.onnx.types import integer_code
from bitfold.dialects.quant import BipolarQuantizedType, QuantizedType, UniformQuantizedType, integer_range

CONTAINER_WIDTHS = (8, 16, 32)
"""Integer widths QCDQ stores in: int8/uint8, int16/uint16 (above 8 bits), int32 (bias)."""


class QcdqForm(QdqForm):
    """See the module docstring."""

    name = "QCDQ"
    alternatives = "QONNX"

    def holding_type(self, qtype: UniformQuantizedType) -> tuple[int, bool] | None:
        """The narrowest container of `qtype`'s bit width (every storage type has one)."""
        bits = next((w for w in CONTAINER_WIDTHS if w >= qtype.bit_width), None)
        return None if bits is None else (bits, qtype.value_range()[0] < 0)

    def constant_container(self, qtype: QuantizedType, op: Operation, opset: int) -> tuple[int, bool]:
        """QCDQ writes a uniform constant as Brevitas does, in the container followed by
        `narrow`'s Clip; a bipolar one's values -1 and +1 in int8."""
        return (8, True) if isinstance(qtype, BipolarQuantizedType) else self.container(qtype, op)

    def narrow(self, emitter: GraphEmitter, name: str, qtype: UniformQuantizedType, op: Operation) -> str:
        """`Clip(name, lo, hi)` when `qtype`'s range [lo, hi] is narrower than the container's."""
        bits, signed = self.container(qtype, op)
        low, high = qtype.value_range()
        if (low, high) == integer_range(bits, signed):
            return name
        code = integer_code(bits, signed)
        base = emitter.node_name(op, "_Clip")
        bounds = [emitter.builder.initializer(f"{base}_{which}", value, code) for which, value in (("min", low), ("max", high))]
        (clipped,) = emitter.builder.node("Clip", [name, *bounds], [code], base, output_hints=[f"{name}_clipped"])
        return clipped
