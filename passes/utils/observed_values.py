"""Observe values inside a function by returning them: `append_results(function, values, prefix)`
appends `values` to the function's results, named `<prefix>0`, `<prefix>1`, ... (`onnx.name`), so
an interpreter run yields them beside the outputs (bitfold-report's probes, calibration)."""

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr
from xdsl.ir import SSAValue
from xdsl.rewriter import Rewriter


def append_results(function: func.FuncOp, values: Sequence[SSAValue], prefix: str) -> list[str]:
    """Return `values` from `function` too (module docstring); returns their result names."""
    returned = function.body.block.last_op
    assert isinstance(returned, func.ReturnOp)
    Rewriter.replace_op(returned, func.ReturnOp(*returned.arguments, *values))
    outputs = [*function.function_type.outputs, *(value.type for value in values)]
    function.function_type = func.FunctionType.from_lists(function.function_type.inputs.data, outputs)
    kept = function.res_attrs.data if function.res_attrs is not None else \
        [DictionaryAttr({})] * len(returned.arguments)
    names = [f"{prefix}{i}" for i in range(len(values))]
    function.res_attrs = ArrayAttr([*kept, *(DictionaryAttr({"onnx.name": StringAttr(n)}) for n in names)])
    return names
