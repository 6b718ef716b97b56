"""Execute bitfold IR at any stage (`bitfold.run`, `bitfold-run`): a function of a module chosen
by name, run by bitfold's interpreter (`bitfold.interpreters`) on inputs given by name or in order,
checked against its signature, its results by output name. Tensor values are numpy arrays; values
of quantized types are their stored integers."""

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr

from bitfold.dialects.evaluation import numpy_dtype_of
from bitfold.dialects.onnx.base import ONNX_NAME
from bitfold.dialects.tensor_limits import check_module
from bitfold.interpreters import make_interpreter
from bitfold.interpreters.references import shape_fits
from bitfold.verification import verify_program


class InterpretationInputError(ValueError):
    """The inputs given do not fit the function's signature."""


def entry_function(module: ModuleOp, name: str | None = None) -> func.FuncOp:
    """The function to run: `name`, or the module's only public function with a body."""
    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]
    if name is not None:
        functions = [f for f in functions if f.sym_name.data == name]
    else:
        functions = [f for f in functions if f.sym_visibility is None or f.sym_visibility.data == "public"]
    if len(functions) != 1:
        wanted = f"function @{name}" if name else "one public function"
        raise InterpretationInputError(f"expected {wanted} in the module, found {len(functions)}")
    return functions[0]


def _onnx_names(attrs: ArrayAttr[DictionaryAttr] | None, count: int) -> list[str | None]:
    """The `onnx.name` entry (the model's exact value name) of each argument or result
    attribute dictionary, None where absent."""
    names: list[str | None] = [None] * count
    for i, entry in enumerate(attrs or ()):
        if isinstance(name := entry.data.get(ONNX_NAME), StringAttr):
            names[i] = name.data
    return names


def input_names(function: func.FuncOp) -> list[str]:
    """Argument names: the model's input names (`onnx.name`), else SSA name hints, else `arg<i>`."""
    names = _onnx_names(function.arg_attrs, len(function.args))
    return [name or arg.name_hint or f"arg{i}" for i, (name, arg) in enumerate(zip(names, function.args))]


def output_names(function: func.FuncOp) -> list[str]:
    """Result names: the model's output names (`onnx.name`), else `output<i>`."""
    names = _onnx_names(function.res_attrs, len(function.function_type.outputs))
    return [name or f"output{i}" for i, name in enumerate(names)]


def _arguments(function: func.FuncOp, inputs: Mapping[str, Any] | Sequence[Any]) -> list[np.ndarray]:
    names = input_names(function)
    if isinstance(inputs, Mapping):
        unknown = sorted(set(inputs) - set(names))
        missing = [n for n in names if n not in inputs]
        if unknown or missing:
            raise InterpretationInputError(f"inputs do not match the signature ({', '.join(names)}): "
                                           f"missing {missing}, unknown {unknown}")
        values = [inputs[n] for n in names]
    else:
        values = list(inputs)
        if len(values) != len(names):
            raise InterpretationInputError(f"expected {len(names)} inputs ({', '.join(names)}), got {len(values)}")
    arguments = []
    for name, value, arg_type in zip(names, values, function.function_type.inputs, strict=True):
        array = np.asarray(value)
        expected_shape = tuple(arg_type.get_shape()) if hasattr(arg_type, "get_shape") else ()
        if not shape_fits(expected_shape, array.shape):
            raise InterpretationInputError(f"input '{name}' has shape {array.shape}, expected {expected_shape}")
        arguments.append(array.astype(numpy_dtype_of(arg_type), copy=False))
    return arguments


def run(module: ModuleOp, inputs: Mapping[str, Any] | Sequence[Any], function: str | None = None,
        verified: bool = False) -> dict[str, np.ndarray]:
    """Run `function` (default: the module's public function) on `inputs`, given by argument
    name or in order; return its results by output name, as numpy arrays. Only IR that
    passes `bitfold.verification.verify_program` runs (`verified`: the caller ran it on this
    module, unchanged since, as calibration does once for many chunks of samples), and only a
    function whose every value (the arrays the interpreter makes) is within the tensor cap
    (`check_module`)."""
    if not verified:
        verify_program(module)
    entry = entry_function(module, function)
    check_module(entry)
    results = make_interpreter(module).call_op(entry, tuple(_arguments(entry, inputs)))
    return {name: np.asarray(value) for name, value in zip(output_names(entry), results, strict=True)}


def run_on_samples(module: ModuleOp, samples: Sequence[Mapping[str, Any]], names: Sequence[str]) -> list[np.ndarray]:
    """`run` on every sample; for each output of `names`, its values in float64 stacked along a new
    leading axis (one row a sample)."""
    runs = [run(module, dict(sample)) for sample in samples]
    return [np.stack([np.asarray(r[name], dtype=np.float64) for r in runs]) for name in names]
