"""xDSL 0.74's pattern walkers fill their worklist with `Operation.walk`, a generator of nested
generators (`yield from` through an op, its regions and their blocks at every level): each op
of a loop nest d deep passes through about 3 d generator frames. Every walk of a pattern pass
starts so (and `canonicalize` and the conversions walk the module again until nothing changes):
an eighth of the RISC-V lowering's time on loop nests four to six deep.

`walk_order(root, reverse, region_first)` is the list of ops `root.walk(...)` yields (an op, a
block or a region: the same order, in one pass that appends each op once); nothing is changed
while a worklist is filled, so the list is what the generator would yield.
Within `listed_worklist_walk()`, `PatternRewriteWalker._populate_worklist` pushes that list
(`bitfold.backends.riscv.pipeline.lower_to_riscv` runs its passes so); xDSL's is back after."""

from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.ir import Block, Operation, Region
from xdsl.pattern_rewriter import PatternRewriteWalker

XDSL_POPULATE_WORKLIST = PatternRewriteWalker._populate_worklist  # pyright: ignore[reportPrivateUsage]
"""xDSL 0.74's: `for sub_op in op.walk(...): self._worklist.push(sub_op)`"""


def _region_order(region: Region, reverse: bool, region_first: bool, order: list[Operation]) -> None:
    for block in reversed(region.blocks) if reverse else region.blocks:
        _block_order(block, reverse, region_first, order)


def _block_order(block: Block, reverse: bool, region_first: bool, order: list[Operation]) -> None:
    for op in reversed(block.ops) if reverse else block.ops:
        if op.regions:
            _op_order(op, reverse, region_first, order)
        else:
            order.append(op)


def _op_order(op: Operation, reverse: bool, region_first: bool, order: list[Operation]) -> None:
    if not region_first:
        order.append(op)
    for region in reversed(op.regions) if reverse else op.regions:
        _region_order(region, reverse, region_first, order)
    if region_first:
        order.append(op)


def walk_order(root: Operation | Block | Region, reverse: bool = False, region_first: bool = False) -> list[Operation]:
    """The ops `root.walk(reverse=reverse, region_first=region_first)` yields, in that order."""
    order: list[Operation] = []
    if isinstance(root, Region):
        _region_order(root, reverse, region_first, order)
    elif isinstance(root, Block):
        _block_order(root, reverse, region_first, order)
    else:
        _op_order(root, reverse, region_first, order)
    return order


def _populate_worklist(self: PatternRewriteWalker, op: Operation | Region | Block) -> None:
    """xDSL's `_populate_worklist`: every nested op pushed, in reverse walk order (a stack)."""
    push = self._worklist.push  # pyright: ignore[reportPrivateUsage]
    for sub_op in walk_order(op, reverse=not self.walk_reverse, region_first=not self.walk_regions_first):
        push(sub_op)


@contextmanager
def listed_worklist_walk() -> Iterator[None]:
    """`_populate_worklist` in place of xDSL's within the block; whatever was installed before, after it."""
    installed = PatternRewriteWalker._populate_worklist  # pyright: ignore[reportPrivateUsage]
    PatternRewriteWalker._populate_worklist = _populate_worklist  # pyright: ignore[reportPrivateUsage]
    try:
        yield
    finally:
        PatternRewriteWalker._populate_worklist = installed  # pyright: ignore[reportPrivateUsage]
