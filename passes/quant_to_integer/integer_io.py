"""`integer-io`: functions take and return storage integers instead of floats.

An argument read only by qcasts to one type T becomes a tensor of T's signless storage
integers (the qcasts become `scast`s of it); a result produced by a dcast of a value of type
T becomes that value's storage integers. Each such argument and result carries
`quant.type = "T"` (the type's text, which later passes leave alone) in its attribute
dictionary, for whoever feeds and reads the function (a C header documents scale and zero
point from it)."""

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, ModuleOp, StringAttr
from xdsl.ir import Attribute
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from bitfold.dialects.quant import DequantizeCastOp, QuantizeCastOp, StorageCastOp, element_type
from bitfold.passes.lower_quant.casts import storage_tensor

QUANT_TYPE = "quant.type"


def _with_entry(attrs, index: int, count: int, value: Attribute) -> ArrayAttr[DictionaryAttr]:
    entries = [dict(d.data) for d in attrs] if attrs is not None else [{} for _ in range(count)]
    entries[index][QUANT_TYPE] = value
    return ArrayAttr(DictionaryAttr(e) for e in entries)


def _argument(function: func.FuncOp, index: int) -> None:
    argument = function.args[index]
    users = [use.operation for use in argument.uses]
    types = {u.result.type for u in users if isinstance(u, QuantizeCastOp)}
    if not users or len(types) != 1 or not all(isinstance(u, QuantizeCastOp) for u in users):
        raise PassFailedException(
            f"quant-to-integer: integer-io: argument {index} of @{function.sym_name.data} is not read by qcasts to one type"
        )
    (quantized,) = types
    argument = Rewriter.replace_value_with_new_type(argument, storage_tensor(quantized))
    for user in users:
        Rewriter.replace_op(user, StorageCastOp(argument, quantized))
    function.arg_attrs = _with_entry(function.arg_attrs, index, len(function.args), StringAttr(str(element_type(quantized))))


def _result(function: func.FuncOp, ret: func.ReturnOp, index: int) -> None:
    dcast = ret.operands[index].owner
    if not isinstance(dcast, DequantizeCastOp):
        raise PassFailedException(
            f"quant-to-integer: integer-io: result {index} of @{function.sym_name.data} is not dequantized"
        )
    quantized = dcast.input.type
    cast = StorageCastOp(dcast.input, storage_tensor(quantized))
    Rewriter.insert_op(cast, InsertPoint.before(ret))
    ret.operands[index] = cast.result
    if not dcast.result.uses:
        Rewriter.erase_op(dcast)
    count = len(function.function_type.outputs)
    function.res_attrs = _with_entry(function.res_attrs, index, count, StringAttr(str(element_type(quantized))))


def use_integer_io(module: ModuleOp) -> None:
    """Rewrite every function with a body to integer inputs and outputs."""
    for function in [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]:
        for index in range(len(function.args)):
            _argument(function, index)
        ret = function.body.blocks[-1].last_op
        assert isinstance(ret, func.ReturnOp)
        for index in range(len(ret.operands)):
            _result(function, ret, index)
        function.function_type = FunctionType.from_lists(
            [a.type for a in function.args], [v.type for v in ret.operands]
        )
