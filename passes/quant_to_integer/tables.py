"""Unary activations on quantized values become lookup tables indexed by the stored input:

    qcast(f(dcast(q)))                 ->  table[q - lo]
    table[i] = qcast(f(dcast(lo + i)))     for every stored value lo + i of q's type

f is Sigmoid, Tanh, Exp, LeakyRelu, HardSigmoid, HardSwish, Elu, Selu, Celu, Softplus,
Softsign, ThresholdedRelu, Erf, Gelu, Mish, Sqrt, Reciprocal or Neg, or Pow / Mod whose second operand
is one constant c (a scalar, or a tensor of one element that does not widen the result):
f(x) = Pow(x, c) or Mod(x, c) (`CONSTANT_OPERAND_TABLE_OPS`); onnxruntime's QLinearSigmoid /
QLinearLeakyRelu (kept by onnx-to-quant on the storage integers, between `quant.scast`s) are
tables already: table[i] = the op's own result for input lo + i. The table is computed at
compile time by the ops' own numpy references (`evaluate`: the interpreter's numbers), so
the integer code is bit-exact to bitfold-run on every input by construction.

The integer form is a parallel `linalg.generic` whose body reads the table, an
`arith.constant` tensor of the result's storage integers, with `tensor.extract` at
`index_cast(ext(q) - lo)`. q's type must be uniform per tensor with at most
`MAX_TABLE_ENTRIES` stored values (16 bits); the result per tensor (uniform). A wider input (an
unrequantized i32 accumulator: Brevitas' QuantSigmoid after a QuantConv) is refused here, and
quant-to-integer leaves the activation float, a float island (docs/float-islands.md), unless
`integer-only` asks for the refusal.

Float storage (`!quant.uniform<f8E4M3FN:f32, s>`, 8 or 4 bits) in or out of a requantization
is a table the same way, indexed by the bit pattern (0 .. 2^N - 1, zero-extended):

    qcast(dcast(q)) : T_out  ->  table[q - lo],   table[i] = qcast(dcast(lo + i))

exact by construction, as the casts' references compute it: from float8 every one of the 256
codes (NaN codes included) maps to its integer or float8 result; into float8 from an integer
type of at most 16 bits, every stored value to its code (round to nearest even, saturating)."""

import numpy as np
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.onnx.contrib import QLinearLeakyReluOp, QLinearSigmoidOp
from bitfold.dialects.onnx.elementwise import (
    CeluOp,
    EluOp,
    ErfOp,
    ExpOp,
    GeluOp,
    HardSigmoidOp,
    HardSwishOp,
    LeakyReluOp,
    MishOp,
    ModOp,
    NegOp,
    PowOp,
    ReciprocalOp,
    SeluOp,
    SigmoidOp,
    SoftplusOp,
    SoftsignOp,
    SqrtOp,
    TanhOp,
    ThresholdedReluOp,
)
from bitfold.dialects.quant import (
    DequantizeCastOp,
    FloatQuantizedType,
    Granularity,
    QuantizeCastOp,
    StorageCastOp,
    UniformQuantizedType,
    element_type,
)
from bitfold.dialects.table_lookup import lookup_generic
from bitfold.passes.onnx_to_quant.parameters import constant_parameter
from bitfold.passes.onnx_to_quant.qdq import onnx_quantized_type
from bitfold.passes.quant_to_integer.dequantized import quantized
from bitfold.passes.quant_to_integer.operands import Quantized, fail, storage_value
from bitfold.passes.utils.linalg_building import empty, integer_constant

MAX_TABLE_ENTRIES = 1 << 16
"""The most stored input values a table may have (16-bit inputs: 64 K entries)."""

TABLE_OPS = (
    SigmoidOp, TanhOp, ExpOp, LeakyReluOp, HardSigmoidOp, HardSwishOp,
    EluOp, SeluOp, CeluOp, SoftplusOp, SoftsignOp, ThresholdedReluOp,
    ErfOp, GeluOp, MishOp, SqrtOp, ReciprocalOp, NegOp,
)  # fmt: skip
CONSTANT_OPERAND_TABLE_OPS = (PowOp, ModOp)
"""Binary ops that are a table when their second operand is one constant (module docstring)."""


def _constant_operand(op: Operation) -> np.ndarray | None:
    """The one-element constant second operand of a CONSTANT_OPERAND_TABLE_OPS op whose result
    has its first operand's shape, else None (the op stays float: a float island)."""
    constant = constant_array(op.operands[1])
    if constant is None or constant.size != 1 or op.results[0].type != op.operands[0].type:
        return None
    return constant


def table_input_values(op: Operation, qtype) -> np.ndarray:
    """Every stored value lo..hi of `qtype` (uniform per tensor, at most MAX_TABLE_ENTRIES)."""
    if not isinstance(qtype, UniformQuantizedType) or qtype.kind != Granularity.PER_TENSOR:
        raise fail(op, f"a table needs an input quantized per tensor (uniform), got {qtype}")
    low, high = qtype.value_range()
    if high - low + 1 > MAX_TABLE_ENTRIES:
        raise fail(op, f"a table of {high - low + 1} entries ({qtype}) is above {MAX_TABLE_ENTRIES}: not supported")
    return np.arange(low, high + 1).astype(numpy_dtype(qtype))


