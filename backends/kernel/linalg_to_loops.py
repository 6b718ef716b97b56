"""`linalg.generic` on memrefs to `scf.for` nests, keeping each reduction's accumulator in a
register: `lower_generics_to_loops`, which both code generators run on the kernel form
(`bitfold-riscv-linalg-to-loops`, and `bitfold-llvm-index-to-i32` before it narrows the loops).

xDSL's `convert-linalg-to-loops` (0.74) lowers every generic to one perfect loop nest that
loads the output element, applies the body and stores it back in the innermost loop: correct
for reduction iterators and `linalg.index`, but a k-long reduction then does k loads and k
stores of the same output element. This pattern emits, for a generic whose iterators are
parallel dimensions followed by reduction dimensions and whose output maps use parallel
dimensions only (every generic `quant-to-integer` and `onnx-data-movement-to-linalg` build),

    for parallel dims:           acc = load out[...]        (only if the body reads it)
        for reduction dims:      iter_args(acc): loads of the inputs, the body, yield
        store out[...]

and leaves every other generic to xDSL's pattern, which the pass then applies
(`tests/backends/riscv/test_codegen_shims.py` shows the per-iteration load and store).
"""

from collections.abc import Sequence

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, ModuleOp
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Region, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.transforms.convert_linalg_to_loops import LowerLinalgStructuredOpPattern
from xdsl.transforms.loop_nest_lowering_utils import indices_for_map
from xdsl.utils.exceptions import PassFailedException


def split_parallel_reduction(op: linalg.GenericOp) -> int | None:
    """The number of leading parallel dimensions when the iterators are parallel dimensions
    then reduction dimensions and the output maps read parallel dimensions only; else None."""
    kinds = [it.data for it in op.iterator_types]
    n_parallel = next((i for i, k in enumerate(kinds) if k != linalg.IteratorType.PARALLEL), len(kinds))
    if any(k != linalg.IteratorType.REDUCTION for k in kinds[n_parallel:]):
        return None
    maps = op.get_indexing_maps().data
    for output_map in maps[len(op.inputs) :]:
        if any(d >= n_parallel for expr in output_map.data.results for d in expr.used_dims()):
            return None
    return n_parallel


def loop_bounds(op: linalg.GenericOp) -> list[int]:
    """Static loop bounds of a generic on statically shaped memrefs."""
    bounds = op.get_static_loop_ranges()
    if any(not isinstance(b, int) or b < 0 for b in bounds):
        raise PassFailedException("linalg.generic to loops: dynamic loop bounds are not supported")
    return list(bounds)


class LowerGenericAccumulatingInRegisters(RewritePattern):
    """Parallel loops outside, reduction loops inside carrying the outputs as iter_args."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: linalg.GenericOp, rewriter: PatternRewriter) -> None:
        if op.res or any(not isinstance(v.type, MemRefType) for v in op.outputs):
            return
        n_parallel = split_parallel_reduction(op)
        if n_parallel is None:
            return
        bounds = loop_bounds(op)
        maps = [m.data for m in op.get_indexing_maps().data]
        n_inputs = len(op.inputs)
        block = op.body.block
        index = IndexType()

        def constant(value: int) -> SSAValue:
            c = arith.ConstantOp(IntegerAttr(value, index))
            rewriter.insert(c, InsertPoint.before(op))
            return c.result

        zero, one = constant(0), constant(1)
        upper = [constant(b) for b in bounds]

        ivs: list[SSAValue] = []
        point = InsertPoint.before(op)
        for d in range(n_parallel):
            loop = scf.ForOp(zero, upper[d], one, (), Region(Block(arg_types=(index,))))
            rewriter.insert(loop, point)
            ivs.append(loop.body.block.args[0])
            point = InsertPoint.at_start(loop.body.block)
            rewriter.insert(scf.YieldOp(), point)
            point = InsertPoint.before(loop.body.block.last_op)

        def load(operand_index: int, at: InsertPoint, induction: Sequence[SSAValue]) -> SSAValue:
            indices = indices_for_map(rewriter, at, maps[operand_index], induction)
            value = memref.LoadOp.get(op.operands[operand_index], indices)
            rewriter.insert(value, at)
            return value.res

        # accumulators: the outputs the body reads, loaded once per output element
        output_args = block.args[n_inputs:]
        accumulators = [load(n_inputs + k, point, ivs) if a.uses else None for k, a in enumerate(output_args)]
        carried = [a for a in accumulators if a is not None]
        outer_point = point

        iter_types = [a.type for a in carried]
        reduction_loops: list[scf.ForOp] = []
        carried_args: Sequence[SSAValue] = carried
        for d in range(n_parallel, len(bounds)):
            loop = scf.ForOp(zero, upper[d], one, carried_args, Region(Block(arg_types=(index, *iter_types))))
            rewriter.insert(loop, point)
            if reduction_loops:
                rewriter.insert(scf.YieldOp(*loop.results), InsertPoint.after(loop))
            reduction_loops.append(loop)
            ivs.append(loop.body.block.args[0])
            carried_args = loop.body.block.args[1:]
            point = InsertPoint.at_start(loop.body.block)

        # the body, with block arguments replaced by loads and carried accumulators
        for i, arg in enumerate(block.args[:n_inputs]):
            if arg.uses:
                arg.replace_all_uses_with(load(i, point, ivs))
        carried_iter = iter(carried_args)
        for arg, acc in zip(output_args, accumulators):
            if acc is not None:
                arg.replace_all_uses_with(next(carried_iter))
        yield_op = block.last_op
        assert isinstance(yield_op, linalg.YieldOp)
        yielded = list(yield_op.operands)
        rewriter.erase(yield_op)
        for index_op in [o for o in block.ops if isinstance(o, linalg.IndexOp)]:
            rewriter.replace(index_op, (), [ivs[index_op.dim.value.data]])
        while block.args:
            rewriter.erase_block_argument(block.args[0])
        rewriter.inline_block(block, point)

        if reduction_loops:
            kept = [v for v, acc in zip(yielded, accumulators) if acc is not None]
            rewriter.insert(scf.YieldOp(*kept), point)
            results = iter(reduction_loops[0].results)
            finals = [next(results) if acc is not None else v for v, acc in zip(yielded, accumulators)]
            store_point = outer_point
        else:
            finals = yielded
            store_point = point
        for k, value in enumerate(finals):
            destination = op.outputs[k]
            indices = indices_for_map(rewriter, store_point, maps[n_inputs + k], ivs[:n_parallel])
            rewriter.insert(memref.StoreOp.get(value, destination, indices), store_point)
        rewriter.erase(op)


def lower_generics_to_loops(module: ModuleOp) -> None:
    """Every `linalg.generic` on memrefs of `module` as `scf.for` loops: accumulators in registers
    where the iterators allow it (`LowerGenericAccumulatingInRegisters`), xDSL's perfect nest
    otherwise."""
    PatternRewriteWalker(
        GreedyRewritePatternApplier([LowerGenericAccumulatingInRegisters(), LowerLinalgStructuredOpPattern()]),
        apply_recursively=False,
    ).rewrite_module(module)
