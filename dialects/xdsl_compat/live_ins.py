"""xDSL 0.74's `live_ins_per_block` (`xdsl.backend.register_allocator`) keeps each block's live-in
values in an `OrderedSet`, whose `difference_update` rebuilds the whole set: at every op of a block,
walking back, so a loop body of n ops costs n times its live values (a fifth of the register
allocation's time on register-tiled nests). `live_ins_per_block` here keeps them in a dict (an
ordered set whose removal is one step): the same values in the same order, block by block."""

from xdsl.ir import Block, SSAValue


def _live_ins(block: Block, found: dict[Block, dict[SSAValue, None]]) -> dict[SSAValue, None]:
    live: dict[SSAValue, None] = {}
    for op in reversed(block.ops):
        for result in op.results:
            live.pop(result, None)
        live.update(dict.fromkeys(op.operands))
        for region in op.regions:
            for inner in region.blocks:
                live.update(_live_ins(inner, found))
    for argument in block.args:
        live.pop(argument, None)
    found[block] = live
    return live


def live_ins_per_block(block: Block) -> dict[Block, dict[SSAValue, None]]:
    """Per block (`block` and every block nested in it), the values used in it but defined outside
    it, in the order xDSL's `live_ins_per_block` gives them (keys of a dict)."""
    found: dict[Block, dict[SSAValue, None]] = {}
    _live_ins(block, found)
    return found
