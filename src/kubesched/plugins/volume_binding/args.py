"""VolumeBindingArgs: `bindTimeoutSeconds` and the capacity-scoring `shape`."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.plugins.helper.args import ArgsError, check_fields, integer, mapping, sequence
from kubesched.plugins.helper.normalize import broken_linear as shape_score

KIND = "VolumeBindingArgs"
DEFAULT_BIND_TIMEOUT_SECONDS = 600
DEFAULT_SHAPE: tuple[tuple[int, int], ...] = ((0, 10), (100, 0))
"""v1.37's default (StorageCapacityScoring on): prefer the node whose storage is least used."""
MAX_CUSTOM_PRIORITY_SCORE = 10


@dataclass(frozen=True, slots=True)
class VolumeBindingArgs:
    bind_timeout_seconds: int = DEFAULT_BIND_TIMEOUT_SECONDS
    shape: tuple[tuple[int, int], ...] = DEFAULT_SHAPE
    """(utilization 0..100, score 0..10) points, utilization strictly increasing."""


def parse_args(args: Mapping[str, Any]) -> VolumeBindingArgs:
    """Upstream defaulting and `ValidateVolumeBindingArgs`."""
    check_fields(args, kind=KIND, allowed=("bindTimeoutSeconds", "shape"))
    timeout = args.get("bindTimeoutSeconds", DEFAULT_BIND_TIMEOUT_SECONDS)
    timeout = integer(timeout, path=f"{KIND}.bindTimeoutSeconds", low=0, high=2**31 - 1)
    raw_shape = args.get("shape")
    shape = DEFAULT_SHAPE if raw_shape is None else _shape(sequence(raw_shape, path="shape"))
    return VolumeBindingArgs(bind_timeout_seconds=timeout, shape=shape)


def _shape(points: Sequence[Any]) -> tuple[tuple[int, int], ...]:
    if not points:
        raise ArgsError(f"{KIND}.shape: Required value: at least one point must be specified")
    parsed: list[tuple[int, int]] = []
    for i, raw in enumerate(points):
        point = mapping(raw, path=f"{KIND}.shape[{i}]")
        check_fields(point, kind=f"{KIND}.shape[{i}]", allowed=("utilization", "score"))
        utilization = integer(
            point.get("utilization", 0), path=f"{KIND}.shape[{i}].utilization", low=0, high=100
        )
        score = integer(
            point.get("score", 0),
            path=f"{KIND}.shape[{i}].score",
            low=0,
            high=MAX_CUSTOM_PRIORITY_SCORE,
        )
        if parsed and utilization <= parsed[-1][0]:
            raise ArgsError(
                f"{KIND}.shape[{i}].utilization: Invalid value: {utilization}: "
                "utilization values must be sorted in increasing order"
            )
        parsed.append((utilization, score))
    return tuple(parsed)


def broken_linear(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """Upstream `helper.BuildBrokenLinearFunction` over (utilization, score*10) points."""
    points = [(u, s * (100 // MAX_CUSTOM_PRIORITY_SCORE)) for u, s in shape]
    return functools.partial(shape_score, points)
