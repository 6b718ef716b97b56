"""ONNX elementwise ops (conventions in `base.py`).

Binary ops broadcast their operands multidirectionally (numpy's rules) and compute in the
operands' common type: integers wrap around on overflow, floats round once per operation
(IEEE 754, as onnxruntime does). Sigmoid, Tanh and Exp compute in float64 and round once to
the input's type; onnxruntime approximates them in float32, so the two can differ in the last
bits, as can Elu, Selu, Celu, Softplus, Softsign, Erf, Gelu, Mish and float Pow (float64,
rounded once). Sqrt, Reciprocal and float Mod are correctly rounded in the input's type, as
IEEE 754 defines them (exact as onnxruntime's). LeakyRelu,
HardSigmoid, HardSwish and ThresholdedRelu compute in the input's type, one rounding per
operation in onnxruntime's order.
"""

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import I64, AnyFloat, Float32Type, FloatAttr, IntegerAttr, StringAttr, TensorType
from xdsl.irdl import (
    AttrSizedOperandSegments,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException

from bitfold.dialects.evaluation import named_operands
from bitfold.dialects.onnx.base import OnnxOp


class BinaryOnnxOp(OnnxOp):
    """C = A <op> B, with multidirectional broadcasting; the result has A's type."""

    a = operand_def()
    b = operand_def()
    c = result_def()

    @staticmethod
    def apply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The operation on broadcast operands of one type."""
        raise NotImplementedError

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        a, b = operands
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return (np.asarray(self.apply(a, b), dtype=a.dtype),)


@irdl_op_definition
class AddOp(BinaryOnnxOp):
    """C = A + B."""

    name = "onnx.Add"
    apply = staticmethod(np.add)


@irdl_op_definition
class SubOp(BinaryOnnxOp):
    """C = A - B."""

    name = "onnx.Sub"
    apply = staticmethod(np.subtract)


@irdl_op_definition
class MulOp(BinaryOnnxOp):
    """C = A * B."""

    name = "onnx.Mul"
    apply = staticmethod(np.multiply)


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b: IEEE division for floats; for integers the quotient truncated toward zero (C++
    `/`, which onnxruntime uses), not numpy's floor division. Integer division by zero is
    undefined in ONNX (here 0)."""
    if np.issubdtype(a.dtype, np.floating):
        return np.true_divide(a, b)
    # a - fmod(a, b) is an exact multiple of b, so floor division returns the exact quotient.
    return np.floor_divide(a - np.fmod(a, b), b)


@irdl_op_definition
class DivOp(BinaryOnnxOp):
    """C = A / B; integer division truncates toward zero."""

    name = "onnx.Div"
    apply = staticmethod(_divide)


class VariadicOnnxOp(OnnxOp):
    """result = fold of a binary operation over data_0, data_1, ... with multidirectional
    broadcasting (ONNX Min, Max)."""

    data_0 = var_operand_def()
    result = result_def()

    @staticmethod
    def apply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        result = operands[0]
        for operand in operands[1:]:
            result = self.apply(result, operand)
        return (np.asarray(result, dtype=operands[0].dtype),)


@irdl_op_definition
class MinOp(VariadicOnnxOp):
    """min = elementwise minimum of the inputs (NaN propagates, as numpy's minimum)."""

    name = "onnx.Min"
    apply = staticmethod(np.minimum)


@irdl_op_definition
class MaxOp(VariadicOnnxOp):
    """max = elementwise maximum of the inputs (NaN propagates, as numpy's maximum)."""

    name = "onnx.Max"
    apply = staticmethod(np.maximum)


@irdl_op_definition
class RoundOp(OnnxOp):
    """Y = X rounded to the nearest integer, ties to even (ONNX Round)."""

    name = "onnx.Round"
    x = operand_def()
    y = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        return (np.round(x),)


@irdl_op_definition
class ReluOp(OnnxOp):
    """Y = max(X, 0)."""

    name = "onnx.Relu"
    x = operand_def()
    y = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        return (np.asarray(np.maximum(x, np.zeros((), dtype=x.dtype))),)


@irdl_op_definition
class ClipOp(OnnxOp):
    """output = min(max(input, min), max); an absent bound does not clip (min > max gives max
    everywhere)."""

    name = "onnx.Clip"
    input = operand_def()
    min = opt_operand_def()
    max = opt_operand_def()
    output = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def verify_(self) -> None:
        """min and max are scalars (rank 0, or one element of rank 1, as onnxruntime's
        `IsScalar`)."""
        for name, bound in (("min", self.min), ("max", self.max)):
            if bound is not None and isinstance(bound.type, TensorType) and tuple(bound.type.get_shape()) not in ((), (1,)):
                raise VerifyException(f"'{name}' must be a scalar, got {bound.type}")

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        values = named_operands(self, operands)
        output = values["input"]
        if values["min"] is not None:
            output = np.maximum(output, values["min"])
        if values["max"] is not None:
            output = np.minimum(output, values["max"])
        return (np.asarray(output, dtype=values["input"].dtype),)


def logistic(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)), the function ONNX calls Sigmoid, in x's own precision."""
    return 1 / (1 + np.exp(-x))


