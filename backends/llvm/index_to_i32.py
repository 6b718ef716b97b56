"""`bitfold-llvm-index-to-i32`: 32-bit loop counters for the RV32 vector targets.

Upstream's `convert-vector-to-llvm` has no `index-bitwidth` option (nor does it read a DLTI index
width): its memref descriptors hold 64-bit indices, so the whole lowering of a vector kernel uses
`index = i64` (`targets.LlvmTarget.index_bits`). On RV32 every loop counter is then a register pair
(an add with carry and a two-word compare per iteration) and LLVM does not narrow induction
variables. This pass, run on the bufferized IR before it goes to `mlir-opt-22`:

1. lowers the remaining `linalg.generic`s to `scf.for` nests (`backends/kernel/linalg_to_loops.py`,
   as `bitfold-riscv-linalg-to-loops` does),
2. rewrites every `scf.for` on `index` to one on `i32`:

       scf.for %i = %lb to %ub step %s : index       ->   scf.for %j = lb32 to ub32 step s32 : i32
         body(%i)                                           %i = arith.index_cast %j : i32 to index
                                                            body(%i)

Exact: every loop here runs from 0 (or a constant) below a static upper bound, a buffer's extent or a
product of extents, which this pass requires to be below 2^30; the step is a constant or the strip
length `16 * vscale` (at most 2^14 at RVV's largest VLEN). So `iv + step < 2^31`: the i32 counter,
its signed compare and the sign extension of `index_cast` back to the 64-bit `index` give the same
values as the `index` loop. The address arithmetic stays on `index`; LLVM truncates a GEP's indices to
RV32's 32-bit pointer index width, which narrows it.

3. gives every `vector.gather` / `vector.scatter` with `index` lane offsets i32 ones (`index_cast`):
   element offsets within one buffer, below 2^30 as its extent. LLVM then sees `stepvector * s` on
   32-bit lanes and emits a strided load or store (vlse32, vsse32) instead of an indexed one with a
   spilled 64-bit offset vector.
4. computes every `affine.apply` of sums and constant multiples (a buffer index) on i32 and
   sign-extends the result to `index` (`arith.index_cast`), its operands taken from the i32 loop
   counters they were cast from:

       %k = affine.apply (d0, d1) -> (d0 * 18 + d1 + 2) (%i, %j)
   ->  %k = arith.index_cast (%i32 * 18 + %j32 + 2 : i32) : i32 to index

   LLVM then indexes RV32's 32-bit pointers with 32-bit arithmetic and folds the constant terms of
   unrolled taps into the loads' immediates; on the 64-bit `index` it computes every tap's address
   in full (a 3x3 convolution's reduction step: 84 instructions against RV64's 60). Exact: the
   i32 arithmetic wraps modulo 2^32 like the low word of the `index` arithmetic, and the result, an
   index into a buffer below 2^31 elements (required), is the same after sign extension.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith, scf, vector
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp, VectorType, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from bitfold.backends.kernel.linalg_to_loops import lower_generics_to_loops
from bitfold.backends.llvm.input_error import LlvmInputError
from bitfold.backends.llvm.upstream_vector_ops import GatherOp, LlvmStepVectorOp, ScatterOp, StepOp

BOUND_LIMIT = 1 << 30
"""the largest static upper bound an i32 loop counter takes (module docstring: with a step below 2^30,
`iv + step` stays below 2^31)"""


def static_upper_bound(loop: scf.ForOp) -> int:
    owner = loop.ub.owner
    if not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, IntegerAttr):
        raise LlvmInputError("bitfold-llvm-index-to-i32: a loop's upper bound is not a constant")
    return owner.value.value.data


def narrowed(loop: scf.ForOp, rewriter: Rewriter) -> None:
    """`loop` on an i32 counter, its body reading the counter through `index_cast` (module docstring)."""
    bound = static_upper_bound(loop)
    if bound >= BOUND_LIMIT:
        raise LlvmInputError(f"bitfold-llvm-index-to-i32: a loop bound of {bound} needs a 64-bit counter")
    bounds = [arith.IndexCastOp(v, i32) for v in (loop.lb, loop.ub, loop.step)]
    for bound in bounds:
        rewriter.insert_op(bound, InsertPoint.before(loop))
    old = loop.body.block
    block = Block(arg_types=[i32, *(a.type for a in old.args[1:])])
    counter = arith.IndexCastOp(block.args[0], IndexType())
    block.add_op(counter)
    old.args[0].replace_all_uses_with(counter.result)
    for old_arg, new_arg in zip(old.args[1:], block.args[1:], strict=True):
        old_arg.replace_all_uses_with(new_arg)
    for op in list(old.ops):
        op.detach()
        block.add_op(op)
    new = scf.ForOp(*(b.result for b in bounds), loop.iter_args, Region(block))
    rewriter.replace_op(loop, new)


def narrowed_offsets(op: GatherOp | ScatterOp, rewriter: Rewriter) -> None:
    """`op`'s `index` lane offsets as i32 (module docstring); `step * broadcast(s)` (the strided lanes
    of `vector_contraction.strided_indices`) computed on i32 lanes, so LLVM sees the stride."""
    offsets = op.index_vec
    lanes = VectorType(i32, offsets.type.get_shape(), offsets.type.scalable_dims)
    product = offsets.owner
    factors = [o.owner for o in product.operands] if isinstance(product, arith.MuliOp) else []
    if len(factors) == 2 and isinstance(factors[0], StepOp) and isinstance(factors[1], vector.BroadcastOp):
        stride = arith.IndexCastOp(factors[1].source, i32)
        step = LlvmStepVectorOp(lanes)
        broadcast = vector.BroadcastOp(stride.result, lanes)
        narrow = [stride, step, broadcast, arith.MuliOp(step.result, broadcast.vector, lanes)]
    else:
        narrow = [arith.IndexCastOp(offsets, lanes)]
    for new in narrow:
        rewriter.insert_op(new, InsertPoint.before(op))
    op.operands = [*op.operands[:-3], narrow[-1].results[0], *op.operands[-2:]]


BUFFER_LIMIT = 1 << 31
"""the most elements of a buffer whose indices are computed on i32 (module docstring, 4)"""


def as_i32(value: SSAValue, before: Operation, rewriter: Rewriter) -> SSAValue:
    """`value` (an `index`) as an i32: the i32 it was cast from, or a cast."""
    owner = value.owner
    if isinstance(owner, arith.IndexCastOp) and owner.input.type == i32:
        return owner.input
    cast = arith.IndexCastOp(value, i32)
    rewriter.insert_op(cast, InsertPoint.before(before))
    return cast.result


def sums_and_products(expr: AffineExpr) -> bool:
    """Whether `expr` is built of dims and constants by + and * alone (no division, modulo or symbol)."""
    if isinstance(expr, AffineDimExpr | AffineConstantExpr):
        return True
    return (isinstance(expr, AffineBinaryOpExpr) and expr.kind in (AffineBinaryOpKind.Add, AffineBinaryOpKind.Mul)
            and sums_and_products(expr.lhs) and sums_and_products(expr.rhs))


def i32_expression(expr: AffineExpr, operands: list[SSAValue], before: Operation, rewriter: Rewriter) -> SSAValue:
    """`expr` (`sums_and_products`) on i32 `operands`, its ops inserted before `before`."""
    if isinstance(expr, AffineDimExpr):
        return operands[expr.position]
    if isinstance(expr, AffineConstantExpr):
        constant = arith.ConstantOp(IntegerAttr(expr.value, i32))
        rewriter.insert_op(constant, InsertPoint.before(before))
        return constant.result
    lhs, rhs = (i32_expression(e, operands, before, rewriter) for e in (expr.lhs, expr.rhs))
    op = arith.AddiOp(lhs, rhs) if expr.kind == AffineBinaryOpKind.Add else arith.MuliOp(lhs, rhs)
    rewriter.insert_op(op, InsertPoint.before(before))
    return op.result


def narrowed_apply(apply: affine.ApplyOp, rewriter: Rewriter) -> None:
    """`apply` on i32, sign-extended to `index` (module docstring, 4); left as it is (nothing added)
    when its map has a division, a modulo or a symbol."""
    (expr,) = apply.map.data.results
    if not sums_and_products(expr):
        return
    operands = [as_i32(o, apply, rewriter) for o in apply.mapOperands]
    value = i32_expression(expr, operands, apply, rewriter)
    rewriter.replace_op(apply, arith.IndexCastOp(value, IndexType()))


def check_buffer_sizes(module: ModuleOp) -> None:
    for op in module.walk():
        for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
            if isinstance(value.type, MemRefType) and value.type.element_count() >= BUFFER_LIMIT:
                raise LlvmInputError(f"bitfold-llvm-index-to-i32: a buffer of {value.type.element_count()} elements "
                                     "needs 64-bit indices")


@dataclass(frozen=True)
class BitfoldLlvmIndexToI32Pass(ModulePass):
    """Generics to loops, every `index` loop counter, lane offset and buffer index to i32 (module
    docstring)."""

    name = "bitfold-llvm-index-to-i32"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_generics_to_loops(op)
        rewriter = Rewriter()
        for loop in [o for o in op.walk() if isinstance(o, scf.ForOp) and isinstance(o.lb.type, IndexType)]:
            narrowed(loop, rewriter)
        for access in [o for o in op.walk() if isinstance(o, (GatherOp, ScatterOp))]:
            if isinstance(access.index_vec.type.element_type, IndexType):
                narrowed_offsets(access, rewriter)
        check_buffer_sizes(op)
        for apply in [o for o in op.walk() if isinstance(o, affine.ApplyOp)]:
            narrowed_apply(apply, rewriter)
