"""`linalg.generic` on numpy tensors, all iterations at once.

With only parallel iterators no iteration reads another's result, so the body runs once on
arrays over the whole iteration space: operand k's value at iteration (i0, ..., in) is
operand_k[map_k(i0, ..., in)], gathered with numpy indexing (any affine map: permutations,
broadcasts `(d0, d1) -> (d1)`, constants, `d1 floordiv 32`), the body's arith ops work
elementwise, and each yielded array is scattered through its output's map (an identity map
reads or writes the operand as it is). Each map's index is built once per run. Reductions are
not supported (xDSL's own implementation walks them point by point over memrefs)."""

from typing import Any

import numpy as np
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir.affine import AffineMap
from xdsl.utils.exceptions import InterpretationError

from bitfold.dialects.evaluation import numpy_dtype_of


def _index(indexing_map: AffineMap, grid: tuple[np.ndarray, ...], loop_shape: tuple[int, ...]) -> tuple[np.ndarray, ...] | None:
    """The numpy index that reads an operand at map(i) for every iteration i, shaped like the
    iteration space; None for the identity map (the operand is read as it is)."""
    if indexing_map == AffineMap.identity(indexing_map.num_dims):
        return None
    return tuple(np.broadcast_to(expr.eval(grid, ()), loop_shape) for expr in indexing_map.results)


def _gather(operand: Any, index: tuple[np.ndarray, ...] | None, loop_shape: tuple[int, ...]) -> np.ndarray:
    """operand[map(i)] for every iteration i, shaped like the iteration space."""
    operand = np.asarray(operand)
    if index is None:
        return operand
    if operand.ndim == 0 and not index:
        return np.broadcast_to(operand, loop_shape)
    return operand[index]


@register_impls
class NumpyLinalgFunctions(InterpreterFunctions):
    @impl(linalg.GenericOp)
    def run_generic(self, interpreter: Interpreter, op: linalg.GenericOp, args: tuple[Any, ...]):
        if any(kind.data != IteratorType.PARALLEL for kind in op.iterator_types):
            raise InterpretationError("linalg.generic: only parallel iterators are supported")
        shapes = [dim for arg in args for dim in np.shape(arg)]
        loop_shape = tuple(int(n) for n in op.get_shapes_to_loops_map().eval(shapes, []))
        grid = tuple(np.indices(loop_shape, sparse=True))
        indices = [_index(attr.data, grid, loop_shape) for attr in op.get_indexing_maps()]
        values = tuple(_gather(arg, index, loop_shape) for arg, index in zip(args, indices, strict=True))
        yielded = interpreter.run_ssacfg_region(op.body, values, "linalg.generic")
        inputs = len(op.inputs)
        results = []
        for init, value, index, result in zip(args[inputs:], yielded, indices[inputs:], op.results, strict=True):
            output = np.array(init, dtype=numpy_dtype_of(result.type))
            output[index if index is not None else ...] = np.broadcast_to(value, loop_shape)
            results.append(output)
        return tuple(results)
