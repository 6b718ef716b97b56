"""`plan_workspace`: buffers live at once never share bytes, the size reaches the peak of live
bytes on the lifetime patterns networks make, offsets respect alignment. The peak is computed
here by brute force over every point in time, not by the planner."""

import itertools
import random

import pytest

from bitfold.backends.kernel.bufferize import WorkspaceBuffer, plan_workspace


def brute_force_peak(buffers: list[WorkspaceBuffer]) -> int:
    end = max(b.last for b in buffers)
    return max(sum(b.size for b in buffers if b.first <= t <= b.last) for t in range(end + 1))


def check(buffers: list[WorkspaceBuffer]) -> int:
    size = plan_workspace(buffers)
    for a, b in itertools.combinations(buffers, 2):
        if a.first <= b.last and b.first <= a.last:
            assert a.offset + a.size <= b.offset or b.offset + b.size <= a.offset, (a, b)
    for b in buffers:
        assert b.offset % b.alignment == 0 and 0 <= b.offset and b.offset + b.size <= size
    return size


def test_disjoint_lifetimes_share_bytes_whatever_their_sizes():
    buffers = [WorkspaceBuffer(400, 4, 0, 1), WorkspaceBuffer(100, 2, 2, 3), WorkspaceBuffer(36, 4, 4, 5)]
    assert check(buffers) == 400
    assert {b.offset for b in buffers} == {0}


def test_a_chain_alternates_sides_to_reach_the_peak():
    """The depthwise-separable pattern (DS-CNN): big, small, medium, big, ... each overlapping
    the next. Largest-first stacks the small ones above big + medium; the peak is big + medium."""
    sizes = [32000, 8000, 12096] * 4
    buffers = [WorkspaceBuffer(size, 4, 2 * k, 2 * k + 2) for k, size in enumerate(sizes)]
    assert check(buffers) == brute_force_peak(buffers) == 44096


def test_no_buffers_no_bytes():
    assert plan_workspace([]) == 0


@pytest.mark.parametrize("seed", range(20))
def test_random_lifetimes_never_overlap_and_stay_near_the_peak(seed):
    rng = random.Random(seed)
    buffers = []
    for _ in range(30):
        first = rng.randrange(40)
        alignment = rng.choice([4, 8])
        buffers.append(WorkspaceBuffer(rng.randrange(1, 64) * alignment, alignment, first, first + rng.randrange(1, 6)))
    assert check(buffers) <= 1.25 * brute_force_peak(buffers)
