"""`fixed_point_scale(r)` against its definition, in exact rationals: the n with
R_even(r 2^n) in [2^30, 2^31) (one step lower where rounding reaches 2^31), M = R_even(r 2^n)
(Python's `round` of a Fraction: half to even)."""

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from bitfold.passes.utils.requantization import fixed_point_scale


def _definition(ratio: Fraction) -> tuple[int, int]:
    shift = 0
    while ratio * Fraction(2) ** shift >= 2**31:
        shift -= 1
    while ratio * Fraction(2) ** shift < 2**30:
        shift += 1
    multiplier = round(ratio * Fraction(2) ** shift)
    return (multiplier >> 1, shift - 1) if multiplier == 2**31 else (multiplier, shift)


RATIOS = st.one_of(
    st.fractions(min_value=Fraction(1, 2**70), max_value=2**40).filter(lambda r: r > 0),
    st.builds(lambda a, b: Fraction(a) / Fraction(b), st.floats(1e-9, 1e3), st.floats(1e-6, 1e3)),
    # ties and the top of the range: (2^31 - k + t/2) 2^-e
    st.builds(lambda k, t, e: (Fraction(2**31 - k) + Fraction(t, 2)) / Fraction(2) ** e,
              st.integers(0, 4), st.integers(0, 1), st.integers(-40, 80)),
)


@given(RATIOS)
def test_fixed_point_scale_is_its_definition(ratio):
    assert fixed_point_scale(ratio) == _definition(ratio)


def test_a_tie_rounds_to_even_and_the_top_carries_into_the_shift():
    assert fixed_point_scale(Fraction(2**30) + Fraction(1, 2)) == (2**30, 0)
    assert fixed_point_scale(Fraction(2**30) + Fraction(3, 2)) == (2**30 + 2, 0)
    assert fixed_point_scale(Fraction(2**31 - 1) + Fraction(1, 2)) == (2**30, -1)
