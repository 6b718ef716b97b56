"""xDSL 0.74's `region_dce` (the dead code elimination `canonicalize` runs after each walk) asks
`would_be_trivially_dead` of every op again in each round of its fixpoint, and each answer for an
op with regions walks every op nested in it (`RecursiveMemoryEffect`): O(rounds x ops x depth),
a fifth of the RISC-V lowering's time on loop nests four to six deep.

`region_dce(region, listener)` here removes exactly the ops xDSL's removes, in the same order and
with the same listener calls (it is `LiveSet.delete_dead` on the same live set), but computes the
live set in one pass: the effects of every op once, bottom-up, then the least fixpoint of xDSL's
rule (an op is live if it would not be trivially dead, or if a live op uses one of its results)
as a closure over operands. Like xDSL's, it visits only the blocks reachable from each region's
entry. `bitfold-riscv-canonicalize` (backends/riscv/lowering/canonicalize.py) is xDSL's
`canonicalize` with this `region_dce`."""

from collections.abc import Iterator
from collections.abc import Set as AbstractSet

from xdsl.ir import Operation, OpResult, Region, SSAValue
from xdsl.ir.post_order import PostOrderIterator
from xdsl.pattern_rewriter import PatternRewriterListener
from xdsl.traits import (
    EffectInstance,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    RecursiveMemoryEffect,
    SymbolOpInterface,
)
from xdsl.transforms.dead_code_elimination import LiveSet

Effects = AbstractSet[EffectInstance] | None
"""xDSL's `get_effects` answer: None is unknown effects"""


def _reachable_ops(region: Region) -> Iterator[Operation]:
    """The ops `LiveSet.propagate_region_liveness` visits: those of the blocks reachable from
    the entry, and, nested, of their regions' reachable blocks."""
    first = region.first_block
    if first is None:
        return
    for block in PostOrderIterator(first):
        for op in block.ops:
            for nested in op.regions:
                yield from _reachable_ops(nested)
            yield op


class _ClassTraits:
    """The traits dead code elimination asks about, looked up once per op class (traits are
    class attributes; `OpTraits.add_trait` adds to them only while dialects are set up, so an
    instance lives for one elimination or one pass pipeline, never for the process)."""

    def __init__(self):
        self._class: dict[type[Operation], tuple[bool, list[MemoryEffect]]] = {}
        """per op class: whether a terminator or symbol, and its memory effect traits"""

    def _traits(self, op: Operation) -> tuple[bool, list[MemoryEffect]]:
        known = self._class.get(kind := type(op))
        if known is None:
            kept = op.has_trait(IsTerminator, value_if_unregistered=False) or op.has_trait(
                SymbolOpInterface, value_if_unregistered=False
            )
            known = self._class[kind] = (kept, op.get_traits_of_type(MemoryEffect))
        return known


class TriviallyDead(_ClassTraits):
    """`xdsl.transforms.dead_code_elimination.is_trivially_dead(op)`: the same answer, with each op class's traits looked up once, and the effects of the ops nested in a
    `RecursiveMemoryEffect` op looked at only until one is observable (a write, an unknown
    effect, an allocation of a value defined outside `op`: xDSL's `result_only_effects` is then
    False whatever the others are) rather than all of them gathered into a set."""

    def is_trivially_dead(self, op: Operation) -> bool:
        for result in op.results:
            if result.first_use is not None:
                return False
        return not self._traits(op)[0] and self._only_result_effects(op, op)

    def _only_result_effects(self, op: Operation, root: Operation) -> bool:
        """Whether every effect `op` has (its nested ops' too, where recursive) is a read or an
        allocation of a value defined within `root` (xDSL's `result_only_effects(root)` rule)."""
        traits = self._traits(op)[1]
        if not traits:
            return False  # unknown effects
        for trait in traits:
            if type(trait) is RecursiveMemoryEffect:
                for region in op.regions:
                    for block in region.blocks:
                        for child in block.ops:
                            if not self._only_result_effects(child, root):
                                return False
                continue
            effects = trait.get_effects(op)
            if effects is None:
                return False
            for e in effects:
                if not (e.kind == MemoryEffectKind.READ or (
                    e.kind == MemoryEffectKind.ALLOC and isinstance(v := e.value, SSAValue)
                    and root.is_ancestor(v.owner)
                )):
                    return False
        return True


class _Effects(_ClassTraits):
    """`xdsl.traits.get_effects` of ops, each op's computed once (a `RecursiveMemoryEffect`
    op's from its children's, remembered)."""

    def __init__(self):
        super().__init__()
        self._of: dict[Operation, Effects] = {}

    def of(self, op: Operation) -> Effects:
        if op in self._of:
            return self._of[op]
        traits = self._traits(op)[1]
        effects: Effects = None
        if traits:
            effects = set()
            for trait in traits:
                found = self._recursive(op) if type(trait) is RecursiveMemoryEffect else trait.get_effects(op)
                if found is None:
                    effects = None
                    break
                effects.update(found)
        self._of[op] = effects
        return effects

    def _recursive(self, op: Operation) -> Effects:
        effects = set()
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    found = self.of(child)
                    if found is None:
                        return None
                    effects.update(found)
        return effects

    def would_be_trivially_dead(self, op: Operation) -> bool:
        """`xdsl.transforms.dead_code_elimination.would_be_trivially_dead`."""
        if self._traits(op)[0]:
            return False
        effects = self.of(op)
        return effects is not None and all(
            e.kind == MemoryEffectKind.READ
            or (e.kind == MemoryEffectKind.ALLOC and isinstance(v := e.value, SSAValue) and op.is_ancestor(v.owner))
            for e in effects
        )


def live_set(region: Region) -> LiveSet:
    """The ops of `region` xDSL's `region_dce` keeps (its fixpoint, computed as a closure)."""
    effects = _Effects()
    visited = set(_reachable_ops(region))
    live = LiveSet()
    pending = [op for op in visited if not effects.would_be_trivially_dead(op)]
    live._live_ops.update(pending)
    while pending:
        for value in pending.pop().operands:
            if isinstance(value, OpResult) and (owner := value.op) in visited and not live.is_live(owner):
                live._live_ops.add(owner)
                pending.append(owner)
    return live


def region_dce(region: Region, listener: PatternRewriterListener | None = None) -> bool:
    """xDSL's `region_dce`: erase the dead ops of `region`; True if any was erased."""
    live = live_set(region)
    live.changed = False
    live.delete_dead(region, listener)
    return live.changed
