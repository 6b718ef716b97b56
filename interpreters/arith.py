"""`arith` on numpy values, scalars and tensors alike (MLIR's arith ops are elementwise on
tensors), with MLIR's semantics: integer results modulo 2^N, signed or unsigned readings of
the bits as each op states, floats in their own precision. What MLIR calls poison (division
by zero, signed division overflow, a shift by N or more, fptosi/fptoui out of range, NaN)
raises `InterpretationError` instead of producing a value."""

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from bitfold.dialects.evaluation import numpy_dtype_of, read_signed, read_unsigned
from bitfold.interpreters.integers import bit_width, wrap

IntegerFunction = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _poison_if(condition, op: Operation, what: str) -> None:
    if np.any(condition):
        raise InterpretationError(f"{op.name}: {what} (poison)")


def _trunc_divide(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Quotient rounded toward zero, for int64 or uint64 operands (rhs != 0)."""
    quotient = lhs // rhs
    return np.where((quotient < 0) & (quotient * rhs != lhs), quotient + 1, quotient)


# (reading, function): "s" signed int64, "u" unsigned uint64 operands; the result wraps.
_INTEGER_BINARY: dict[type[Operation], tuple[str, IntegerFunction]] = {
    arith.AddiOp: ("s", np.add),
    arith.SubiOp: ("s", np.subtract),
    arith.MuliOp: ("s", np.multiply),
    arith.AndIOp: ("s", np.bitwise_and),
    arith.OrIOp: ("s", np.bitwise_or),
    arith.XOrIOp: ("s", np.bitwise_xor),
    arith.MaxSIOp: ("s", np.maximum),
    arith.MinSIOp: ("s", np.minimum),
    arith.MaxUIOp: ("u", np.maximum),
    arith.MinUIOp: ("u", np.minimum),
    arith.DivSIOp: ("s", _trunc_divide),
    arith.RemSIOp: ("s", lambda a, b: a - _trunc_divide(a, b) * b),
    arith.FloorDivSIOp: ("s", np.floor_divide),
    arith.DivUIOp: ("u", np.floor_divide),
    arith.RemUIOp: ("u", np.remainder),
}
_DIVISIONS = (arith.DivSIOp, arith.RemSIOp, arith.FloorDivSIOp, arith.DivUIOp, arith.RemUIOp)
_SIGNED_DIVISIONS = (arith.DivSIOp, arith.FloorDivSIOp)

_SHIFTS: dict[type[Operation], tuple[str, IntegerFunction]] = {
    arith.ShLIOp: ("s", np.left_shift),
    arith.ShRSIOp: ("s", np.right_shift),  # arithmetic on int64
    arith.ShRUIOp: ("u", np.right_shift),  # logical on uint64
}

_CMPI: dict[str, tuple[str, IntegerFunction]] = {
    "eq": ("s", np.equal), "ne": ("s", np.not_equal),
    "slt": ("s", np.less), "sle": ("s", np.less_equal), "sgt": ("s", np.greater), "sge": ("s", np.greater_equal),
    "ult": ("u", np.less), "ule": ("u", np.less_equal), "ugt": ("u", np.greater), "uge": ("u", np.greater_equal),
}  # fmt: skip


def _ordered(function: IntegerFunction) -> IntegerFunction:
    return lambda a, b: function(a, b) & ~(np.isnan(a) | np.isnan(b))


def _unordered(function: IntegerFunction) -> IntegerFunction:
    return lambda a, b: function(a, b) | np.isnan(a) | np.isnan(b)


_CMPF: dict[str, IntegerFunction] = {
    "false": lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
    "oeq": _ordered(np.equal), "ogt": _ordered(np.greater), "oge": _ordered(np.greater_equal),
    "olt": _ordered(np.less), "ole": _ordered(np.less_equal), "one": _ordered(np.not_equal),
    "ord": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
    "ueq": _unordered(np.equal), "ugt": _unordered(np.greater), "uge": _unordered(np.greater_equal),
    "ult": _unordered(np.less), "ule": _unordered(np.less_equal), "une": np.not_equal,
    "uno": lambda a, b: np.isnan(a) | np.isnan(b),
    "true": lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
}  # fmt: skip

def _signed_zero_order(result: np.ndarray, a: np.ndarray, b: np.ndarray, larger: bool) -> np.ndarray:
    """numpy's maximum / minimum (NaN-propagating) or fmax / fmin (NaN-dropping) with the order
    -0.0 < +0.0 where a == b (numpy returns its second operand there)."""
    a_first = np.signbit(a) != larger  # maximum: a unless a is -0.0; minimum: a if a is -0.0
    return np.where(a == b, np.where(a_first, a, b), result)


_FLOAT_BINARY: dict[type[Operation], Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    arith.AddfOp: np.add,
    arith.SubfOp: np.subtract,
    arith.MulfOp: np.multiply,
    arith.DivfOp: np.divide,
    arith.MaximumfOp: lambda a, b: _signed_zero_order(np.maximum(a, b), a, b, larger=True),
    arith.MinimumfOp: lambda a, b: _signed_zero_order(np.minimum(a, b), a, b, larger=False),
    # maxnumf / minnumf: a NaN operand gives the other one (IEEE 754-2019 maximumNumber, RISC-V's
    # fmax.s / fmin.s), -0.0 < +0.0 as for maximumf
    arith.MaxnumfOp: lambda a, b: _signed_zero_order(np.fmax(a, b), a, b, larger=True),
    arith.MinnumfOp: lambda a, b: _signed_zero_order(np.fmin(a, b), a, b, larger=False),
}


def _read(reading: str, values, width: int) -> np.ndarray:
    return read_signed(values, width) if reading == "s" else read_unsigned(values, width)


def _float_to_integer(op: Operation, value: np.ndarray, low: int, high: int) -> np.ndarray:
    """trunc(value) as int64, poison outside [low, high] or NaN."""
    truncated = np.trunc(np.asarray(value, dtype=np.float64))
    _poison_if(~((truncated >= low) & (truncated <= high)), op, "value out of the integer range")
    return truncated.astype(np.int64)


def _constant_value(op: arith.ConstantOp) -> Any:
    value, dtype = op.value, numpy_dtype_of(op.result.type)
    if isinstance(value, IntegerAttr):
        return wrap(value.value.data, op.result.type)
    if isinstance(value, FloatAttr):
        return np.asarray(value.value.data).astype(dtype)
    assert isinstance(value, DenseIntOrFPElementsAttr), f"arith.constant of {value}"
    shape = tuple(op.result.type.get_shape())
    values = np.asarray(value.get_values())
    values = np.broadcast_to(values.reshape(()), shape) if values.size == 1 else values.reshape(shape)
    return wrap(values, op.result.type) if np.issubdtype(values.dtype, np.integer) else values.astype(dtype)


def _integer_binary(reading: str, function: IntegerFunction):
    def run(self, interpreter: Interpreter, op: Operation, args: tuple[Any, ...]):
        width = bit_width(op.result_types[0])
        lhs, rhs = (_read(reading, a, width) for a in args)
        if isinstance(op, _DIVISIONS):
            _poison_if(rhs == 0, op, "division by zero")
        if isinstance(op, _SIGNED_DIVISIONS):
            _poison_if((lhs == -(1 << (width - 1))) & (rhs == -1), op, "signed division overflow")
        with np.errstate(over="ignore"):
            return (wrap(function(lhs, rhs), op.result_types[0]),)

    return run


def _shift(reading: str, function: IntegerFunction):
    def run(self, interpreter: Interpreter, op: Operation, args: tuple[Any, ...]):
        width = bit_width(op.result_types[0])
        amount = read_unsigned(args[1], width)
        _poison_if(amount >= width, op, f"shift amount of {width} bits or more")
        value = _read(reading, args[0], width)
        return (wrap(function(value, amount.astype(value.dtype)), op.result_types[0]),)

    return run


def _extended_product(reading: str):
    """mulsi_extended / mului_extended: the low and the high N bits of the exact 2N-bit
    product of the operands' signed / unsigned readings (Python ints: no overflow)."""

    def run(self, interpreter: Interpreter, op: Operation, args: tuple[Any, ...]):
        width = bit_width(op.result_types[0])
        lhs, rhs = (_read(reading, a, width).astype(object) for a in args)
        product = np.asarray(lhs * rhs, dtype=object)
        half, modulus = 1 << (width - 1), 1 << width
        halves = (product, product >> width)
        signed = (np.asarray((h + half) % modulus - half, dtype=object).astype(np.int64) for h in halves)
        return tuple(wrap(h, op.result_types[0]) for h in signed)

    return run


def _float_binary(function):
    """The operation on operands held in the result's float type (numpy float32 for f32: one
    IEEE binary32 rounding to nearest even, never a float64 intermediate)."""

    def run(self, interpreter: Interpreter, op: Operation, args: tuple[Any, ...]):
        dtype = numpy_dtype_of(op.result_types[0])
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):  # IEEE results
            return (np.asarray(function(*(np.asarray(a, dtype=dtype) for a in args))).astype(dtype),)

    return run


