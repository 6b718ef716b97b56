"""`OpSequence`: the ops an expansion or a lowering emits for one matched op, collected in order
(then inserted as the replacement); calling it with an op appends the op and returns its first
result. The f32 math expansions (`float_math_expansions`) and both backends' lowerings build with it, so it sits
beside the dialects they all use (layers point down only)."""

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, FloatAttr, IntegerAttr, i32
from xdsl.ir import Operation, SSAValue


class OpSequence:
    """Ops appended in emission order; `seq(op)` appends `op` and returns `op.results[0]`."""

    def __init__(self):
        self.ops: list[Operation] = []

    def __call__(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def f32(self, value: float) -> SSAValue:
        """An f32 `arith.constant` (`value` rounded to f32)."""
        return self(arith.ConstantOp(FloatAttr(value, Float32Type())))

    def i32(self, value: int) -> SSAValue:
        """An i32 `arith.constant`."""
        return self(arith.ConstantOp(IntegerAttr(value, i32)))
