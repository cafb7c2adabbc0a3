"""Victims of Coscheduling's gang preemption (kubesched's own; scheduler-plugins has none):
which pods go together, which are given back first, how two candidates compare. No
framework here: the what-ifs are a `Trial`'s (gang_trial.py).

A victim is a *unit*: a pod of no Coscheduling gang alone, or every pod of one gang
(`scheduling.x-k8s.io/pod-group` label) counted on the cluster's nodes, bound or waiting at
Permit, wherever they run. A unit's priority is the highest of its pods; it may be evicted
only when that is strictly lower than the preemptor's. Most important first (upstream's
`MoreImportantVictim`): higher priority, then gangs before single pods, then more pods,
then the earlier start.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from kubesched.framework import NodeInfo
from kubesched.model import Pod, PodDisruptionBudget

GangOf = Callable[[Pod], str]
"""A pod's gang (`namespace/group`), "" for none."""
_PRIORITY_OFFSET = 2**31  # as upstream: every priority counts as >= 0 in the sum


@dataclass(frozen=True, slots=True)
class Unit:
    """Pods evicted together: one pod, or a whole gang."""

    pods: tuple[Pod, ...]
    priority: int
    gang: str = ""
    earliest_start: float = 0.0


@dataclass(frozen=True, slots=True)
class Chosen:
    """The units a preemption evicts (most important first) and their PDB violations."""

    units: tuple[Unit, ...]
    pdb_violations: int

    @property
    def pods(self) -> tuple[Pod, ...]:
        return tuple(pod for unit in self.units for pod in unit.pods)


class Trial(Protocol):
    """A what-if cluster: units taken off and given back, the preemptor's pods placed."""

    def remove(self, unit: Unit) -> None: ...

    def add(self, unit: Unit) -> None: ...

    def place(self, costs: Mapping[str, tuple[int, int, int]]) -> bool:
        """Find a node for every preemptor pod on the cluster as it is now, the nodes of
        lowest `costs` first (a node without one costs nothing); keep them."""
        ...

    def fits(self) -> bool:
        """Whether every pod placed still fits on its node, taken one after the other."""
        ...


def start_seconds(pod: Pod, now: float) -> float:
    if not pod.start_time:
        return now
    try:
        return datetime.fromisoformat(pod.start_time).timestamp()
    except ValueError:
        return now


def gang_pods(nodes: Sequence[NodeInfo], gang_of: GangOf) -> dict[str, list[Pod]]:
    """Every gang's pods on `nodes` (read once per preemption, passed to `collect`)."""
    gangs: dict[str, list[Pod]] = {}
    for info in nodes:
        for pod in info.pods.values():
            if gang := gang_of(pod):
                gangs.setdefault(gang, []).append(pod)
    return gangs


def collect(
    nodes: Sequence[NodeInfo],
    gang_of: GangOf,
    *,
    below: int,
    now: float,
    gangs: Mapping[str, Sequence[Pod]],
    exclude: str = "",
) -> list[Unit]:
    """The units with a pod on `nodes` whose priority is below `below`, in node order; a
    gang's unit holds all its pods in `gangs` (`gang_pods` of the whole cluster).
    `exclude`: the preemptor's own gang."""
    units: list[Unit] = []
    seen: set[str] = set()
    for info in nodes:
        for pod in info.pods.values():
            gang = gang_of(pod)
            if gang in seen or (gang and gang == exclude):
                continue
            pods = gangs.get(gang, [pod]) if gang else [pod]
            if gang:
                seen.add(gang)
            unit = _unit(pods, gang, now)
            if unit.priority < below:
                units.append(unit)
    return units


def _unit(pods: Sequence[Pod], gang: str, now: float) -> Unit:
    started = [start_seconds(pod, now) for pod in pods if pod.start_time]
    priority = max(pod.priority for pod in pods)
    return Unit(tuple(pods), priority, gang, min(started) if started else now)


def most_important_first(units: Sequence[Unit]) -> list[Unit]:
    return sorted(
        units,
        key=lambda u: (-u.priority, not u.gang, -len(u.pods), u.earliest_start),
    )


