"""bitfold's own ops in the interpreter: each evaluable op (`NumpyEvaluable`) of the `quant`,
`onnx` and `qonnx` dialects runs its numpy reference, `op.evaluate`, on its operands as numpy
arrays, and its results are checked against the static shapes of its result types."""

from functools import cache
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Dialect, Operation
from xdsl.utils.exceptions import InterpretationError

from bitfold.dialects.evaluation import NumpyEvaluable
from bitfold.dialects.onnx import Onnx
from bitfold.dialects.qonnx import QOnnx
from bitfold.dialects.quant import Quant

EVALUATED_DIALECTS: tuple[Dialect, ...] = (Quant, Onnx, QOnnx)
"""The dialects whose ops have numpy references (the backends' `rvmem` and `rvfloat` have none)."""


def shape_fits(expected: tuple[int, ...], actual: tuple[int, ...]) -> bool:
    """Whether an array of shape `actual` has a type of shape `expected` (`?` fits any size)."""
    return len(expected) == len(actual) and all(e in (DYNAMIC_INDEX, a) for e, a in zip(expected, actual))


EVALUATION_ERRORS = (ValueError, IndexError, TypeError, ZeroDivisionError, OverflowError)
"""What numpy raises inside an op's `evaluate` on operands its types did not describe (a model
whose declared shapes disagree with its data)."""


def evaluate_checked(op: NumpyEvaluable, operands: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """`op.evaluate(operands)` (numpy's floating-point warnings off), its results checked
    against the static shapes of the op's result types; a failure is an
    `InterpretationError` naming the op."""
    assert isinstance(op, Operation)
    try:
        with np.errstate(all="ignore"):  # IEEE overflow and NaN are the semantics, not warnings
            results = op.evaluate(operands)
    except EVALUATION_ERRORS as error:
        raise InterpretationError(f"'{op.name}' op at {op.location}: cannot evaluate: {str(error).splitlines()[0]}") from None
    for result, value in zip(op.results, results, strict=True):
        if isinstance(result.type, TensorType) and not shape_fits(tuple(result.type.get_shape()), np.shape(value)):
            raise InterpretationError(f"'{op.name}' op at {op.location}: computed shape {list(np.shape(value))}, "
                                      f"its type is {result.type}")
    return results


@cache
def numpy_reference_functions() -> InterpreterFunctions:
    """One InterpreterFunctions (built once) whose implementation of each evaluable op type
    of `EVALUATED_DIALECTS` calls `op.evaluate`."""

    def run(self: InterpreterFunctions, interpreter: Interpreter, op: NumpyEvaluable, args: tuple[Any, ...]):
        return evaluate_checked(op, tuple(np.asarray(a) for a in args))

    op_types = [op for dialect in EVALUATED_DIALECTS for op in dialect.operations if issubclass(op, NumpyEvaluable)]
    namespace = {f"run_{op_type.__name__}": impl(op_type)(run) for op_type in op_types}
    return register_impls(type("NumpyReferenceFunctions", (InterpreterFunctions,), namespace))()
