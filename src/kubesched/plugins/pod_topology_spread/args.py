"""`PodTopologySpreadArgs`: the default constraints of pods that have none.

With `defaultingType: System` (the default) upstream's system defaults, hostname maxSkew 3
and zone maxSkew 5, both ScheduleAnyway; with `List` the `defaultConstraints` of the args
(each without a `labelSelector`: the pod's default selector is used).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.plugins.helper.args import (
    ArgsError,
    PluginArgs,
    check_fields,
    mapping,
    sequence,
    sorted_keys,
)

HOSTNAME_KEY = "kubernetes.io/hostname"
ZONE_KEY = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"
_KIND = "PodTopologySpreadArgs"
_CONSTRAINT_FIELDS = (
    "maxSkew",
    "topologyKey",
    "whenUnsatisfiable",
    "labelSelector",
    "minDomains",
    "nodeAffinityPolicy",
    "nodeTaintsPolicy",
    "matchLabelKeys",
)

SYSTEM_DEFAULT_CONSTRAINTS: tuple[Mapping[str, Any], ...] = (
    {"topologyKey": HOSTNAME_KEY, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 3},
    {"topologyKey": ZONE_KEY, "whenUnsatisfiable": SCHEDULE_ANYWAY, "maxSkew": 5},
)
"""Upstream's `systemDefaultConstraints` (the plugin's, not the args')."""


@dataclass(frozen=True, slots=True)
class PodTopologySpreadArgs(PluginArgs):
    """Upstream `PodTopologySpreadArgs`, with its v1 defaults."""

    KIND: ClassVar[str] = _KIND

    default_constraints: tuple[Mapping[str, Any], ...] = ()
    """The `List` defaulting's constraints (v1 `TopologySpreadConstraint` mappings)."""
    defaulting_type: str = SYSTEM_DEFAULTING
    """`System` or `List`."""

    @property
    def system_defaulted(self) -> bool:
        return self.defaulting_type == SYSTEM_DEFAULTING

    @property
    def constraints_for_pods_without(self) -> tuple[Mapping[str, Any], ...]:
        """The constraints a pod without its own gets (before its default selector)."""
        return SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted else self.default_constraints

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        """Upstream defaulting and `ValidatePodTopologySpreadArgs`; raises ArgsError."""
        check_fields(args, kind=_KIND, allowed=("defaultConstraints", "defaultingType"))
        defaulting = args.get("defaultingType") or SYSTEM_DEFAULTING
        raw = sequence(args.get("defaultConstraints"), path=f"{_KIND}.defaultConstraints")
        if defaulting not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
            raise ArgsError(
                f'{_KIND}.defaultingType: Unsupported value: "{defaulting}":'
                f' supported values: "{SYSTEM_DEFAULTING}", "{LIST_DEFAULTING}"'
            )
        if defaulting == SYSTEM_DEFAULTING and raw:
            raise ArgsError(
                f'{_KIND}.defaultingType: Invalid value: "System": when .defaultConstraints are'
                " not empty"
            )
        seen: set[tuple[str, str]] = set()
        constraints = []
        for i, item in enumerate(raw):
            path = f"{_KIND}.defaultConstraints[{i}]"
            constraint = mapping(item, path=path)
            check_fields(constraint, kind=path, allowed=_CONSTRAINT_FIELDS)
            _check_default_constraint(constraint, path=path)
            pair = (constraint["topologyKey"], constraint["whenUnsatisfiable"])
            if pair in seen:
                raise ArgsError(f'{path}: Duplicate value: "{{{pair[0]}, {pair[1]}}}"')
            seen.add(pair)
            constraints.append(constraint)
        return cls(default_constraints=tuple(constraints), defaulting_type=str(defaulting))

    def to_v1(self) -> dict[str, Any]:
        document: dict[str, Any] = {}
        if self.default_constraints:
            document["defaultConstraints"] = sorted_keys(self.default_constraints)
        document["defaultingType"] = self.defaulting_type
        return document


def _check_default_constraint(constraint: Mapping[str, Any], *, path: str) -> None:
    skew = constraint.get("maxSkew")
    if isinstance(skew, bool) or not isinstance(skew, int) or skew <= 0:
        raise ArgsError(f"{path}.maxSkew: Invalid value: {skew!r}: not in valid range (0, inf)")
    key = constraint.get("topologyKey")
    if not isinstance(key, str) or not key:
        raise ArgsError(f"{path}.topologyKey: Required value: can not be empty")
    action = constraint.get("whenUnsatisfiable")
    if not action:
        raise ArgsError(f"{path}.whenUnsatisfiable: Required value: can not be empty")
    if action not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
        raise ArgsError(
            f'{path}.whenUnsatisfiable: Unsupported value: "{action}":'
            f' supported values: "{DO_NOT_SCHEDULE}", "{SCHEDULE_ANYWAY}"'
        )
    if constraint.get("labelSelector") is not None:
        raise ArgsError(
            f"{path}.labelSelector: Forbidden: constraint must not define a selector,"
            " as they deduced for each pod"
        )