def _in_float64(function, x: np.ndarray) -> np.ndarray:
    """`function` of `x` computed in float64, rounded once to x's type."""
    with np.errstate(over="ignore"):
        return np.asarray(function(x.astype(np.float64))).astype(x.dtype)


@irdl_op_definition
class SigmoidOp(OnnxOp):
    """Y = 1 / (1 + exp(-X)), in float64 rounded once to X's type."""

    name = "onnx.Sigmoid"
    x = operand_def()
    y = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return (_in_float64(logistic, operands[0]),)


@irdl_op_definition
class TanhOp(OnnxOp):
    """output = tanh(input), in float64 rounded once to the input's type."""

    name = "onnx.Tanh"
    input = operand_def()
    output = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return (_in_float64(np.tanh, operands[0]),)


ONNX_NUMPY_TYPES = {
    1: np.float32,
    2: np.uint8,
    3: np.int8,
    4: np.uint16,
    5: np.int16,
    6: np.int32,
    7: np.int64,
    9: np.bool_,
    10: np.float16,
    11: np.float64,
    12: np.uint32,
    13: np.uint64,
}
"""ONNX `TensorProto.DataType` values with a numpy type of their own (Cast's `to`)."""


@irdl_op_definition
class CastOp(OnnxOp):
    """output = input converted to the type `to` (a `TensorProto.DataType`): floats round to
    nearest even, float to integer truncates toward zero (out of range is undefined in ONNX),
    integers wrap around, nonzero becomes true, true becomes 1. `saturate` and `round_mode`
    only concern the float8 types, which (like bfloat16, the 4-bit and string types) have no
    reference here."""

    name = "onnx.Cast"
    input = operand_def()
    output = result_def()

    round_mode = attr_def(StringAttr)
    saturate = attr_def(IntegerAttr[I64])
    to = attr_def(IntegerAttr[I64])

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        to = self.int_attr("to")
        if to not in ONNX_NUMPY_TYPES:
            raise NotImplementedError(f"{self.name}: no reference for casting to ONNX data type {to}")
        with np.errstate(invalid="ignore", over="ignore"):
            return (operands[0].astype(ONNX_NUMPY_TYPES[to]),)


@irdl_op_definition
class IdentityOp(OnnxOp):
    """output = input."""

    name = "onnx.Identity"
    input = operand_def()
    output = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return (operands[0],)


@irdl_op_definition
class ExpOp(OnnxOp):
    """output = exp(input), in float64 rounded once to the input's type."""

    name = "onnx.Exp"
    input = operand_def()
    output = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return (_in_float64(np.exp, operands[0]),)


@irdl_op_definition
class LeakyReluOp(OnnxOp):
    """Y = X where X >= 0, else alpha * X (one rounding, in X's type)."""

    name = "onnx.LeakyRelu"
    x = operand_def()
    y = result_def()

    alpha = attr_def(FloatAttr[Float32Type])

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        return (np.where(x >= 0, x, x * x.dtype.type(self.float_attr("alpha"))).astype(x.dtype),)


