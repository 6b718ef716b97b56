"""`math` rounding and sign ops on numpy values (xDSL 0.74 has no interpreter for them),
each exact in its operand's float type: floor, ceil, trunc, roundeven (half to even),
absf, copysign; `math.ctpop`, the number of 1 bits of an iN value's N-bit pattern; and
`math.exp` / `math.tanh` / `math.sqrt` / `math.erf` on f32 defined as bitfold's expansion
(`bitfold.dialects.float_math_expansions`, docs/float-islands.md): the expanded arith ops run one
by one, so IR before and after the expansion computes the same bits."""

from typing import Any

import numpy as np
from xdsl.dialects import math
from xdsl.dialects.builtin import Float32Type
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.exceptions import InterpretationError

from bitfold.dialects.evaluation import read_unsigned
from bitfold.dialects.float_math_expansions import Emitter, emit_erf, emit_exp, emit_sqrt, emit_tanh
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


def _expansion(emit) -> tuple[SSAValue, list[Operation], SSAValue]:
    """(input, ops, result) of `emit`'s f32 sequence on a fresh block argument."""
    argument = Block(arg_types=[Float32Type()]).args[0]
    e = Emitter()
    result = emit(e, argument)
    return argument, e.ops, result


_EXPANSIONS = {math.ExpOp: _expansion(emit_exp), math.TanhOp: _expansion(emit_tanh), math.SqrtOp: _expansion(emit_sqrt),
               math.ErfOp: _expansion(emit_erf)}


def _run_expanded(self, interpreter: Interpreter, op: Operation, args: tuple[Any, ...]):
    if op.results[0].type != Float32Type():
        raise InterpretationError(f"{op.name} on {op.results[0].type}: bitfold defines it on f32 only")
    argument, ops, result = _EXPANSIONS[type(op)]
    values: dict[SSAValue, Any] = {argument: args[0]}
    for expanded in ops:
        outputs = interpreter.run_op(expanded, tuple(values[v] for v in expanded.operands))
        values.update(zip(expanded.results, outputs))
    return (values[result],)


class _MathBase(InterpreterFunctions):
    run_exp = impl(math.ExpOp)(_run_expanded)
    run_tanh = impl(math.TanhOp)(_run_expanded)
    run_sqrt = impl(math.SqrtOp)(_run_expanded)
    run_erf = impl(math.ErfOp)(_run_expanded)

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
