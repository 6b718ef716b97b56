"""bitfold's interpreter, a layer of its own below the passes and the backends (which may run IR
with it, as `bitfold-riscv-tabulate-elementwise` does to compute a table) and above the dialects:
`make_interpreter(module)` is xDSL's interpreter with xDSL's implementations, then these on
numpy arrays installed over them:

- `arith` and `math` elementwise on scalars and tensors alike (MLIR's wraparound and poison
  rules), `linalg.generic` vectorized over its parallel iterators (one step, or one step per
  point of its reduction iterators) with `linalg.index` in its body, `tensor.empty`,
  `tensor.extract` (gathers with index arrays inside bodies), the reshapes
  `tensor.collapse_shape` / `expand_shape` / `reshape`, and reinterpreting casts between
  integer tensors (xDSL's arith functions take Python ints and cannot run inside a vectorized
  generic body);
- every bitfold op with a numpy reference (`references`).

Tensor values are numpy arrays; values of quantized types are their stored integers. Running a
model from its inputs by name (`bitfold.run`, `bitfold-run`) is the driver's
(`bitfold.interpreter`)."""

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.interpreters import register_implementations

from bitfold.interpreters.arith import NumpyArithFunctions
from bitfold.interpreters.linalg import NumpyLinalgFunctions
from bitfold.interpreters.math import NumpyMathFunctions
from bitfold.interpreters.references import numpy_reference_functions
from bitfold.interpreters.tensor import NumpyTensorFunctions


def make_interpreter(module: ModuleOp) -> Interpreter:
    """An interpreter for `module` that knows xDSL's dialects and bitfold's (module docstring)."""
    interpreter = Interpreter(module)
    register_implementations(interpreter, Context())
    for functions in (NumpyArithFunctions(), NumpyMathFunctions(), NumpyLinalgFunctions(), NumpyTensorFunctions()):
        interpreter.register_implementations(functions, override=True)  # replacing xDSL's for the same ops
    interpreter.register_implementations(numpy_reference_functions())
    return interpreter