def violation_counts(units: Sequence[Unit], pdbs: Sequence[PodDisruptionBudget]) -> list[int]:
    """For each unit in order, how many of its pods would break a PodDisruptionBudget (the
    budgets' allowed disruptions are used up in that order, as upstream)."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]

    def violates(pod: Pod) -> bool:
        broken = False
        for i, pdb in enumerate(pdbs):
            if pdb.namespace != pod.namespace or pod.name in pdb.disrupted_pods:
                continue
            if not pod.labels or not _selects(pdb.selector, pod.labels):
                continue
            allowed[i] -= 1
            broken = broken or allowed[i] < 0
        return broken

    return [sum(1 for pod in unit.pods if violates(pod)) for unit in units]


def _selects(selector: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """A PDB's selector as preemption reads it: empty or invalid selects nothing."""
    match_labels = (selector or {}).get("matchLabels") or {}
    expressions = (selector or {}).get("matchExpressions") or ()
    if not match_labels and not expressions:
        return False
    if any(labels.get(key) != value for key, value in match_labels.items()):
        return False
    return all(_expression(expression, labels) for expression in expressions)


def _expression(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, values = expression.get("key", ""), expression.get("values") or ()
    operator = expression.get("operator")
    if operator == "In":
        return bool(values) and labels.get(key) in values
    if operator == "NotIn":
        return bool(values) and labels.get(key) not in values
    if operator in ("Exists", "DoesNotExist"):
        return not values and (key in labels) == (operator == "Exists")
    return False


def select(
    trial: Trial, potential: Sequence[Unit], pdbs: Sequence[PodDisruptionBudget]
) -> Chosen | None:
    """Take every potential unit off; if the preemptor's pods then fit (placed once, kept),
    give units back, most important first (those breaking a PDB before the others), each
    staying only if every placed pod still fits. None: they do not fit even so."""
    for unit in potential:
        trial.remove(unit)
    ordered = most_important_first(potential)
    counts = violation_counts(ordered, pdbs)
    if not trial.place(node_costs(ordered, counts)):
        return None
    turns = [(u, n) for u, n in zip(ordered, counts, strict=True) if n]
    turns += [(u, n) for u, n in zip(ordered, counts, strict=True) if not n]
    chosen: list[Unit] = []
    violations = 0
    for unit, count in turns:
        trial.add(unit)
        if trial.fits():
            continue
        trial.remove(unit)
        chosen.append(unit)
        violations += count
    return Chosen(tuple(most_important_first(chosen)), violations)


def node_costs(units: Sequence[Unit], counts: Sequence[int]) -> dict[str, tuple[int, int, int]]:
    """What emptying each node costs, as upstream ranks candidates: the PDB violations of
    the units with a pod there, the highest of their priorities, how many pods they have
    there; `place` fills the cheapest nodes first, so the victims given back are the ones
    that matter most."""
    costs: dict[str, tuple[int, int, int]] = {}
    for unit, count in zip(units, counts, strict=True):
        for node in {pod.node_name for pod in unit.pods}:
            there = sum(1 for pod in unit.pods if pod.node_name == node)
            old = costs.get(node, (0, -_PRIORITY_OFFSET, 0))
            costs[node] = (old[0] + count, max(old[1], unit.priority), old[2] + there)
    return costs


def rank(chosen: Chosen, now: float) -> tuple[int, int, int, int, float]:
    """Upstream `pickOneNodeForPreemption`'s criteria over the victims' pods; higher is
    better: fewest PDB violations, lowest highest priority, smallest sum of priorities,
    fewest pods, latest start of the highest-priority pods."""
    pods = chosen.pods
    highest = max(pod.priority for pod in pods)
    earliest = min(start_seconds(pod, now) for pod in pods if pod.priority == highest)
    return (
        -chosen.pdb_violations,
        -highest,
        -sum(pod.priority + _PRIORITY_OFFSET for pod in pods),
        -len(pods),
        earliest,
    )


__all__ = [
    "Chosen",
    "GangOf",
    "Trial",
    "Unit",
    "collect",
    "gang_pods",
    "most_important_first",
    "node_costs",
    "rank",
    "select",
    "violation_counts",
]