def _hard_sigmoid(x: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """max(0, min(1, alpha * x + beta)) in x's type, rounding after the product and the sum."""
    kind = x.dtype.type
    return np.clip(x * kind(alpha) + kind(beta), kind(0), kind(1)).astype(x.dtype)


@irdl_op_definition
class HardSigmoidOp(OnnxOp):
    """Y = max(0, min(1, alpha * X + beta)), in X's type (`_hard_sigmoid`)."""

    name = "onnx.HardSigmoid"
    x = operand_def()
    y = result_def()

    alpha = attr_def(FloatAttr[Float32Type])
    beta = attr_def(FloatAttr[Float32Type])

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return (_hard_sigmoid(operands[0], self.float_attr("alpha"), self.float_attr("beta")),)


@irdl_op_definition
class HardSwishOp(OnnxOp):
    """Y = X * max(0, min(1, X / 6 + 1 / 2)), in X's type (`_hard_sigmoid` with alpha = 1/6)."""

    name = "onnx.HardSwish"
    x = operand_def()
    y = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        return ((x * _hard_sigmoid(x, 1 / 6, 0.5)).astype(x.dtype),)


class Float64ActivationOp(OnnxOp):
    """Y = f(X) for an activation f with float attributes, in float64 rounded once to X's type."""

    x = operand_def()
    y = result_def()

    def activation(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        return (_in_float64(self.activation, operands[0]),)


@irdl_op_definition
class EluOp(Float64ActivationOp):
    """Y = X where X >= 0, else alpha (exp(X) - 1)."""

    name = "onnx.Elu"
    alpha = attr_def(FloatAttr[Float32Type])

    def activation(self, x: np.ndarray) -> np.ndarray:
        return np.where(x >= 0, x, self.float_attr("alpha") * np.expm1(np.minimum(x, 0)))


@irdl_op_definition
class SeluOp(Float64ActivationOp):
    """Y = gamma X where X > 0, else gamma alpha (exp(X) - 1)."""

    name = "onnx.Selu"
    alpha = attr_def(FloatAttr[Float32Type])
    gamma = attr_def(FloatAttr[Float32Type])

    def activation(self, x: np.ndarray) -> np.ndarray:
        alpha, gamma = self.float_attr("alpha"), self.float_attr("gamma")
        return gamma * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


@irdl_op_definition
class CeluOp(Float64ActivationOp):
    """Y = max(0, X) + min(0, alpha (exp(X / alpha) - 1))."""

    name = "onnx.Celu"
    alpha = attr_def(FloatAttr[Float32Type])

    def activation(self, x: np.ndarray) -> np.ndarray:
        alpha = self.float_attr("alpha")
        return np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(np.minimum(x, 0) / alpha))


@irdl_op_definition
class SoftplusOp(Float64ActivationOp):
    """Y = ln(exp(X) + 1)."""

    name = "onnx.Softplus"

    def activation(self, x: np.ndarray) -> np.ndarray:
        return np.logaddexp(x, 0)


@irdl_op_definition
class ThresholdedReluOp(OnnxOp):
    """Y = X where X > alpha, else 0 (no rounding)."""

    name = "onnx.ThresholdedRelu"
    x = operand_def()
    y = result_def()

    alpha = attr_def(FloatAttr[Float32Type])

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        return (np.where(x > x.dtype.type(self.float_attr("alpha")), x, 0).astype(x.dtype),)


@irdl_op_definition
class SoftsignOp(Float64ActivationOp):
    """Y = X / (1 + |X|)."""

    name = "onnx.Softsign"

    def activation(self, x: np.ndarray) -> np.ndarray:
        return x / (1 + np.abs(x))


@irdl_op_definition
class ModOp(BinaryOnnxOp):
    """C = A mod B with broadcasting. fmod = 0 (integers only): the remainder of floor
    division, with B's sign (Python's `%`); fmod = 1: the remainder of truncated division,
    with A's sign (C's `fmod`, the only form for floats). Exact; integer B = 0 is undefined in
    ONNX (here 0)."""

    name = "onnx.Mod"
    fmod = attr_def(IntegerAttr[I64])

    def verify_(self) -> None:
        """fmod = 0 only on integers (ONNX: floats need fmod = 1)."""
        element = self.operands[0].type.element_type if isinstance(self.operands[0].type, TensorType) else None
        if isinstance(element, AnyFloat) and not self.int_attr("fmod"):
            raise VerifyException("fmod must be 1 for floating-point inputs")

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        a, b = operands
        if np.issubdtype(a.dtype, np.floating) and not self.int_attr("fmod"):
            raise ValueError(f"{self.name}: fmod must be 1 for floating-point inputs")
        remainder = np.fmod if self.int_attr("fmod") else np.mod
        with np.errstate(divide="ignore", invalid="ignore"):
            return (np.asarray(remainder(a, b), dtype=a.dtype),)


@irdl_op_definition
class PowOp(OnnxOp):
    """Z = X ** Y with broadcasting, of X's type (Y may be of another type). Float X: computed
    in float64, rounded once to X's type; integer X: the integer power in int64 (Y cast to
    int64; a negative Y is undefined), wrapped to X's type."""

    name = "onnx.Pow"
    x = operand_def()
    y = operand_def()
    z = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        x, y = operands
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if np.issubdtype(x.dtype, np.floating):
                return (np.asarray(np.power(x.astype(np.float64), y.astype(np.float64))).astype(x.dtype),)
            return (np.asarray(np.power(x.astype(np.int64), y.astype(np.int64))).astype(x.dtype),)


@irdl_op_definition
class WhereOp(OnnxOp):
    """output = X where condition (bool) else Y, the three broadcast multidirectionally. Exact."""

    name = "onnx.Where"
    condition = operand_def()
    x = operand_def()
    y = operand_def()
    output = result_def()

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        condition, x, y = operands
        return (np.asarray(np.where(condition.astype(bool), x, y), dtype=x.dtype),)


class UnaryOnnxOp(OnnxOp):
    """Y = f(X) elementwise."""

    x = operand_def()
    y = result_def()


@irdl_op_definition
class SqrtOp(UnaryOnnxOp):
    """Y = sqrt(X), correctly rounded in X's type (sqrt(-0) = -0, sqrt(inf) = inf); X < 0 and NaN
    give the canonical quiet NaN (f32 0x7FC00000: RISC-V's, and the float island's, docs/float-islands.md)."""

    name = "onnx.Sqrt"

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        with np.errstate(invalid="ignore"):
            root = np.asarray(np.sqrt(operands[0]))
        return (np.where(np.isnan(root), root.dtype.type(np.nan), root).astype(root.dtype),)


@irdl_op_definition
class NegOp(UnaryOnnxOp):
    """Y = -X, exact on floats (the sign bit flipped, NaN included); integers wrap (-(-128) is
    -128 in int8)."""

    name = "onnx.Neg"

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        with np.errstate(over="ignore"):
            return (np.asarray(np.negative(x), dtype=x.dtype),)


@irdl_op_definition
class ReciprocalOp(UnaryOnnxOp):
    """Y = 1 / X, correctly rounded in X's type (1 / 0 = inf)."""

    name = "onnx.Reciprocal"

    def evaluate(self, operands: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        (x,) = operands
        with np.errstate(divide="ignore"):
            return (np.asarray(np.reciprocal(x), dtype=x.dtype),)


_ERF = np.frompyfunc(math.erf, 1, 1)
"""The error function on float64 arrays (numpy has none): C's `erf`, within 1 ulp of float64."""


def erf(x: np.ndarray) -> np.ndarray:
    """erf(x) = 2 / sqrt(pi) * integral of exp(-t**2) from 0 to x, elementwise in float64."""
    return np.asarray(_ERF(np.asarray(x, dtype=np.float64)), dtype=np.float64)


@irdl_op_definition
class ErfOp(Float64ActivationOp):
    """Y = erf(X), in float64 rounded once to X's type."""

    name = "onnx.Erf"

    def activation(self, x: np.ndarray) -> np.ndarray:
        return erf(x)


GELU_TANH_SCALE = math.sqrt(2 / math.pi)
"""sqrt(2 / pi), the scale inside Gelu's tanh approximation."""


@irdl_op_definition
class GeluOp(Float64ActivationOp):
    """Y = X / 2 * (1 + erf(X / sqrt(2))) (approximate = "none"), or
    X / 2 * (1 + tanh(sqrt(2 / pi) * (X + 0.044715 X**3))) (approximate = "tanh"), in float64
    rounded once to X's type."""

    name = "onnx.Gelu"
    approximate = attr_def(StringAttr)

    def activation(self, x: np.ndarray) -> np.ndarray:
        mode = self.string_attr("approximate")
        if mode == "none":
            return x / 2 * (1 + erf(x / math.sqrt(2)))
        if mode == "tanh":
            return x / 2 * (1 + np.tanh(GELU_TANH_SCALE * (x + 0.044715 * x**3)))
        raise ValueError(f"{self.name}: unknown approximate '{mode}'")


@irdl_op_definition
class MishOp(Float64ActivationOp):
    """Y = X * tanh(ln(1 + exp(X))), in float64 rounded once to X's type."""

    name = "onnx.Mish"

    def activation(self, x: np.ndarray) -> np.ndarray:
        return x * np.tanh(np.logaddexp(x, 0))


OPS = [
    AddOp, SubOp, MulOp, DivOp, MinOp, MaxOp, RoundOp, ReluOp, ClipOp, SigmoidOp, TanhOp, CastOp, IdentityOp,
    ExpOp, LeakyReluOp, HardSigmoidOp, HardSwishOp, EluOp, SeluOp, CeluOp, SoftplusOp, ThresholdedReluOp, SoftsignOp,
    ModOp, PowOp, WhereOp, SqrtOp, NegOp, ReciprocalOp, ErfOp, GeluOp, MishOp,
]  # fmt: skip
