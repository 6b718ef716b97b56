"""`linalg.generic` and `linalg.index` on numpy tensors, vectorized over the parallel dims.

With only parallel iterators no iteration reads another's result, so the body runs once on
arrays over the whole iteration space: operand k's value at iteration (i0, ..., in) is
operand_k[map_k(i0, ..., in)], gathered with numpy indexing (any affine map: permutations,
broadcasts `(d0, d1) -> (d1)`, constants, `d1 floordiv 32`, offsets `d0 + 2`), the body's
arith ops work elementwise, and each yielded array is scattered through its output's map (an
identity map reads or writes the operand as it is). Each map's index is built once per run.

With reduction iterators the body runs once per point of the reduction sub-space, in
lexicographic order of the reduction dims (the order of `convert-linalg-to-loops`), each
time vectorized over all parallel dims: the reduction dims are single numbers, the parallel
dims arrays. Outputs are carried from one point to the next: an output whose map does not
use a reduction dim is gathered once, passed through the body at every point, and scattered
once at the end; one whose map does is gathered and scattered at every point. This is exact
for any body (sum, product, max, argmax with a carried index, ...), as long as no two
parallel iterations write the same output element, which a reduction never does.

`linalg.index` inside a body is the iteration index of its dim, an `index` (int64) array
broadcast over the iterations the body is running on."""

from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir.affine import AffineMap
from xdsl.utils.exceptions import InterpretationError

from bitfold.dialects.evaluation import numpy_dtype_of

Index = tuple[np.ndarray | int, ...]


@dataclass
class _Iterations:
    """The iterations a generic's body is running on: per loop dim its index values
    (an array broadcastable to `shape`, or one number), and the body's array shape."""

    dims: list[np.ndarray | int]
    shape: tuple[int, ...]


def _index(indexing_map: AffineMap, grid: list[np.ndarray | int], shape: tuple[int, ...]) -> Index | None:
    """The numpy index that reads an operand at map(i) for every iteration i of `grid`, shaped
    like `shape`; None for the identity map over the whole iteration space (the operand is
    read as it is)."""
    if all(isinstance(dim, np.ndarray) for dim in grid) and indexing_map == AffineMap.identity(indexing_map.num_dims):
        return None
    return tuple(np.broadcast_to(expr.eval(grid, ()), shape) for expr in indexing_map.results)


def _gather(operand: Any, index: Index | None, shape: tuple[int, ...]) -> np.ndarray:
    """operand[map(i)] for every iteration i, shaped like the iterations."""
    operand = np.asarray(operand)
    if index is None:
        return operand
    if not index:
        return np.broadcast_to(operand, shape)
    return operand[index]


def _scatter(output: np.ndarray, index: Index | None, value: Any, shape: tuple[int, ...]) -> None:
    """output[map(i)] = value(i) for every iteration i."""
    output[index if index else ...] = np.broadcast_to(value, shape)


def _uses_any(indexing_map: AffineMap, dims: set[int]) -> bool:
    return any(expr.used_dims() & dims for expr in indexing_map.results)


