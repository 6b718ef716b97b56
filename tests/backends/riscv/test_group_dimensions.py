"""Grouped dimensions split into the group and the index within it (`group_dimensions.py`): the
maps become linear sums, equal to the original maps at every iteration point."""

from itertools import product

from xdsl.ir.affine import AffineExpr, AffineMap

from bitfold.backends.riscv.schedule.group_dimensions import split_group_dimensions
from bitfold.backends.riscv.schedule.loop_nest_plan import Dim, linear_form

M, H, CI = AffineExpr.dimension(0), AffineExpr.dimension(1), AffineExpr.dimension(2)
GROUPED_INPUT = AffineMap(3, 0, ((M // 4) * 2 + CI, H))
"""x[(m floordiv 4) * 2 + ci, h]: 4 output channels and 2 input channels a group"""
WEIGHTS = AffineMap(3, 0, (M, CI))


def test_the_split_maps_are_linear_and_equal_the_originals():
    dims = [Dim(8, True), Dim(3, True), Dim(2, False)]
    split_dims, (x_map, w_map) = split_group_dimensions(dims, [GROUPED_INPUT, WEIGHTS])
    assert split_dims == [Dim(2, True), Dim(4, True), Dim(3, True), Dim(2, False)]
    assert all(linear_form(r, 4) is not None for r in (*x_map.results, *w_map.results))
    for g, mi, h, ci in product(range(2), range(4), range(3), range(2)):
        point = (4 * g + mi, h, ci)
        assert x_map.eval((g, mi, h, ci), ()) == GROUPED_INPUT.eval(point, ())
        assert w_map.eval((g, mi, h, ci), ()) == WEIGHTS.eval(point, ())


def test_maps_without_groups_are_kept():
    dims = [Dim(8, True), Dim(3, True), Dim(2, False)]
    assert split_group_dimensions(dims, [WEIGHTS]) == (dims, [AffineMap(3, 0, (M, CI))])


def test_divisions_that_cannot_be_split():
    """A divisor that does not divide the bound, a reduction dimension, two divisors of one dimension."""
    assert split_group_dimensions([Dim(6, True), Dim(3, True), Dim(2, False)], [GROUPED_INPUT]) is None
    assert split_group_dimensions([Dim(8, True), Dim(3, True), Dim(4, False)], [AffineMap(3, 0, (CI // 2,))]) is None
    assert (
        split_group_dimensions([Dim(8, True), Dim(3, True), Dim(2, False)], [AffineMap(3, 0, (M // 4, M // 2))]) is None
    )
