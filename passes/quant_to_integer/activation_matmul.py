"""MatMul of two dequantized activations (attention's Q.K^T and P.V) becomes an integer
contraction with both zero points folded out of the sum:

    y[.., i, j] = s_a s_b sum_k (a[.., i, k] - za)(b[.., k, j] - zb) = S acc[.., i, j],  S = s_a s_b

    acc = sum_k a b  -  zb rowsum_a[.., i]  -  za colsum_b[.., j]  +  K za zb

    rowsum_a[.., i] = sum_k a[.., i, k]   (a generic of its own, only where zb != 0)
    colsum_b[.., j] = sum_k b[.., k, j]   (only where za != 0)

so the inner loop is one multiply-accumulate of the stored integers, and each row and column
sum is computed once, not once per output. Exact: every term is an integer, the arithmetic is
i32, and acc = sum (a - za)(b - zb) whose bound K max|a - za| max|b - zb| must fit i32 (else the
pass refuses, one line; intermediate sums wrap in i32 and the exact final value comes back).

Both operands per tensor; A (..., M, K) and B (..., K, N) of the same rank, batch dimensions
broadcasting as ONNX (a size-1 dimension read at index 0), or a 2-D B."""

import numpy as np
from xdsl.dialects import arith
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from bitfold.dialects.onnx.nn import MatMulOp
from bitfold.passes.quant_to_integer.contraction import finish_contraction
from bitfold.passes.quant_to_integer.operands import (
    Quantized,
    check_i32,
    fail,
    per_tensor,
    quantized_operand,
    storage_value,
    widened,
)
from bitfold.passes.utils.linalg_building import I32, affine_map, build_generic, empty, filled


def _batch_reads(shape: tuple[int, ...], out_batch: tuple[int, ...], dims: list[AffineExpr]) -> list[AffineExpr]:
    """An operand's batch indices (right-aligned to the output's): a broadcast size-1 dim reads 0."""
    batch = shape[:-2]
    offset = len(out_batch) - len(batch)
    return [
        AffineConstantExpr(0) if n == 1 and out_batch[offset + d] != 1 else dims[offset + d]
        for d, n in enumerate(batch)
    ]


def _widest(qtype) -> int:
    low, high = qtype.value_range()
    return max(abs(low - qtype.zero_point), abs(high - qtype.zero_point))


class ActivationMatMulToInteger(RewritePattern):
    """onnx.MatMul of two dequantized, non-constant operands -> integer contraction (module
    docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MatMulOp, rewriter: PatternRewriter) -> None:
        a, b = quantized_operand(op, op.a), quantized_operand(op, op.b)
        if b.stored is None and a.stored is None:
            self._rewrite(op, a, b, rewriter)

    def _rewrite(self, op: MatMulOp, a: Quantized, b: Quantized, rewriter: PatternRewriter) -> None:
        a_type, b_type = per_tensor(op, a, "input A"), per_tensor(op, b, "input B")
        out_shape = tuple(op.y.type.get_shape())
        if (
            len(a.shape) < 2
            or len(b.shape) < 2
            or len(b.shape) not in (2, len(a.shape))
            or len(out_shape) != len(a.shape)
        ):
            raise fail(op, "only (..., M, K) @ (..., K, N) of the same rank, or a 2-D B, is supported")
        k_size = a.shape[-1]
        bound = k_size * _widest(a_type) * _widest(b_type)
        check_i32(op, bound, "the accumulator")
        batch = len(out_shape) - 2
        rank = batch + 3
        dims = [AffineDimExpr(d) for d in range(rank)]
        i, j, k = dims[batch], dims[batch + 1], dims[batch + 2]
        a_read = [*_batch_reads(a.shape, out_shape[:-2], dims), i, k]
        b_read = [*_batch_reads(b.shape, out_shape[:-2], dims), k, j]
        out_read = [*dims[:batch], i, j]
        a_storage, b_storage = storage_value(rewriter, a), storage_value(rewriter, b)

        def multiply_accumulate(body) -> SSAValue:
            product = body.emit(
                arith.MuliOp(widened(body, body.values["in0"], a_type), widened(body, body.values["in1"], b_type))
            )
            return body.emit(arith.AddiOp(body.values["output"], product))

        init = filled(rewriter, np.array(a_type.zero_point * b_type.zero_point * k_size), [], out_shape, I32)
        acc = build_generic(
            rewriter,
            [(a_storage, affine_map(rank, a_read)), (b_storage, affine_map(rank, b_read))],
            (init, affine_map(rank, out_read)),
            [rank - 1],
            multiply_accumulate,
        )
        if b_type.zero_point:  # - zb rowsum_a[.., i]
            sums = self._sums(rewriter, a_storage, a.shape, a_type, out_shape, rows=True)
            acc = self._subtract(rewriter, acc, sums, b_type.zero_point, out_shape, batch)
        if a_type.zero_point:  # - za colsum_b[.., j]
            sums = self._sums(rewriter, b_storage, b.shape, b_type, out_shape, rows=False)
            acc = self._subtract(rewriter, acc, sums, a_type.zero_point, out_shape, batch + 1)
        finish_contraction(rewriter, op, (acc, bound), np.array([a_type.scale * b_type.scale]), None, None)

    @staticmethod
    def _sums(rewriter, storage, shape, qtype, out_shape, rows: bool) -> SSAValue:
        """sum_k of the stored operand per (batch.., m): A's rows (m = i) or B's columns (m = j),
        over loops (batch.., m | k)."""
        batch = len(out_shape) - 2
        rank = batch + 2
        dims = [AffineDimExpr(d) for d in range(rank)]
        m, k = dims[batch], dims[batch + 1]
        read = [*_batch_reads(shape, out_shape[:-2], dims), *((m, k) if rows else (k, m))]
        kept_shape = [*out_shape[:batch], out_shape[batch if rows else batch + 1]]
        init = filled(rewriter, np.array(0), [], kept_shape, I32)
        return build_generic(
            rewriter,
            [(storage, affine_map(rank, read))],
            (init, affine_map(rank, dims[:-1])),
            [rank - 1],
            lambda body: body.emit(arith.AddiOp(body.values["output"], widened(body, body.values["in0"], qtype))),
        )

    @staticmethod
    def _subtract(rewriter, acc, sums, factor: int, out_shape, dim: int) -> SSAValue:
        """acc - factor * sums over the output, sums indexed by the batch dims and `dim` (i or j)."""
        rank = len(out_shape)
        dims = [AffineDimExpr(d) for d in range(rank)]
        identity = affine_map(rank, dims)

        def subtract(body) -> SSAValue:
            scaled = body.emit(arith.MuliOp(body.values["in1"], body.constant(factor, I32)))
            return body.emit(arith.SubiOp(body.values["in0"], scaled))

        return build_generic(
            rewriter,
            [(acc, identity), (sums, affine_map(rank, [*dims[: rank - 2], dims[dim]]))],
            (empty(rewriter, out_shape, I32), identity),
            [],
            subtract,
        )
