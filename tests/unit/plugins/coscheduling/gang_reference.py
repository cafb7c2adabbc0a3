"""An independent reference model of Coscheduling's gang preemption, written from its rules
(src/kubesched/plugins/coscheduling/README.md, "Gang preemption") on plain numbers: nodes
with CPU, pods with CPU and a priority, gangs of identical members. It shares no code with
the plugin; the property tests compare the plugin's decisions with it.

The rules it encodes:

- A victim is a unit: a pod of no gang alone, or all the pods of one gang. A unit may go
  only if every one of its pods has a priority strictly below the preemptor's.
- A gang preempts only if its members fit once every such unit is gone; identical members
  fit when the nodes' free room holds that many of them (a count, no search).
- Victims never leave a gang partly evicted; with them gone the members fit where the
  plugin nominated them, and each victim unit is needed there (given back, a node the plugin
  put members on overflows).
- A single pod preempts on one node: all units touching it go, then are given back most
  important first (priority, gangs first, more pods) while the pod still fits; the best node
  has the least important victims: lowest highest priority, then fewest pods, then the
  smallest sum of priorities.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class RPod:
    name: str
    node: str
    cpu: int
    priority: int
    gang: str = ""


@dataclass(frozen=True)
class World:
    nodes: Mapping[str, int]
    """Node -> CPU capacity, in node order."""
    pods: Sequence[RPod]

    def units(self, below: int, exclude: str = "") -> list[frozenset[str]]:
        """Every unit whose pods are all below `below` (names of its pods)."""
        gangs: dict[str, list[RPod]] = {}
        found: list[frozenset[str]] = []
        for pod in self.pods:
            if pod.gang:
                gangs.setdefault(pod.gang, []).append(pod)
            elif pod.priority < below:
                found.append(frozenset({pod.name}))
        for gang, pods in gangs.items():
            if gang != exclude and all(p.priority < below for p in pods):
                found.append(frozenset(p.name for p in pods))
        return found

    def free(self, gone: Iterable[str]) -> dict[str, int]:
        gone = set(gone)
        room = dict(self.nodes)
        for pod in self.pods:
            if pod.name not in gone:
                room[pod.node] -= pod.cpu
        return room

    def gang_fits(self, gone: Iterable[str], *, size: int, count: int) -> bool:
        return sum(max(room, 0) // size for room in self.free(gone).values()) >= count


def gang_decision_ok(
    world: World,
    *,
    size: int,
    count: int,
    priority: int,
    own: str,
    victims: set[str],
    hosts: Mapping[str, str],
) -> list[str]:
    """What is wrong with the plugin's decision for a gang (`victims` empty: it did not
    preempt; `hosts`: member -> node it nominated); [] when it follows the rules."""
    units = world.units(priority, exclude=own)
    possible = world.gang_fits(set().union(*units), size=size, count=count) if units else False
    if not possible:
        return [f"preempted {sorted(victims)} though the gang cannot fit"] if victims else []
    if not victims:
        return ["did not preempt though the gang fits once lower units are gone"]
    problems = _integrity(world, units, victims)
    if len(hosts) != count:
        problems.append(f"nominated {len(hosts)} members, want {count}")
    free = world.free(victims)
    placed: dict[str, int] = {}
    for node in hosts.values():
        placed[node] = placed.get(node, 0) + 1
    for node, members in placed.items():
        if free[node] < members * size:
            problems.append(f"{members} members do not fit on {node} ({free[node]} free)")
    for unit in (u for u in units if u <= victims):
        back = world.free(victims - unit)
        if all(back[node] >= members * size for node, members in placed.items()):
            problems.append(f"victim unit {sorted(unit)} was not needed")
    return problems


def _integrity(world: World, units: list[frozenset[str]], victims: set[str]) -> list[str]:
    problems = []
    covered: set[str] = set()
    for unit in units:
        if unit & victims and not unit <= victims:
            problems.append(f"unit {sorted(unit)} only partly evicted")
        if unit <= victims:
            covered |= unit
    if victims - covered:
        problems.append(f"victims {sorted(victims - covered)} are not of lower priority")
    return problems


def _important(world: World, unit: frozenset[str]) -> tuple[int, int, int]:
    pods = [p for p in world.pods if p.name in unit]
    return (-max(p.priority for p in pods), 0 if pods[0].gang else 1, -len(pods))


def _rank(pods: Sequence[RPod]) -> tuple[int, int, int]:
    """Upstream's order of candidates (smaller is better here): the highest victim
    priority, the sum of priorities each offset by 2^31 (so fewer pods first), the count."""
    return (max(p.priority for p in pods), sum(p.priority + 2**31 for p in pods), len(pods))


def _units_on(world: World, node: str, below: int) -> list[frozenset[str]]:
    """The units with a pod on `node`, in the order their first pod there is listed."""
    eligible = set(world.units(below))
    found: list[frozenset[str]] = []
    for pod in world.pods:
        unit = next((u for u in eligible if pod.name in u), None)
        if pod.node == node and unit is not None and unit not in found:
            found.append(unit)
    return found


def single_best(world: World, *, size: int, priority: int) -> tuple[int, int, int] | None:
    """The best node's victims by `_rank`, None when no node can be made to fit the pod.
    Units of equal importance are given back in the order they are listed on the node."""
    best: tuple[int, int, int] | None = None
    by_name = {p.name: p for p in world.pods}
    for node in world.nodes:
        units = _units_on(world, node, priority)
        gone: set[str] = set().union(*units) if units else set()
        if not units or world.free(gone)[node] < size:
            continue
        for unit in sorted(units, key=lambda u: _important(world, u)):
            if world.free(gone - unit)[node] >= size:
                gone -= unit
        key = _rank([by_name[n] for n in gone])
        best = key if best is None or key < best else best
    return best


def single_decision_ok(
    world: World, *, size: int, priority: int, node: str, victims: set[str]
) -> list[str]:
    """What is wrong with the plugin's decision for a pod of no gang."""
    best = single_best(world, size=size, priority=priority)
    if best is None:
        return [f"preempted {sorted(victims)} though no node can fit the pod"] if victims else []
    if not victims:
        return ["did not preempt though a node fits the pod once lower units are gone"]
    problems = _integrity(world, world.units(priority), victims)
    if world.free(victims)[node] < size:
        problems.append(f"the pod does not fit on {node} after the evictions")
    got = _rank([p for p in world.pods if p.name in victims])
    if got != best:
        problems.append(f"victims rank {got}, the best node's rank {best}")
    return problems
