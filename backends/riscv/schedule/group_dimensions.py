"""Groups as loop dimensions: a grouped convolution's contraction reads its input at channel
`(m floordiv M_g) * C_g + ci` (M_g output and C_g input channels a group,
passes/quant_to_integer/contraction.py), not a linear sum of the loop dimensions. Each parallel
dimension m that appears as `m floordiv c` (c > 1 dividing its bound B) is split in two,

    m = c * m_outer + m_inner        (m_outer < B / c, m_inner < c)

outer first, so the iteration order is unchanged; `m floordiv c` is then m_outer and every map is
linear again. The nest (`loop_nest_plan.py`) has the groups as an outer loop and in each group the
per-group contraction (a convolution of C_g -> M_g channels), register-tiled over m_inner and the
output pixels like any convolution (without the split the generic fell back to
`bitfold-riscv-linalg-to-loops`: one accumulator, indices recomputed per MAC).
"""

from collections.abc import Sequence

from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)

from bitfold.backends.riscv.schedule.loop_nest_plan import Dim


def _group_divisor(expr: AffineExpr) -> tuple[int, int] | None:
    """(d, c) where `expr` is `d floordiv c` for a dimension d and a constant c > 1."""
    if (
        isinstance(expr, AffineBinaryOpExpr)
        and expr.kind == AffineBinaryOpKind.FloorDiv
        and isinstance(expr.lhs, AffineDimExpr)
        and isinstance(expr.rhs, AffineConstantExpr)
        and expr.rhs.value > 1
    ):
        return expr.lhs.position, expr.rhs.value
    return None


def _divisions(expr: AffineExpr) -> list[tuple[int, int]]:
    """Every (d, c) of a `d floordiv c` in `expr` (`_group_divisor`)."""
    found = _group_divisor(expr)
    if found is not None:
        return [found]
    if isinstance(expr, AffineBinaryOpExpr):
        return _divisions(expr.lhs) + _divisions(expr.rhs)
    return []


def group_factors(dims: Sequence[Dim], maps: Sequence[AffineMap]) -> dict[int, int] | None:
    """Per dimension to split, its factor c (module docstring); None where a division cannot be
    split: a reduction dimension, c not dividing the bound, two divisors of one dimension."""
    factors: dict[int, int] = {}
    for d, c in (found for affine_map in maps for result in affine_map.results for found in _divisions(result)):
        if not dims[d].parallel or dims[d].bound % c or factors.setdefault(d, c) != c:
            return None
    return factors


def _split(expr: AffineExpr, positions: Sequence[AffineExpr], outer: dict[int, AffineExpr]) -> AffineExpr:
    """`expr` over the split dimensions: d as `positions[d]`, `d floordiv c` as `outer[d]`."""
    found = _group_divisor(expr)
    if found is not None and found[0] in outer:
        return outer[found[0]]
    if isinstance(expr, AffineDimExpr):
        return positions[expr.position]
    if isinstance(expr, AffineBinaryOpExpr):
        return AffineBinaryOpExpr(expr.kind, _split(expr.lhs, positions, outer), _split(expr.rhs, positions, outer))
    return expr


def split_group_dimensions(dims: Sequence[Dim], maps: Sequence[AffineMap]) -> tuple[list[Dim], list[AffineMap]] | None:
    """The iteration space and maps with each grouped dimension split (module docstring); the
    input unchanged where there is none, None where one cannot be split (`group_factors`)."""
    factors = group_factors(dims, maps)
    if factors is None:
        return None
    split_dims: list[Dim] = []
    positions: list[AffineExpr] = []
    outer: dict[int, AffineExpr] = {}
    for d, dim in enumerate(dims):
        c = factors.get(d)
        if c is None:
            positions.append(AffineDimExpr(len(split_dims)))
            split_dims.append(dim)
            continue
        outer[d] = AffineDimExpr(len(split_dims))
        positions.append(outer[d] * c + AffineDimExpr(len(split_dims) + 1))
        split_dims += [Dim(dim.bound // c, True), Dim(c, True)]
    split_maps = [AffineMap(len(split_dims), 0, tuple(_split(r, positions, outer) for r in m.results)) for m in maps]
    return split_dims, split_maps
