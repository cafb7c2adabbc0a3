"""Score helpers shared by the plugins: upstream's `helper.DefaultNormalizeScore`,
`helper.BuildBrokenLinearFunction` and Go's integer division."""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence

from kubesched.framework import MAX_NODE_SCORE


def default_normalize_score(
    scores: MutableSequence[int], *, max_priority: int = MAX_NODE_SCORE, reverse: bool = False
) -> None:
    """Scale scores to 0..max_priority by the highest one (upstream `DefaultNormalizeScore`).

    With `reverse`, a high raw score becomes a low final score (e.g. counts of bad taints).
    """
    highest = max(scores, default=0)
    if highest == 0:
        if reverse:
            scores[:] = [max_priority] * len(scores)
        return
    if highest > 0 and min(scores) >= 0:  # Go's division is Python's floor division here
        scaled = [max_priority * score // highest for score in scores]
    else:
        scaled = [go_div(max_priority * score, highest) for score in scores]
    scores[:] = [max_priority - value for value in scaled] if reverse else scaled


def go_div(numerator: int, denominator: int) -> int:
    """Integer division truncating toward zero, as Go's `/` on ints (Python's `//` floors)."""
    quotient = abs(numerator) // abs(denominator)
    return quotient if (numerator >= 0) == (denominator > 0) else -quotient


def broken_linear(points: Sequence[tuple[int, int]], p: int) -> int:
    """Upstream `BuildBrokenLinearFunction` over (utilization, score) points sorted by
    utilization, evaluated at `p`: the first score below the first point, the last above the
    last one, linear (Go's integer division) in between."""
    for i, (utilization, score) in enumerate(points):
        if p <= utilization:
            if i == 0:
                return score
            prev_utilization, prev_score = points[i - 1]
            return prev_score + go_div(
                (score - prev_score) * (p - prev_utilization), utilization - prev_utilization
            )
    return points[-1][1]