class _ArithBase(InterpreterFunctions):
    @impl(arith.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: arith.ConstantOp, args: tuple[Any, ...]):
        return (_constant_value(op),)

    @impl(arith.CmpiOp)
    def run_cmpi(self, interpreter: Interpreter, op: arith.CmpiOp, args: tuple[Any, ...]):
        reading, function = _CMPI[arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]]
        width = bit_width(op.lhs.type)
        return (np.asarray(function(*(_read(reading, a, width) for a in args))),)

    @impl(arith.CmpfOp)
    def run_cmpf(self, interpreter: Interpreter, op: arith.CmpfOp, args: tuple[Any, ...]):
        function = _CMPF[arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]]
        return (np.asarray(function(*(np.asarray(a) for a in args))),)

    @impl(arith.SelectOp)
    def run_select(self, interpreter: Interpreter, op: arith.SelectOp, args: tuple[Any, ...]):
        condition, true_value, false_value = args
        return (np.where(condition, true_value, false_value).astype(numpy_dtype_of(op.result.type)),)

    @impl(arith.ExtSIOp)
    def run_extsi(self, interpreter: Interpreter, op: arith.ExtSIOp, args: tuple[Any, ...]):
        return (wrap(read_signed(args[0], bit_width(op.input.type)), op.result.type),)

    @impl(arith.ExtUIOp)
    def run_extui(self, interpreter: Interpreter, op: arith.ExtUIOp, args: tuple[Any, ...]):
        return (wrap(read_unsigned(args[0], bit_width(op.input.type)), op.result.type),)

    @impl(arith.TruncIOp)
    def run_trunci(self, interpreter: Interpreter, op: arith.TruncIOp, args: tuple[Any, ...]):
        return (wrap(args[0], op.result.type),)

    @impl(arith.IndexCastOp)
    def run_index_cast(self, interpreter: Interpreter, op: arith.IndexCastOp, args: tuple[Any, ...]):
        return (wrap(read_signed(args[0], bit_width(op.input.type)), op.result.type),)

    @impl(arith.SIToFPOp)
    def run_sitofp(self, interpreter: Interpreter, op: arith.SIToFPOp, args: tuple[Any, ...]):
        value = read_signed(args[0], bit_width(op.input.type))
        return (value.astype(numpy_dtype_of(op.result.type)),)

    @impl(arith.UIToFPOp)
    def run_uitofp(self, interpreter: Interpreter, op: arith.UIToFPOp, args: tuple[Any, ...]):
        value = read_unsigned(args[0], bit_width(op.input.type))
        return (value.astype(numpy_dtype_of(op.result.type)),)

    @impl(arith.FPToSIOp)
    def run_fptosi(self, interpreter: Interpreter, op: arith.FPToSIOp, args: tuple[Any, ...]):
        width = bit_width(op.result.type)
        low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
        return (wrap(_float_to_integer(op, args[0], low, high), op.result.type),)

    @impl(arith.FPToUIOp)
    def run_fptoui(self, interpreter: Interpreter, op: arith.FPToUIOp, args: tuple[Any, ...]):
        high = min((1 << bit_width(op.result.type)) - 1, (1 << 63) - 1)  # uint64 beyond 2^63: unsupported
        return (wrap(_float_to_integer(op, args[0], 0, high), op.result.type),)

    @impl(arith.NegfOp)
    def run_negf(self, interpreter: Interpreter, op: arith.NegfOp, args: tuple[Any, ...]):
        return (np.negative(args[0]),)

    @impl(arith.BitcastOp)
    def run_bitcast(self, interpreter: Interpreter, op: arith.BitcastOp, args: tuple[Any, ...]):
        """The same bits read as the result type (i32 <-> f32, ...)."""
        source = np.asarray(args[0]).astype(numpy_dtype_of(op.input.type))
        return (source.view(numpy_dtype_of(op.result.type)),)

    @impl(arith.ExtFOp)
    def run_extf(self, interpreter: Interpreter, op: arith.ExtFOp, args: tuple[Any, ...]):
        return (np.asarray(args[0]).astype(numpy_dtype_of(op.result.type)),)

    @impl(arith.TruncFOp)
    def run_truncf(self, interpreter: Interpreter, op: arith.TruncFOp, args: tuple[Any, ...]):
        return (np.asarray(args[0]).astype(numpy_dtype_of(op.result.type)),)


def _with_tables(base: type[InterpreterFunctions]) -> type[InterpreterFunctions]:
    """`base` plus one implementation per entry of the op tables above."""
    namespace: dict[str, Any] = {}
    for op_type, (reading, function) in _INTEGER_BINARY.items():
        namespace[f"run_{op_type.__name__}"] = impl(op_type)(_integer_binary(reading, function))
    for op_type, (reading, function) in _SHIFTS.items():
        namespace[f"run_{op_type.__name__}"] = impl(op_type)(_shift(reading, function))
    for op_type, function in _FLOAT_BINARY.items():
        namespace[f"run_{op_type.__name__}"] = impl(op_type)(_float_binary(function))
    for op_type, reading in ((arith.MulSIExtendedOp, "s"), (arith.MulUIExtendedOp, "u")):
        namespace[f"run_{op_type.__name__}"] = impl(op_type)(_extended_product(reading))
    return register_impls(type("NumpyArithFunctions", (base,), namespace))


NumpyArithFunctions = _with_tables(_ArithBase)
