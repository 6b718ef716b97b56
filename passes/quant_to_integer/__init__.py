"""`quant-to-integer`: every region `dcast -> float op(s) -> qcast` of the canonical quant
form becomes integer arithmetic on storage integers (docs/integer-ir.md):

- `contraction`: Conv (groups, depthwise, strides, dilations, zero-point padding), Gemm,
  MatMul: i32 accumulation at scale s_x s_w (per output channel), zero points folded into
  constants, bias on the accumulator's grid; `activation_matmul`: MatMul of two dequantized
  activations, both zero points folded out by row and column sums; `binary_contraction` where x is bipolar
  (XNOR-popcount on packed words, or a sign-selected sum of uniform weights);
- `elementwise`: Relu, Clip, Add, Sub, Mul, Concat; `qcast(dcast(q))` -> `quant.requant`;
- `sign_thresholds`: a sign (bipolar qcast) after Mul/Div/Add/Sub by constants and
  BatchNormalization -> a compare against exact integer thresholds;
- `pooling`: MaxPool, AveragePool, GlobalAveragePool;
- `reductions`: ReduceMax, ReduceSum, ReduceMean;
- `tables`: unary activations (Sigmoid, Tanh, Exp, LeakyRelu, HardSigmoid, HardSwish, Elu,
  Selu, Celu, Softplus, Softsign, ThresholdedRelu, Erf, Gelu, Mish, Sqrt, Reciprocal, Neg,
  QLinearSigmoid, QLinearLeakyRelu) as
  lookup tables of the stored input;
- `softmax`: Softmax along any axis (exp table, integer sum and division; bounded error);
- `resize`: Resize linear / cubic with dyadic tap weights as exact i32 sums;
- shape-only ops on quantized values (left there by `canonicalize-quant`, whose sinking
  patterns run here first) stay as they are;
- `signless`: ONNX's `ui8` data between scasts sinks to quantized values or becomes `i8`;
- `batch_norm`: BatchNormalization folded into the contraction before it, else a per-channel
  integer affine;
- `integer_io`: integers the model itself takes or returns get their `quant.type`;
  optionally, the function takes and returns storage integers.

Each op lowered to integers leaves `dcast` of its integer result for its users, so regions
compose: the next op reads a dcast again, and the region's closing qcast becomes a requant.

An op that cannot become integer (a float operand that is no dcast, a table too large, an
accumulator that could overflow i32, ...) stays a float op: a *float island*
(docs/float-islands.md), whose quantized inputs enter through `quant.dcast` and whose
quantized results leave through `quant.qcast` (both lowered by lower-quant);
`onnx-float-to-linalg` then lowers it. With `integer-only` the pass instead fails on such an
op with one line naming it, and on the first float op left between the model's input
qcasts and output dcasts."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import AnyFloat, ModuleOp, TensorType
from xdsl.ir import Attribute, BlockArgument, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.transforms.dead_code_elimination import region_dce
from xdsl.utils.exceptions import PassFailedException

from bitfold.dialects.onnx.constant import ConstantOp
from bitfold.dialects.onnx.shape import ResizeOp
from bitfold.dialects.quant import DequantizeCastOp, QuantizeCastOp
from bitfold.passes.canonicalize_quant import quant_canonicalization_patterns
from bitfold.passes.quant_propagation.hoist_quantize import HOIST_QUANTIZE_PATTERNS
from bitfold.passes.quant_propagation.sink_dequantize import SINK_DEQUANTIZE_PATTERNS
from bitfold.passes.quant_to_integer.activation_matmul import ActivationMatMulToInteger
from bitfold.passes.quant_to_integer.batch_norm import BatchNormToInteger
from bitfold.passes.quant_to_integer.binary_contraction import (
    BinaryConvToInteger,
    BinaryGemmToInteger,
    BinaryMatMulToInteger,
)
from bitfold.passes.quant_to_integer.contraction import ConvToInteger, GemmToInteger, MatMulToInteger
from bitfold.passes.quant_to_integer.elementwise import (
    AddSubToInteger,
    ClipToInteger,
    ConcatToInteger,
    MulToInteger,
    ReluToInteger,
    RequantizeDequantized,
)
from bitfold.passes.quant_to_integer.integer_io import record_integer_io, use_integer_io
from bitfold.passes.quant_to_integer.operands import fail
from bitfold.passes.quant_to_integer.pooling import AveragePoolToInteger, GlobalAveragePoolToInteger, MaxPoolToInteger
from bitfold.passes.quant_to_integer.reductions import ReduceToInteger
from bitfold.passes.quant_to_integer.resize import ResizeToInteger
from bitfold.passes.quant_to_integer.sign_thresholds import SignAfterAffineToThreshold
from bitfold.passes.quant_to_integer.signless import SinkStorageCast, make_storage_signless
from bitfold.passes.quant_to_integer.softmax import SoftmaxToInteger
from bitfold.passes.quant_to_integer.tables import FloatStorageRequantToTable, QLinearUnaryToTable, UnaryToTable
from bitfold.passes.utils.onnx_cleanup import EraseUnusedOnnxOp

INTEGER_PATTERNS = (
    SignAfterAffineToThreshold(),
    BinaryConvToInteger(),
    BinaryGemmToInteger(),
    BinaryMatMulToInteger(),
    ConvToInteger(),
    GemmToInteger(),
    MatMulToInteger(),
    ActivationMatMulToInteger(),
    AddSubToInteger(),
    MulToInteger(),
    ReluToInteger(),
    ClipToInteger(),
    ConcatToInteger(),
    MaxPoolToInteger(),
    AveragePoolToInteger(),
    GlobalAveragePoolToInteger(),
    ReduceToInteger(),
    RequantizeDequantized(),
    UnaryToTable(),
    QLinearUnaryToTable(),
    FloatStorageRequantToTable(),
    SoftmaxToInteger(),
    BatchNormToInteger(),
    ResizeToInteger(),
)


def _is_float(value_type: Attribute) -> bool:
    element = value_type.element_type if isinstance(value_type, TensorType) else value_type
    return isinstance(element, AnyFloat)


def _allowed_float(op: Operation) -> bool:
    """The float ops that stay: input qcasts of arguments, dcasts that only feed returns, and
    constants read only as parameters of data movement (a nearest Resize's `scales`)."""
    if isinstance(op, ConstantOp):
        return all(isinstance(use.operation, ResizeOp) and use.index > 0 for use in op.results[0].uses)
    if isinstance(op, QuantizeCastOp):
        return isinstance(op.input, BlockArgument)
    if isinstance(op, DequantizeCastOp):
        return all(isinstance(use.operation, func.ReturnOp) for use in op.result.uses)
    return isinstance(op, (func.FuncOp, func.ReturnOp))


def check_integer(module: ModuleOp) -> None:
    """Fail on the first float op between the input qcasts and the output dcasts."""
    for op in module.walk():
        if isinstance(op, ModuleOp) or _allowed_float(op):
            continue
        operands = [op.x] if isinstance(op, ResizeOp) else op.operands  # float scales are parameters
        if any(_is_float(v.type) for v in (*operands, *op.results)):
            culprit = next((u.operation for r in op.results for u in r.uses), op) if isinstance(op, DequantizeCastOp) else op
            raise fail(culprit, "no integer form for this op here (float computation would remain)")


class IntegerOrIsland(RewritePattern):
    """An integer pattern whose refusal leaves the op float (an island) instead of failing the
    pass. The refused op is remembered and not tried again; ops a refused attempt inserted
    have no users and go with the walk's dead code elimination."""

    def __init__(self, pattern: RewritePattern):
        self.pattern = pattern
        self.islands: set[Operation] = set()

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op in self.islands:
            return
        try:
            self.pattern.match_and_rewrite(op, rewriter)
        except PassFailedException:
            self.islands.add(op)


@dataclass(frozen=True)
class QuantToIntegerPass(ModulePass):
    """Rewrite every quantized region to integer arithmetic (module docstring). Numbers: bit
    for bit the integer semantics of `quant.requant` and the integer ops; against the float
    reference, the only differences are the float reference's own roundings (of products,
    sums and averages to float before its qcast) and a float bias rounded onto the
    accumulator's grid (|error| <= half an accumulator step).

    `integer-io`: the function takes and returns the storage integers of its input and output
    types (each argument / result attribute records the type under `quant.type`).
    `integer-only`: fail on the first op that would stay float instead of leaving a float
    island."""

    name = "quant-to-integer"

    integer_io: bool = False
    integer_only: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = GreedyRewritePatternApplier(
            [
                *quant_canonicalization_patterns(),
                *SINK_DEQUANTIZE_PATTERNS,
                *HOIST_QUANTIZE_PATTERNS,
                SinkStorageCast(),
                *(INTEGER_PATTERNS if self.integer_only else (IntegerOrIsland(p) for p in INTEGER_PATTERNS)),
                EraseUnusedOnnxOp(),
            ]
        )
        record_integer_io(op)
        PatternRewriteWalker(patterns, post_walk_func=region_dce).rewrite_module(op)
        if self.integer_only:
            check_integer(op)
        make_storage_signless(op)
        if self.integer_io:
            use_integer_io(op)
