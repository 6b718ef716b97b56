"""The multiple-choice knapsack of mixed precision against brute force (every combination tried):
the same least total loss on random small instances, always within the budget, nothing exactly
when no combination fits; the further choices are within the budget and lose no less."""

import itertools

import numpy as np
import pytest

from bitfold.calibration.width_selection import least_loss_choices, minimum_cost


def _brute_force(options, budget):
    """(least total loss, its cost) over every combination within `budget`, or None."""
    best = None
    for picks in itertools.product(*(range(len(layer)) for layer in options)):
        cost = sum(options[i][k][0] for i, k in enumerate(picks))
        loss = sum(options[i][k][1] for i, k in enumerate(picks))
        if cost <= budget and (best is None or loss < best[0]):
            best = (loss, cost)
    return best


def _instance(rng):
    layers = int(rng.integers(1, 6))
    options = []
    for _ in range(layers):
        costs = sorted(rng.integers(1, 40, size=int(rng.integers(1, 4))).tolist())
        options.append([(int(c), float(rng.normal() * 10)) for c in costs])
    budget = int(rng.integers(0, sum(max(c for c, _ in layer) for layer in options) + 2))
    return options, budget


@pytest.mark.parametrize("seed", range(200))
def test_equals_brute_force(seed):
    options, budget = _instance(np.random.default_rng(seed))
    choices = least_loss_choices(options, budget, count=3)
    expected = _brute_force(options, budget)
    if expected is None:
        assert choices == [] and minimum_cost(options) > budget
        return
    assert choices and all(len(picks) == len(options) for picks in choices)
    assert len(set(choices)) == len(choices)
    costs = [sum(options[i][k][0] for i, k in enumerate(picks)) for picks in choices]
    losses = [sum(options[i][k][1] for i, k in enumerate(picks)) for picks in choices]
    assert max(costs) <= budget
    assert losses[0] == pytest.approx(expected[0], abs=1e-9)
    assert losses == sorted(losses)


def test_large_instance_stays_within_budget():
    """28 layers of three widths (MobileNetV1's size), the bytes of 2, 4 and 8 bits: the frontier
    stays small enough, and a looser budget never loses more."""
    rng = np.random.default_rng(7)
    sizes = rng.integers(100, 40_000, size=28)
    options = [[(int(n) * b // 8, float(rng.random() * (2.0 ** (8 - b) - 1))) for b in (2, 4, 8)] for n in sizes]
    full = sum(layer[-1][0] for layer in options)
    losses = []
    for budget in (full // 4, full // 2, full):
        picks = least_loss_choices(options, budget)[0]
        assert sum(options[i][k][0] for i, k in enumerate(picks)) <= budget
        losses.append(sum(options[i][k][1] for i, k in enumerate(picks)))
    assert losses == sorted(losses, reverse=True) and losses[-1] == 0.0
