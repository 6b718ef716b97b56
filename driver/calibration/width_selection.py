"""Choosing one option per layer under a budget: the multiple-choice knapsack.

    choices = least_loss_choices(options, budget, count=3)   # options[l] = [(cost, loss), ...] of layer l

Minimizes sum_l loss[l][picks[l]] subject to sum_l cost[l][picks[l]] <= budget, exactly, by
dynamic programming over Pareto frontiers: after layer l the frontier holds, for every reachable
total cost, the partial choice of least total loss, with every state dropped that costs more and
loses at least as much as another, or cannot stay within the budget even at the remaining layers'
cheapest options. The answer is the `count` least-loss states of the last frontier, least first
(ties: the cheaper, then the earlier options): the first is the optimum. Costs are integers
(bytes, bit operations); losses any reals. Empty when no choice fits the budget (`minimum_cost`
tells what the least is)."""

from collections.abc import Sequence

Option = tuple[int, float]
"""(cost, loss) of one choice for one layer."""


def minimum_cost(options: Sequence[Sequence[Option]]) -> int:
    """The least total cost of any choice: every layer at its cheapest option."""
    return sum(min(cost for cost, _ in layer) for layer in options)


def _pareto(states: list[tuple[int, float, tuple[int, ...]]]) -> list[tuple[int, float, tuple[int, ...]]]:
    """The states no other state beats on both cost and loss (cost ascending, loss descending)."""
    states.sort(key=lambda state: (state[0], state[1], state[2]))
    kept: list[tuple[int, float, tuple[int, ...]]] = []
    for state in states:
        if not kept or state[1] < kept[-1][1]:
            kept.append(state)
    return kept


def least_loss_choices(options: Sequence[Sequence[Option]], budget: int, count: int = 1) -> list[tuple[int, ...]]:
    """The option index of each layer for the `count` choices of least total loss within `budget`
    (module docstring)."""
    remaining = [0] * (len(options) + 1)
    for layer in range(len(options) - 1, -1, -1):
        remaining[layer] = remaining[layer + 1] + min(cost for cost, _ in options[layer])
    if remaining[0] > budget:
        return []
    frontier: list[tuple[int, float, tuple[int, ...]]] = [(0, 0.0, ())]
    for layer, choices in enumerate(options):
        frontier = _pareto([(cost + option_cost, loss + option_loss, picks + (index,))
                            for cost, loss, picks in frontier
                            for index, (option_cost, option_loss) in enumerate(choices)
                            if cost + option_cost + remaining[layer + 1] <= budget])
    return [state[2] for state in sorted(frontier, key=lambda state: (state[1], state[0], state[2]))[:count]]
