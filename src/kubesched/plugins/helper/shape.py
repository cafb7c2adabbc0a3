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
from kubesched.plugins.helper.args import ArgsError, check_fields, integer, mapping
from kubesched.plugins.helper.normalize import broken_linear

Shape = tuple[tuple[int, int], ...]
"""(utilization, score) points, as in the args."""

MAX_UTILIZATION = 100
MAX_CUSTOM_PRIORITY_SCORE = 10
"""The highest score of a shape point (upstream `config.MaxCustomPriorityScore`)."""

_INT32 = (-(2**31), 2**31 - 1)


def parse_shape(points: Sequence[Any], *, path: str) -> Shape:
    """Decode and validate a shape as upstream's `validateFunctionShape` (its texts, its
    order: at least one point, then sorted utilizations, then each point's ranges); `path`
    names the list (`VolumeBindingArgs.shape`)."""
    if not points:
        raise ArgsError(f"{path}: Required value: at least one point must be specified")
    decoded = [_point(raw, path=f"{path}[{i}]") for i, raw in enumerate(points)]
    for i in range(1, len(decoded)):
        if decoded[i - 1][0] >= decoded[i][0]:
            raise ArgsError(
                f"{path}[{i}].utilization: Invalid value: {decoded[i][0]}: "
                "values must be sorted in increasing order"
            )
    for i, (utilization, score) in enumerate(decoded):
        integer(utilization, path=f"{path}[{i}].utilization", low=0, high=MAX_UTILIZATION)
        integer(score, path=f"{path}[{i}].score", low=0, high=MAX_CUSTOM_PRIORITY_SCORE)
    return tuple(decoded)


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
