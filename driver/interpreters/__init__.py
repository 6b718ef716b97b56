"""Interpreter implementations that xDSL 0.74 lacks or that assume Python scalars, all on
numpy arrays: `arith` and `math` elementwise on scalars and tensors alike (MLIR's
wraparound and poison rules), `linalg.generic` vectorized over its parallel iterators (one
step, or one step per point of its reduction iterators) with `linalg.index` in its body,
`tensor.empty`, `tensor.extract` (gathers with index arrays inside bodies), the reshapes
`tensor.collapse_shape` / `expand_shape` / `reshape`, and reinterpreting casts between
integer tensors.

`register_numpy_implementations(interpreter)` installs them over xDSL's own: xDSL's arith
functions take Python ints and cannot run inside a vectorized generic body."""

from xdsl.interpreter import Interpreter

from bitfold.interpreters.arith import NumpyArithFunctions
from bitfold.interpreters.linalg import NumpyLinalgFunctions
from bitfold.interpreters.math import NumpyMathFunctions
from bitfold.interpreters.tensor import NumpyTensorFunctions


def register_numpy_implementations(interpreter: Interpreter) -> None:
    """Install bitfold's numpy implementations, replacing xDSL's for the same ops."""
    for functions in (NumpyArithFunctions(), NumpyMathFunctions(), NumpyLinalgFunctions(), NumpyTensorFunctions()):
        interpreter.register_implementations(functions, override=True)
