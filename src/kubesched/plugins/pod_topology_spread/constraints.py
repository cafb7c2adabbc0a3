"""PodTopologySpread's constraints: parsed from a pod, or the plugin's default constraints.

A pod's own `topologySpreadConstraints` win; a pod without any gets the default constraints
(`PodTopologySpreadArgs`, see `args`). Defaults spread a pod among the pods selected by the
Services, ReplicationControllers, ReplicaSets and StatefulSets that select it, exactly as
upstream (`helper.DefaultSelector`, see `kubesched.plugins.helper.spread`), read from their
listers; a pod nothing selects gets no default constraints.

Field defaults as upstream: `minDomains` 1, `nodeAffinityPolicy: Honor`, `nodeTaintsPolicy:
Ignore`; `matchLabelKeys` adds `key = <the pod's value>` to the selector (kube-scheduler
merges them itself, besides the API server doing it at admission).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from kubesched.model import Pod
from kubesched.model.affinity import TopologySpreadConstraint
from kubesched.plugins.helper import selectors as sel
from kubesched.plugins.helper.spread import SpreadListers, default_selector
from kubesched.plugins.pod_topology_spread.args import (
    SYSTEM_DEFAULT_CONSTRAINTS,
    PodTopologySpreadArgs,
)

HONOR = "Honor"
IGNORE = "Ignore"


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


def pod_constraints(
    pod: Pod, action: str, args: PodTopologySpreadArgs, *, workloads: SpreadListers
) -> tuple[Constraint, ...]:
    """The pod's constraints with `whenUnsatisfiable == action` (its own, else the defaults,
    whose selector comes from the `workloads` listers); raises SelectorError on an invalid
    label selector."""
    if pod.topology_spread_constraints:
        return _parse(pod.topology_spread_constraints, pod.labels, action)
    return _defaults(pod, action, args, workloads)


def _parse(
    constraints: Sequence[TopologySpreadConstraint], labels: Mapping[str, str], action: str
) -> tuple[Constraint, ...]:
    result = []
    for item in constraints:
        if item.when_unsatisfiable != action:
            continue
        selector = sel.compile_selector(item.label_selector)
        keys = [k for k in item.match_label_keys if k in labels]
        if keys:
            selector = selector.with_equals((k, labels[k]) for k in keys)
        min_domains = item.min_domains
        result.append(
            Constraint(
                max_skew=item.max_skew,
                topology_key=item.topology_key,
                selector=selector,
                min_domains=1 if min_domains is None else min_domains,
                honor_node_affinity=(item.node_affinity_policy or HONOR) == HONOR,
                honor_taints=(item.node_taints_policy or IGNORE) == HONOR,
            )
        )
    return tuple(result)


def _defaults(
    pod: Pod, action: str, args: PodTopologySpreadArgs, workloads: SpreadListers
) -> tuple[Constraint, ...]:
    """Upstream `buildDefaultConstraints`: the default constraints with the pod's default
    selector; none when that selector is empty."""
    constraints = _parse(_default_constraints(args), pod.labels, action)
    if not constraints:
        return ()
    selector = default_selector(pod, workloads)
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


_SYSTEM_DEFAULTS = tuple(TopologySpreadConstraint.from_json(c) for c in SYSTEM_DEFAULT_CONSTRAINTS)
_LISTED: dict[int, tuple[object, tuple[TopologySpreadConstraint, ...]]] = {}
"""id of an args' `default_constraints` -> (that tuple, kept so the id stays its own; typed)."""


def _default_constraints(args: PodTopologySpreadArgs) -> tuple[TopologySpreadConstraint, ...]:
    """The constraints a pod without its own gets, typed once per args."""
    if args.system_defaulted:
        return _SYSTEM_DEFAULTS
    raw = args.default_constraints
    hit = _LISTED.get(id(raw))
    if hit is None or hit[0] is not raw:
        hit = _LISTED[id(raw)] = (raw, tuple(map(TopologySpreadConstraint.from_json, raw)))
    return hit[1]
