"""xDSL 0.74's `GreedyRewritePatternApplier` calls every one of its patterns on every op it visits
until one rewrites: `convert-arith-to-riscv` asks each of the ~40 ops a loop body lowers into
(and each cast and riscv op it creates) 40 `isinstance` questions through 40 Python calls, of
which at most one can match.

`matching_patterns(applier, op_type)` is the applier's patterns that may match ops of that type,
in their order: a pattern is left out only where it is known to do nothing on such an op: its
`match_and_rewrite` is xDSL's `op_type_rewrite_pattern` wrapper (it returns unless
`isinstance(op, expected_type)`), or it is one of xDSL's `LowerBinaryIntegerOp` /
`LowerBinaryFloatOp` (they return unless `isinstance(op, self.arith_op_cls)`); any other
pattern is always kept. Within `dispatched_pattern_application()`, an applier of at least
`DISPATCH_MIN_PATTERNS` patterns tries those only (asked once per applier and op type). The
folding and dead-op erasure before them are xDSL's, asked faster: whether an op class folds
(`HasFolder`, not `ConstantLike`) once per class, and xDSL's `is_trivially_dead` as
`dead_code.TriviallyDead` (its trait questions once per class; a loop's nested effects looked at
only until one is observable: xDSL gathers all of them on every visit of every loop, O(depth x
ops) a walk). The same patterns rewrite the same ops in the same order: the IR is the one
xDSL's applier makes."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from types import UnionType
from typing import Union, get_args, get_origin
from weakref import WeakKeyDictionary

from xdsl.backend.riscv.lowering.convert_arith_to_riscv import LowerBinaryFloatOp, LowerBinaryIntegerOp
from xdsl.folder import Folder
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import ConstantLike, HasFolder

from bitfold.dialects.xdsl_compat.dead_code import TriviallyDead


def _probe(self: RewritePattern, op: Operation, rewriter: PatternRewriter) -> None:
    """A function `op_type_rewrite_pattern` wraps, to find its wrapper's code."""


OP_TYPE_WRAPPER = op_type_rewrite_pattern(_probe).__code__
"""the code of every `op_type_rewrite_pattern` wrapper (its closure holds `expected_type`)"""


def matched_types(pattern: RewritePattern) -> tuple[type[Operation], ...] | None:
    """The op types outside of which `pattern` does nothing (module docstring), None if unknown."""
    if isinstance(pattern, LowerBinaryIntegerOp | LowerBinaryFloatOp):
        return (pattern.arith_op_cls,)
    return _wrapped_types(type(pattern).match_and_rewrite)


@cache
def _wrapped_types(method: Callable[..., None]) -> tuple[type[Operation], ...] | None:
    """The `expected_type` of an `op_type_rewrite_pattern` wrapper, None for any other method."""
    if getattr(method, "__code__", None) is not OP_TYPE_WRAPPER:
        return None
    cells = dict(zip(method.__code__.co_freevars, method.__closure__ or (), strict=True))
    expected = cells["expected_type"].cell_contents
    return get_args(expected) if get_origin(expected) in (Union, UnionType) else (expected,)


def matching_patterns(applier: GreedyRewritePatternApplier, op_type: type[Operation]) -> list[RewritePattern]:
    """`applier`'s patterns that may rewrite an op of `op_type`, in order (module docstring)."""
    patterns = []
    for pattern in applier.rewrite_patterns:
        types = matched_types(pattern)
        if types is None or issubclass(op_type, types):
            patterns.append(pattern)
    return patterns


_TABLES: WeakKeyDictionary[GreedyRewritePatternApplier, dict[type[Operation], list[RewritePattern]]] = (
    WeakKeyDictionary()
)
"""per applier: op type -> `matching_patterns`"""


DISPATCH_MIN_PATTERNS = 4
"""Appliers of fewer patterns try them all, as xDSL's does: `canonicalize` makes one such applier
for each op it visits (that op's own patterns), where a table would cost more than it saves."""


class _ApplierTraits(TriviallyDead):
    """What the applier asks of an op before its patterns, per op class where it can be."""

    def __init__(self):
        super().__init__()
        self._folds: dict[type[Operation], bool] = {}

    def folds(self, op: Operation) -> bool:
        """Whether the applier tries to fold `op`: it has `HasFolder` and is not `ConstantLike`."""
        folds = self._folds.get(kind := type(op))
        if folds is None:
            folds = self._folds[kind] = op.has_trait(HasFolder, value_if_unregistered=False) and not op.has_trait(
                ConstantLike, value_if_unregistered=True
            )
        return folds


_CLASS_TRAITS = _ApplierTraits()
"""replaced by a fresh one on each entry of `dispatched_pattern_application`"""


def _dispatched_match_and_rewrite(self: GreedyRewritePatternApplier, op: Operation, rewriter: PatternRewriter) -> None:
    """xDSL 0.74's `GreedyRewritePatternApplier.match_and_rewrite` (its source, but for the
    patterns tried): over `matching_patterns(self, type(op))` only."""
    if self.dce_enabled and _CLASS_TRAITS.is_trivially_dead(op):
        rewriter.erase(op)
        return
    if self.folding_enabled and _CLASS_TRAITS.folds(op):
        if self.ctx is None:
            raise ValueError("Context is required for folding")
        folded = Folder(self.ctx).try_fold(op)
        if folded is not None:
            folded_values, folded_ops = folded
            rewriter.replace(op, new_ops=folded_ops, new_results=folded_values)
            return
    if len(self.rewrite_patterns) < DISPATCH_MIN_PATTERNS:
        patterns = self.rewrite_patterns
    else:
        table = _TABLES.setdefault(self, {})
        patterns = table.get(type(op))
        if patterns is None:
            patterns = table[type(op)] = matching_patterns(self, type(op))
    for pattern in patterns:
        pattern.match_and_rewrite(op, rewriter)
        if rewriter.has_done_action:
            return


@contextmanager
def dispatched_pattern_application() -> Iterator[None]:
    """`GreedyRewritePatternApplier` tries only `matching_patterns` within the block; whatever was
    installed before, after it."""
    global _CLASS_TRAITS
    installed = GreedyRewritePatternApplier.match_and_rewrite
    GreedyRewritePatternApplier.match_and_rewrite = _dispatched_match_and_rewrite
    _CLASS_TRAITS = _ApplierTraits()
    try:
        yield
    finally:
        GreedyRewritePatternApplier.match_and_rewrite = installed
