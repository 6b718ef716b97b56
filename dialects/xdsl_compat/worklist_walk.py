"""xDSL 0.74's pattern walkers fill their worklist with `Operation.walk`, a generator of nested
generators (`yield from` through an op, its regions and their blocks at every level): each op
of a loop nest d deep passes through about 3 d generator frames. Every walk of a pattern pass
starts so (and `canonicalize` and the conversions walk the module again until nothing changes):
an eighth of the RISC-V lowering's time on loop nests four to six deep.

`walk_order(root, reverse, region_first)` is the list of ops `root.walk(...)` yields (an op, a
block or a region: the same order, in one pass that appends each op once); nothing is changed
while a worklist is filled, so the list is what the generator would yield.
Within `listed_worklist_walk()`, `PatternRewriteWalker._populate_worklist` fills the walker's
worklist with that list (`bitfold.backends.riscv.pipeline.lower_to_riscv` runs its passes so);
xDSL's is back after.

The worklist it fills is an `IdentityWorklist`: xDSL's `Worklist` (the same stack, the same order,
the same pushes, pops and removals) with its index keyed by `id(op)` rather than by the op: an
IRDL op hashes through a Python `__hash__` (`id(self)`), one Python call for each of the 2 to 3
dictionary lookups every op costs a walk (about 7 % of compiling EfficientNet-B0 for rv32im).
An id is unique among the ops in the index: each of them is also held by the stack."""

from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.ir import Block, Operation, Region
from xdsl.pattern_rewriter import PatternRewriteWalker
from xdsl.utils.worklist import _MISSING, Worklist  # pyright: ignore[reportPrivateUsage]

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


class IdentityWorklist(Worklist[Operation]):
    """xDSL's `Worklist` of ops, its index (`_map`) keyed by `id(op)` (module docstring)."""

    def push(self, item: Operation) -> None:
        key = id(item)
        if key not in self._map:
            self._map[key] = len(self._stack)
            self._stack.append(item)

    def pop(self) -> Operation:
        stack = self._stack
        try:
            while (item := stack.pop()) is _MISSING:
                pass
        except IndexError:
            raise IndexError("pop from empty worklist") from None
        del self._map[id(item)]
        return item

    def remove(self, item: Operation) -> None:
        index = self._map.pop(id(item), None)
        if index is not None:
            self._stack[index] = _MISSING

    def push_all(self, ops: list[Operation]) -> None:
        """`push` of each of `ops` in order."""
        stack, index = self._stack, self._map
        for op in ops:
            key = id(op)
            if key not in index:
                index[key] = len(stack)
                stack.append(op)


def _populate_worklist(self: PatternRewriteWalker, op: Operation | Region | Block) -> None:
    """xDSL's `_populate_worklist`: every nested op pushed, in reverse walk order (a stack), onto
    an `IdentityWorklist` (the walker's own first replaced by one holding the same ops)."""
    worklist = self._worklist  # pyright: ignore[reportPrivateUsage]
    if type(worklist) is not IdentityWorklist:
        replacement = IdentityWorklist()
        replacement.push_all([item for item in worklist._stack if item is not _MISSING])  # pyright: ignore
        worklist = self._worklist = replacement  # pyright: ignore[reportPrivateUsage]
    worklist.push_all(walk_order(op, reverse=not self.walk_reverse, region_first=not self.walk_regions_first))


@contextmanager
def listed_worklist_walk() -> Iterator[None]:
    """`_populate_worklist` in place of xDSL's within the block; whatever was installed before, after it."""
    installed = PatternRewriteWalker._populate_worklist  # pyright: ignore[reportPrivateUsage]
    PatternRewriteWalker._populate_worklist = _populate_worklist  # pyright: ignore[reportPrivateUsage]
    try:
        yield
    finally:
        PatternRewriteWalker._populate_worklist = installed  # pyright: ignore[reportPrivateUsage]
