"""Utilization shapes (upstream `UtilizationShapePoint` lists): the one validator and the one
score function that VolumeBinding's `shape` and NodeResourcesFit's
`requestedToCapacityRatio.shape` share.

A shape is ((utilization 0..100, score 0..10), ...) with utilization strictly increasing
(upstream `validateFunctionShape`); it scores a utilization by upstream's
`helper.BuildBrokenLinearFunction` over the points with their scores scaled to 0..100.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from kubesched.framework import MAX_NODE_SCORE
from kubesched.plugins.helper.args import check_fields, integer, mapping
from kubesched.plugins.helper.fielderrors import invalid, required
from kubesched.plugins.helper.normalize import broken_linear

Shape = tuple[tuple[int, int], ...]
"""(utilization, score) points, as in the args."""

MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10
"""The highest score of a shape point (upstream `config.MaxCustomPriorityScore`)."""

_INT32 = (-(2**31), 2**31 - 1)


def decode_shape(points: Sequence[Any], *, path: str) -> tuple[Shape, list[str]]:
    """The shape and upstream's `validateFunctionShape` errors (raises on a wrong type)."""
    if not points:
        return (), [required(path, "at least one point must be specified")]
    decoded = tuple(_point(raw, path=f"{path}[{i}]") for i, raw in enumerate(points))
    errors = []
    for i in range(1, len(decoded)):
        if decoded[i - 1][0] >= decoded[i][0]:
            detail = "values must be sorted in increasing order"
            errors.append(invalid(f"{path}[{i}].utilization", decoded[i][0], detail))
            break
    for i, (utilization, score) in enumerate(decoded):
        if not 0 <= utilization <= MAX_UTILIZATION:
            detail = f"not in valid range [0, {MAX_UTILIZATION}]"
            errors.append(invalid(f"{path}[{i}].utilization", utilization, detail))
        if not 0 <= score <= MAX_CUSTOM_PRIORITY_SCORE:
            detail = f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"
            errors.append(invalid(f"{path}[{i}].score", score, detail))
    return decoded, errors


def _point(raw: Any, *, path: str) -> tuple[int, int]:
    point = mapping(raw, path=path)
    check_fields(point, kind=path, allowed=("utilization", "score"))
    low, high = _INT32
    utilization = integer(
        point.get("utilization", 0), path=f"{path}.utilization", low=low, high=high
    )
    score = integer(point.get("score", 0), path=f"{path}.score", low=low, high=high)
    return utilization, score


def shape_to_v1(shape: Shape) -> list[dict[str, int]]:
    """The v1 list: `[{score: 10, utilization: 0}, ...]` (keys sorted, as kube-scheduler)."""
    return [{"score": score, "utilization": utilization} for utilization, score in shape]


def shape_score(shape: Shape) -> Callable[[int], int]:
    """The score 0..100 of a utilization 0..100: upstream's broken-linear function over the
    shape's points, their scores scaled from 0..10 to 0..100."""
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    points = tuple((utilization, score * scale) for utilization, score in shape)
    return functools.partial(broken_linear, points)
