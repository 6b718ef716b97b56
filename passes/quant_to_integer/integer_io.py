"""`integer-io`: functions take and return storage integers instead of floats.

An argument read only by qcasts to one type T becomes a tensor of T's signless storage
integers (the qcasts become `scast`s of it); a result produced by a dcast of a value of type
T becomes that value's storage integers. Integers the model itself takes or returns (an
argument read only by scasts to one type T, as ONNX's uint8 input into DequantizeLinear; a
result that is a scast of a value of type T, as a QuantizeLinear output, possibly through
QCDQ's integer Clips, which narrow T's range) become T's signless
storage integers, the same bits. Integer indices the model takes, read only as Gathers' indices
(an embedding's token ids), become i32 with `quant.type` `INDEX_TYPE` (scale 1, zero point 0),
on every target. An f32 argument read by no qcast, and an f32 result no
dcast produces, belong to a float island (docs/float-islands.md) and stay f32, without
`quant.type`. Each other argument and result carries
`quant.type = "T"` (`bitfold.dialects.quant_type_attribute`) in its attribute dictionary, for
whoever feeds and reads the function (a C header documents scale and zero point from it)."""

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float32Type,
    FunctionType,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from bitfold.dialects.onnx.elementwise import ClipOp
from bitfold.dialects.onnx.shape import GatherOp
from bitfold.dialects.quant import (
    DequantizeCastOp,
    QuantizeCastOp,
    QuantizedType,
    StorageCastOp,
    UniformQuantizedType,
    element_type,
)
from bitfold.dialects.quant_type_attribute import QUANT_TYPE
from bitfold.passes.quant_to_integer.elementwise import narrowed_by_clip

INDEX_TYPE = UniformQuantizedType.get(32, True, Float32Type(), 1.0)
"""The recorded type of integer indices the function takes (`_index_argument`)."""

def _with_entry(attrs, index: int, count: int, value: Attribute) -> ArrayAttr[DictionaryAttr]:
    entries = [dict(d.data) for d in attrs] if attrs is not None else [{} for _ in range(count)]
    entries[index][QUANT_TYPE] = value
    return ArrayAttr(DictionaryAttr(e) for e in entries)


def _quantizes(user: Operation) -> bool:
    """A qcast, or a scast of storage integers to a quantized type."""
    return isinstance(user, QuantizeCastOp) or (
        isinstance(user, StorageCastOp) and isinstance(element_type(user.result.type), QuantizedType)
    )


def _has_type(attrs: ArrayAttr[DictionaryAttr] | None, index: int) -> bool:
    return attrs is not None and QUANT_TYPE in attrs.data[index].data


def _signless(value: SSAValue) -> None:
    """Retype `value` (a tensor of `uiN` / `siN` / `iN`) to `iN`, the same bits."""
    tensor = value.type
    Rewriter.replace_value_with_new_type(value, TensorType(IntegerType(tensor.element_type.width), tensor.get_shape()))


def _functions(module: ModuleOp) -> list[func.FuncOp]:
    return [op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks]


def record_integer_io(module: ModuleOp) -> None:
    """Before the rewrite (which may fold the scasts away), give each integer argument read only
    by scasts to one quantized type T, and each result that is a scast of a value of type T,
    its `quant.type` T: the model's own integer inputs and outputs."""
    for function in _functions(module):
        for index, argument in enumerate(function.args):
            users = [use.operation for use in argument.uses]
            if not users or not all(isinstance(u, StorageCastOp) and _quantizes(u) for u in users):
                continue
            types = {u.result.type for u in users}
            if len(types) == 1:
                (quantized,) = types
                function.arg_attrs = _with_entry(
                    function.arg_attrs, index, len(function.args), StringAttr(str(element_type(quantized)))
                )
        ret = function.body.blocks[-1].last_op
        for index, value in enumerate(ret.operands):
            if (quantized := _returned_type(value)) is not None:
                function.res_attrs = _with_entry(function.res_attrs, index, len(ret.operands), StringAttr(str(quantized)))


