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
from kubesched.plugins.helper.fielderrors import (
    duplicate,
    forbidden,
    invalid,
    label_name_errors,
    not_supported,
    raise_all,
    required,
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

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        """Upstream defaulting and `ValidatePodTopologySpreadArgs` (every error, aggregated
        as upstream's); raises ArgsError."""
        check_fields(args, kind=_KIND, allowed=("defaultConstraints", "defaultingType"))
        defaulting = args.get("defaultingType") or SYSTEM_DEFAULTING
        raw = sequence(args.get("defaultConstraints"), path=f"{_KIND}.defaultConstraints")
        errors = []
        if defaulting not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
            supported = (SYSTEM_DEFAULTING, LIST_DEFAULTING)
            errors.append(not_supported(f"{_KIND}.defaultingType", defaulting, supported))
        elif defaulting == SYSTEM_DEFAULTING and raw:
            detail = "when .defaultConstraints are not empty"
            errors.append(invalid(f"{_KIND}.defaultingType", defaulting, detail))
        seen: set[tuple[Any, Any]] = set()
        constraints = []
        for i, item in enumerate(raw):
            path = f"{_KIND}.defaultConstraints[{i}]"
            constraint = mapping(item, path=path)
            check_fields(constraint, kind=path, allowed=_CONSTRAINT_FIELDS)
            errors += _default_constraint_errors(constraint, path=path)
            pair = (constraint.get("topologyKey"), constraint.get("whenUnsatisfiable"))
            if pair in seen:
                errors.append(duplicate(path, f"{{{pair[0]}, {pair[1]}}}"))
            seen.add(pair)
            constraints.append(constraint)
        raise_all(errors)
        return cls(default_constraints=tuple(constraints), defaulting_type=str(defaulting))

    def to_v1(self) -> dict[str, Any]:
        document: dict[str, Any] = {}
        if self.default_constraints:
            document["defaultConstraints"] = sorted_keys(self.default_constraints)
        document["defaultingType"] = self.defaulting_type
        return document


def _default_constraint_errors(constraint: Mapping[str, Any], *, path: str) -> list[str]:
    errors = []
    skew = constraint.get("maxSkew", 0)  # Go reads a missing int32 as 0
    if isinstance(skew, bool) or not isinstance(skew, int) or skew <= 0:
        errors.append(invalid(f"{path}.maxSkew", skew, "not in valid range (0, inf)"))
    key = constraint.get("topologyKey")
    if not key:
        errors.append(required(f"{path}.topologyKey", "can not be empty"))
    elif not isinstance(key, str):
        raise ArgsError(f"{path}.topologyKey: expected a string, got {key!r}")
    else:
        errors += label_name_errors(f"{path}.topologyKey", key)
    action = constraint.get("whenUnsatisfiable")
    if not action:
        errors.append(required(f"{path}.whenUnsatisfiable", "can not be empty"))
    elif action not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
        supported = (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY)
        errors.append(not_supported(f"{path}.whenUnsatisfiable", action, supported))
    if constraint.get("labelSelector") is not None:
        detail = "constraint must not define a selector, as they deduced for each pod"
        errors.append(forbidden(f"{path}.labelSelector", detail))
    return errors