@register_impls
class NumpyLinalgFunctions(InterpreterFunctions):
    def _iteration_stack(self, interpreter: Interpreter) -> list[_Iterations]:
        """The iterations of the generics being run, innermost last (bodies may nest)."""
        return interpreter.get_data(NumpyLinalgFunctions, "iterations", list)

    @impl(linalg.GenericOp)
    def run_generic(self, interpreter: Interpreter, op: linalg.GenericOp, args: tuple[Any, ...]):
        shapes = [dim for arg in args for dim in np.shape(arg)]
        loop_shape = tuple(int(n) for n in op.get_shapes_to_loops_map().eval(shapes, []))
        maps = [attr.data for attr in op.get_indexing_maps()]
        reduction = [d for d, kind in enumerate(op.iterator_types) if kind.data == IteratorType.REDUCTION]
        if any(kind.data not in (IteratorType.PARALLEL, IteratorType.REDUCTION) for kind in op.iterator_types):
            raise InterpretationError("linalg.generic: only parallel and reduction iterators are supported")
        outputs = [
            np.array(init, dtype=numpy_dtype_of(result.type))
            for init, result in zip(args[len(op.inputs) :], op.results, strict=True)
        ]
        # Without reduction dims the body runs once over the whole space, else once per point.
        shape = tuple(1 if d in reduction else n for d, n in enumerate(loop_shape))
        iterations = _Iterations(list(np.indices(shape, sparse=True)), shape)
        stack = self._iteration_stack(interpreter)
        stack.append(iterations)
        try:
            if reduction:
                self._run_reduction(interpreter, op, args, maps, reduction, loop_shape, iterations, outputs)
            else:
                self._run_parallel(interpreter, op, args, maps, iterations, outputs)
        finally:
            stack.pop()
        return tuple(outputs)

    def _run_parallel(
        self, interpreter: Interpreter, op: linalg.GenericOp, args, maps, iterations: _Iterations, outputs
    ):
        """All iterations at once."""
        shape = iterations.shape
        indices = [_index(m, iterations.dims, shape) for m in maps]
        values = tuple(_gather(arg, index, shape) for arg, index in zip(args, indices, strict=True))
        yielded = interpreter.run_ssacfg_region(op.body, values, "linalg.generic")
        for output, value, index in zip(outputs, yielded, indices[len(op.inputs) :], strict=True):
            _scatter(output, index, value, shape)

    def _run_reduction(
        self,
        interpreter: Interpreter,
        op: linalg.GenericOp,
        args,
        maps,
        reduction: list[int],
        loop_shape,
        iterations: _Iterations,
        outputs,
    ):
        """One vectorized body run per point of the reduction sub-space, outputs carried."""
        shape = iterations.shape
        reduced = set(reduction)
        inputs = len(op.inputs)
        # Operands whose maps use no reduction dim are indexed (and inputs gathered) once.
        fixed = [not _uses_any(m, reduced) for m in maps]
        first = list(iterations.dims)
        for d in reduction:
            first[d] = 0
        fixed_indices = [_index(m, first, shape) if is_fixed else None for m, is_fixed in zip(maps, fixed)]
        values = [
            _gather(arg, index, shape) if is_fixed else None
            for arg, index, is_fixed in zip(args[:inputs], fixed_indices, fixed)
        ]
        carried = [
            np.array(_gather(output, index, shape)) if is_fixed else None
            for output, index, is_fixed in zip(outputs, fixed_indices[inputs:], fixed[inputs:])
        ]
        if any(n == 0 for n in loop_shape):
            return
        for point in product(*(range(loop_shape[d]) for d in reduction)):
            for d, i in zip(reduction, point):
                iterations.dims[d] = i
            indices = [None if is_fixed else _index(m, iterations.dims, shape) for m, is_fixed in zip(maps, fixed)]
            for k in range(inputs):
                if not fixed[k]:
                    values[k] = _gather(args[k], indices[k], shape)
            for k, output in enumerate(outputs):
                if not fixed[inputs + k]:
                    carried[k] = _gather(output, indices[inputs + k], shape)
            yielded = interpreter.run_ssacfg_region(op.body, (*values, *carried), "linalg.generic")
            for k, (output, value) in enumerate(zip(outputs, yielded, strict=True)):
                if fixed[inputs + k]:
                    carried[k] = value
                else:
                    _scatter(output, indices[inputs + k], value, shape)
        for k, output in enumerate(outputs):
            if fixed[inputs + k]:
                _scatter(output, fixed_indices[inputs + k], carried[k], shape)

    @impl(linalg.IndexOp)
    def run_index(self, interpreter: Interpreter, op: linalg.IndexOp, args: tuple[Any, ...]):
        stack = self._iteration_stack(interpreter)
        if not stack:
            raise InterpretationError("linalg.index outside a linalg.generic body")
        iterations = stack[-1]
        return (np.broadcast_to(np.asarray(iterations.dims[op.dim.value.data], dtype=np.int64), iterations.shape),)
