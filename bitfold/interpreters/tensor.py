"""`tensor.empty` as a numpy array, and `builtin.unrealized_conversion_cast` between integer
tensors of one width (i8 <-> ui8, what `lower-quant` leaves for `quant.scast` to `uiN`): the
same bits read as the result's signedness."""

from typing import Any

import numpy as np
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, impl_cast, register_impls

from bitfold.dialects.evaluation import numpy_dtype_of


@register_impls
class NumpyTensorFunctions(InterpreterFunctions):
    @impl(tensor.EmptyOp)
    def run_empty(self, interpreter: Interpreter, op: tensor.EmptyOp, args: tuple[Any, ...]):
        dynamic = iter(args)
        shape = [int(next(dynamic)) if d == DYNAMIC_INDEX else d for d in op.tensor.type.get_shape()]
        return (np.zeros(shape, dtype=numpy_dtype_of(op.tensor.type)),)

    @impl_cast(TensorType, TensorType)
    def reinterpret(self, input_type: TensorType, output_type: TensorType, value: Any) -> Any:
        return np.asarray(value).astype(numpy_dtype_of(output_type))
