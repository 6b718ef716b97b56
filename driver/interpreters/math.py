"""`math` rounding and sign ops on numpy values (xDSL 0.74 has no interpreter for them),
each exact in its operand's float type: floor, ceil, trunc, roundeven (half to even),
absf, copysign; and `math.ctpop`, the number of 1 bits of an iN value's N-bit pattern."""

from typing import Any

import numpy as np
from xdsl.dialects import math
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation

from bitfold.dialects.evaluation import read_unsigned
from bitfold.interpreters.integers import bit_width, wrap

_ELEMENTWISE = {
    math.FloorOp: np.floor,
    math.CeilOp: np.ceil,
    math.TruncOp: np.trunc,
    math.RoundEvenOp: np.rint,  # round to nearest, ties to even (numpy's only mode)
    math.AbsFOp: np.abs,
    math.CopySignOp: np.copysign,
}


def _run(function):
    def run(self, interpreter: Interpreter, op: Operation, args: tuple[Any, ...]):
        return (np.asarray(function(*args)),)

    return run


class _MathBase(InterpreterFunctions):
    @impl(math.CtPopOp)
    def run_ctpop(self, interpreter: Interpreter, op: math.CtPopOp, args: tuple[Any, ...]):
        bits = read_unsigned(args[0], bit_width(op.operand.type)).astype(np.uint64)
        return (wrap(np.bitwise_count(bits).astype(np.int64), op.result.type),)


NumpyMathFunctions = register_impls(
    type(
        "NumpyMathFunctions",
        (_MathBase,),
        {f"run_{op.__name__}": impl(op)(_run(function)) for op, function in _ELEMENTWISE.items()},
    )
)
