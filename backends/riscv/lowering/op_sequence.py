"""`OpSequence`: the ops a lowering emits for one matched op, collected in order (then inserted as
the replacement); calling it with an op appends the op and returns its first result."""

from xdsl.ir import Operation, SSAValue


class OpSequence:
    """Ops appended in emission order; `seq(op)` appends `op` and returns `op.results[0]`."""

    def __init__(self):
        self.ops: list[Operation] = []

    def __call__(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]
