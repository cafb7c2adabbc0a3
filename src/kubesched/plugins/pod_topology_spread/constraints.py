"""PodTopologySpread's constraints: parsed from a pod, or the plugin's default constraints.

A pod's own `topologySpreadConstraints` win; a pod without any gets the default constraints
(`PodTopologySpreadArgs`): with `defaultingType: System` (the default) upstream's system
defaults, hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway; with `List` the
`defaultConstraints` of the args. Defaults spread a pod among the pods selected by the
Services, ReplicationControllers, ReplicaSets and StatefulSets that select it, exactly as
upstream (`helper.DefaultSelector`, see `kubesched.plugins.helper.spread`), read through the
Handle (`services`, `controller`); a pod nothing selects gets no default constraints.

Field defaults as upstream: `minDomains` 1, `nodeAffinityPolicy: Honor`, `nodeTaintsPolicy:
Ignore`; `matchLabelKeys` adds `key = <the pod's value>` to the selector (kube-scheduler
merges them itself, besides the API server doing it at admission).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from kubesched.framework import Handle
from kubesched.model import Pod
from kubesched.plugins.helper import selectors as sel
from kubesched.plugins.helper.args import ArgsError, check_fields, mapping, sequence
from kubesched.plugins.helper.spread import default_selector

HOSTNAME_KEY = "kubernetes.io/hostname"
ZONE_KEY = "topology.kubernetes.io/zone"
DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR = "Honor"
IGNORE = "Ignore"
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


class PodSelector(Protocol):
    """Which pods a constraint counts (hashable: it keys the per-node counts)."""

    @property
    def empty(self) -> bool: ...
    def matches_pod(self, pod: Pod, /) -> bool: ...
    def __hash__(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Constraint:
    """One parsed constraint (upstream `topologySpreadConstraint`)."""

    max_skew: int
    topology_key: str
    selector: PodSelector
    min_domains: int = 1
    honor_node_affinity: bool = True
    honor_taints: bool = False


@dataclass(frozen=True, slots=True)
class SpreadArgs:
    """Validated `PodTopologySpreadArgs`."""

    default_constraints: tuple[Mapping[str, Any], ...] = SYSTEM_DEFAULT_CONSTRAINTS
    system_defaulted: bool = True


def parse_args(args: Mapping[str, Any]) -> SpreadArgs:
    """Check `PodTopologySpreadArgs` as upstream's validation; raises ArgsError."""
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
    if defaulting == SYSTEM_DEFAULTING:
        return SpreadArgs()
    return SpreadArgs(default_constraints=tuple(constraints), system_defaulted=False)


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


def pod_constraints(
    pod: Pod, action: str, args: SpreadArgs, *, lister: Handle
) -> tuple[Constraint, ...]:
    """The pod's constraints with `whenUnsatisfiable == action` (its own, else the defaults,
    whose selector comes from `lister`, the Handle); raises SelectorError on an invalid label
    selector."""
    if pod.topology_spread_constraints:
        return _parse(pod.topology_spread_constraints, pod.labels, action)
    return _defaults(pod, action, args, lister)


def _parse(
    raw: Sequence[Mapping[str, Any]], labels: Mapping[str, str], action: str
) -> tuple[Constraint, ...]:
    result = []
    for item in raw:
        if item.get("whenUnsatisfiable") != action:
            continue
        selector = sel.compile_selector(item.get("labelSelector"))
        keys = [k for k in item.get("matchLabelKeys") or () if k in labels]
        if keys:
            selector = selector.with_equals((k, labels[k]) for k in keys)
        min_domains = item.get("minDomains")
        result.append(
            Constraint(
                max_skew=int(item.get("maxSkew") or 0),
                topology_key=str(item.get("topologyKey") or ""),
                selector=selector,
                min_domains=1 if min_domains is None else int(min_domains),
                honor_node_affinity=(item.get("nodeAffinityPolicy") or HONOR) == HONOR,
                honor_taints=(item.get("nodeTaintsPolicy") or IGNORE) == HONOR,
            )
        )
    return tuple(result)


def _defaults(pod: Pod, action: str, args: SpreadArgs, lister: Handle) -> tuple[Constraint, ...]:
    """Upstream `buildDefaultConstraints`: the default constraints with the pod's default
    selector; none when that selector is empty."""
    constraints = _parse(args.default_constraints, pod.labels, action)
    if not constraints:
        return ()
    selector = default_selector(pod, lister)
    if selector.empty:
        return ()
    return tuple(
        Constraint(
            c.max_skew,
            c.topology_key,
            selector,
            c.min_domains,
            c.honor_node_affinity,
            c.honor_taints,
        )
        for c in constraints
    )