def table_constant(rewriter: PatternRewriter, stored: np.ndarray, storage: IntegerType) -> SSAValue:
    """The table's stored values as an `arith.constant` of `storage` (at least i8: the
    backend reads sub-byte tables as bytes)."""
    return integer_constant(rewriter, stored, IntegerType(max(8, storage.width.data)))


def apply_table(rewriter: PatternRewriter, source: Quantized, stored: np.ndarray, storage: IntegerType) -> SSAValue:
    """out = table[ext(q) - lo] over `source`'s storage integers, as `storage` integers
    (`stored[i]` the result for input lo + i; `bitfold.dialects.table_lookup`)."""
    table = table_constant(rewriter, stored, storage)
    low, _ = source.qtype.value_range()
    values = storage_value(rewriter, source)
    generic = lookup_generic(values, table, empty(rewriter, source.shape, storage), source.qtype.is_signed, int(low))
    rewriter.insert(generic)
    return generic.results[0]


def _single_qcast_user(op: Operation) -> QuantizeCastOp | None:
    users = [use.operation for use in op.results[0].uses]
    return users[0] if len(users) == 1 and isinstance(users[0], QuantizeCastOp) else None


class UnaryToTable(RewritePattern):
    """qcast(f(dcast(q))) -> table[q - lo] for f in TABLE_OPS, and f(dcast(q), c) for a
    CONSTANT_OPERAND_TABLE_OPS op with one constant c (module docstring)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, TABLE_OPS + CONSTANT_OPERAND_TABLE_OPS):
            return
        if not isinstance(dcast := op.operands[0].owner, DequantizeCastOp):
            return
        constants = []
        if isinstance(op, CONSTANT_OPERAND_TABLE_OPS):
            if (constant := _constant_operand(op)) is None:
                return
            constants = [constant.reshape(())]
        if (qcast := _single_qcast_user(op)) is None:
            raise fail(op, "a table activation needs a single qcast user")
        target = element_type(qcast.result.type)
        if not isinstance(target, UniformQuantizedType) or target.kind != Granularity.PER_TENSOR:
            raise fail(op, f"a table activation needs a result quantized per tensor (uniform), got {target}")
        source = Quantized(dcast.input, element_type(dcast.input.type), None)
        inputs = table_input_values(op, source.qtype)
        (real,) = dcast.evaluate([inputs])
        (activated,) = op.evaluate([real, *constants])
        (stored,) = qcast.evaluate([activated])
        values = apply_table(rewriter, source, stored.astype(np.int64), target.storage_integer_type())
        rewriter.replace(qcast, [], [quantized(rewriter, values, target)])
        rewriter.erase(op)


def float_storage_table_input(op: Operation, qtype) -> np.ndarray:
    """Every stored value of a per-tensor type a float-storage requantization reads: the bit
    patterns of float storage, the stored integers of a uniform type."""
    if isinstance(qtype, FloatQuantizedType) and qtype.kind == Granularity.PER_TENSOR:
        return np.arange(1 << qtype.storage_width).astype(numpy_dtype(qtype))
    return table_input_values(op, qtype)


class FloatStorageRequantToTable(RewritePattern):
    """qcast(dcast(q)) with float storage on either side -> table[q - lo] (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeCastOp, rewriter: PatternRewriter) -> None:
        if not isinstance(dcast := op.input.owner, DequantizeCastOp):
            return
        source_type, target = element_type(dcast.input.type), element_type(op.result.type)
        if not (isinstance(source_type, FloatQuantizedType) or isinstance(target, FloatQuantizedType)):
            return
        if getattr(target, "kind", None) != Granularity.PER_TENSOR or not isinstance(target, UniformQuantizedType | FloatQuantizedType):
            raise fail(op, f"a requantization table needs a result quantized per tensor, got {target}")
        source = Quantized(dcast.input, source_type, None)
        inputs = float_storage_table_input(op, source_type)
        with np.errstate(invalid="ignore"):  # NaN codes: qcast gives what the interpreter gives
            (real,) = dcast.evaluate([inputs])
            (stored,) = op.evaluate([real])
        values = apply_table(rewriter, source, stored.astype(np.int64), target.storage_integer_type())
        rewriter.replace(op, [], [quantized(rewriter, values, target)])


class QLinearUnaryToTable(RewritePattern):
    """QLinearSigmoid / QLinearLeakyRelu(scast(q)) -> scast(table[q - lo]) from the op's
    output quantization T_y (Y_scale, Y_zero_point) to Y's ONNX integer type, the table the
    op's own `evaluate` gives (module docstring); users that read Y as T_y fold the scasts."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QLinearSigmoidOp | QLinearLeakyReluOp, rewriter: PatternRewriter) -> None:
        if not isinstance(cast := op.x.owner, StorageCastOp):
            raise fail(op, "the input must be the storage integers of a quantized value")
        source = Quantized(cast.input, element_type(cast.input.type), None)
        inputs = table_input_values(op, source.qtype).astype(numpy_dtype(op.x.type.element_type))
        parameters = [constant_parameter(op, v, "parameter") for v in op.operands[1:]]
        (stored,) = op.evaluate([inputs, *parameters])
        target = onnx_quantized_type(op, op.y, op.y_scale, op.y_zero_point, source.qtype.expressed_type)
        values = apply_table(rewriter, source, stored.astype(np.int64), target.storage_integer_type())
        rewriter.replace(op, back := StorageCastOp(quantized(rewriter, values, target), op.y.type), [back.result])