def _returned_type(value: SSAValue) -> QuantizedType | None:
    """The quantized type of integers a function returns: that of the value a scast reads,
    narrowed by the integer Clips between (QuantizeLinear -> Clip as the graph output)."""
    clips = []
    while isinstance(producer := value.owner, ClipOp):
        clips.append(producer)
        value = producer.input
    if not isinstance(producer, StorageCastOp) or not isinstance(quantized := element_type(producer.input.type), QuantizedType):
        return None
    for clip in reversed(clips):
        quantized = narrowed_by_clip(clip, quantized)
    return quantized


def _argument(function: func.FuncOp, index: int) -> None:
    argument = function.args[index]
    if _has_type(function.arg_attrs, index):
        _signless(argument)
        return
    users = [use.operation for use in argument.uses]
    if _is_f32_tensor(argument) and users and not any(isinstance(u, QuantizeCastOp) for u in users):
        return
    if _is_integer_tensor(argument) and users and all(_reads_as_indices(u, argument) for u in users):
        _index_argument(function, index)
        return
    if not users or not all(isinstance(u, QuantizeCastOp) for u in users) or len({u.result.type for u in users}) != 1:
        raise PassFailedException(
            f"quant-to-integer: integer-io: argument {index} of @{function.sym_name.data} is not read by qcasts to one type"
        )
    quantized = users[0].result.type
    argument = Rewriter.replace_value_with_new_type(argument, QuantizedType.cast_to_storage_type(quantized))
    for user in users:
        Rewriter.replace_op(user, StorageCastOp(argument, quantized))
    function.arg_attrs = _with_entry(function.arg_attrs, index, len(function.args), StringAttr(str(element_type(quantized))))


def _reads_as_indices(user: Operation, value: SSAValue) -> bool:
    """`value` is `user`'s Gather indices (and nothing else of it)."""
    return isinstance(user, GatherOp) and user.indices == value and user.data != value


def _index_argument(function: func.FuncOp, index: int) -> None:
    """Integer indices the model takes (an embedding's token ids, read only by Gathers) become
    i32 on every target, recorded as `INDEX_TYPE` (scale 1, zero point 0: the values themselves;
    an index fits i32 as it is below the gathered axis' size)."""
    argument = function.args[index]
    Rewriter.replace_value_with_new_type(argument, TensorType(IntegerType(32), argument.type.get_shape()))
    function.arg_attrs = _with_entry(function.arg_attrs, index, len(function.args), StringAttr(str(INDEX_TYPE)))


def _is_integer_tensor(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and isinstance(value.type.element_type, IntegerType)


def _is_f32_tensor(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and value.type.element_type == Float32Type()


def _result(function: func.FuncOp, ret: func.ReturnOp, index: int) -> None:
    value = ret.operands[index]
    if _has_type(function.res_attrs, index):
        if not isinstance(value, BlockArgument):  # an argument was made signless above
            _signless(value)
        return
    producer = value.owner
    if _is_f32_tensor(value) and not isinstance(producer, DequantizeCastOp):
        return
    if not isinstance(producer, (DequantizeCastOp, StorageCastOp)) or not isinstance(
        element_type(quantized := producer.input.type), QuantizedType
    ):
        raise PassFailedException(
            f"quant-to-integer: integer-io: result {index} of @{function.sym_name.data} is not dequantized "
            "or storage integers"
        )
    cast = StorageCastOp(producer.input, QuantizedType.cast_to_storage_type(quantized))
    Rewriter.insert_op(cast, InsertPoint.before(ret))
    ret.operands[index] = cast.result
    if not producer.result.uses:
        Rewriter.erase_op(producer)
    count = len(function.function_type.outputs)
    function.res_attrs = _with_entry(function.res_attrs, index, count, StringAttr(str(element_type(quantized))))


def use_integer_io(module: ModuleOp) -> None:
    """Rewrite every function with a body to integer inputs and outputs."""
    for function in _functions(module):
        for index in range(len(function.args)):
            _argument(function, index)
        ret = function.body.blocks[-1].last_op
        assert isinstance(ret, func.ReturnOp)
        for index in range(len(ret.operands)):
            _result(function, ret, index)
        function.function_type = FunctionType.from_lists(
            [a.type for a in function.args], [v.type for v in ret.operands]
        )
