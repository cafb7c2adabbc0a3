"""A reference model of scheduler-plugins' CapacityScheduling (v0.35.4-devel), written from
its sources (pkg/capacityscheduling) and kube-scheduler's preemption evaluator, apart from
kubesched's plugin: what a pod of a scenario (harness/quota_scenario.py) may do next.

    state = ClusterState(scenario)
    expected = expect(state, pod)       # the outcomes the rules allow
    problems = expected.check(observed) # [] when `observed` is one of them
    state.apply(pod, observed)          # what really happened, for the next pod

The rules, as upstream writes them:

* PreFilter: `used + request > max` refuses (`... ElasticQuota <ns> is more than Max`), then
  the sum of every quota's used plus the request above the sum of their `min`s
  (`... total ElasticQuota used is more than min`). cpu, memory, ephemeral-storage and pods
  compare as named (absent: 0, or unlimited for a quota without `max`); an extended
  resource only when the request names it, unlimited under `max` and 0 under `min` when the
  quota leaves it out.
* Placement: NodeResourcesFit's filter and its LeastAllocated score on cpu and memory (the
  only scorer both sides run); ties are random.
* PostFilter, per node: the pods of the node are walked from the least important up; a
  preemptor whose request takes its quota over `min` collects lower-priority pods of its own
  namespace, otherwise pods of other quotas while *their* quota is over `min` (each pod
  collected is taken off the quota snapshot, so a quota stops giving pods once it is back
  within `min`); a preemptor without a quota collects lower-priority pods of namespaces
  without one. With all of them gone the pod must fit and the quotas hold; then they are
  given back from the most important down, each staying a victim when the pod no longer
  fits or the quotas no longer hold with it. Pods of equal priority have no start time
  (there is no kubelet): every order among them is allowed, so the model keeps every
  outcome. The node is picked by the fewest PDB violations, the lowest highest victim
  priority, the lowest priority sum, the fewest victims; the rest is a random tie.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tests.e2e.harness.quota_scenario import GPU, MIB, Amount, Node, PodSpec, Scenario

MAX = 2**63 - 1
BASE = ("cpu", "memory", "ephemeral-storage", "pods")
DEFAULT_CPU, DEFAULT_MEMORY = 100, 200
"""What scoring counts for a pod without a cpu (millicores) or memory (MiB) request."""
Res = dict[str, int]
"""cpu in millicores, memory in bytes; extended resources only when named."""


def res_of(amount: Amount, *, gpu: bool) -> Res:
    listed = {"cpu": amount.cpu, "memory": amount.memory * MIB, "ephemeral-storage": 0, "pods": 0}
    if gpu:
        listed[GPU] = amount.gpu
    return listed


def request_of(pod: PodSpec) -> Res:
    return res_of(pod.request, gpu=pod.request.gpu > 0)


def bound(value: int) -> Res:
    return {"cpu": value, "memory": value, "ephemeral-storage": value, "pods": 0}


def total(items: Iterable[Mapping[str, int]]) -> Res:
    summed: Res = dict.fromkeys(BASE, 0)
    for item in items:
        for name, value in item.items():
            summed[name] = summed.get(name, 0) + value
    return summed


def over(x1: Mapping[str, int], x2: Mapping[str, int], y: Mapping[str, int], limit: int) -> bool:
    """scheduler-plugins' `cmp2`: x1 + x2 > y in any resource (extended ones of x1 only)."""
    if any(x1.get(n, 0) + x2.get(n, 0) > y.get(n, 0) for n in BASE):
        return True
    return any(v + x2.get(n, 0) > y.get(n, limit) for n, v in x1.items() if n not in BASE)


@dataclass(frozen=True)
class Placed:
    pod: PodSpec
    node: str


@dataclass
class ClusterState:
    """One side's cluster as the model sees it: the bound pods of the scenario."""

    scenario: Scenario
    placed: dict[str, Placed] = field(default_factory=dict)
    stale: dict[str, Placed] = field(default_factory=dict)
    """Pods gone from their nodes that the quotas still count (a lagging quota book)."""

    def __post_init__(self) -> None:
        self.mins = {
            q.namespace: bound(0) if q.min is None else res_of(q.min, gpu=q.with_gpu)
            for q in self.scenario.quotas
        }
        self.maxs = {
            q.namespace: bound(MAX) if q.max is None else res_of(q.max, gpu=q.with_gpu)
            for q in self.scenario.quotas
        }

    def apply(self, pod: PodSpec, node: str, victims: Iterable[str]) -> None:
        for name in victims:
            self.placed.pop(name, None)
        if node:
            self.placed[pod.name] = Placed(pod, node)

    def used(self, gone: frozenset[str] = frozenset()) -> dict[str, Res]:
        counted = [p for name, p in self.placed.items() if name not in gone]
        counted += self.stale.values()
        return {
            ns: total(request_of(p.pod) for p in counted if p.pod.namespace == ns)
            for ns in self.mins
        }

    def evicted_but_counted(self, victims: Iterable[str]) -> ClusterState:
        """A copy where `victims` left their nodes but the quotas still count them."""
        copy = ClusterState(self.scenario, dict(self.placed), dict(self.stale))
        for name in victims:
            copy.stale[name] = copy.placed.pop(name)
        return copy

    def verdict(self, pod: PodSpec, used: Mapping[str, Res]) -> str:
        """ "" when the quotas admit `pod` with `used`, else "max" or "min"."""
        if pod.namespace not in self.mins:
            return ""
        request = request_of(pod)
        if over(request, used[pod.namespace], self.maxs[pod.namespace], MAX):
            return "max"
        everyone = total([*used.values(), request])
        return "min" if over(everyone, {}, total(self.mins.values()), 0) else ""

    def on_node(self, node: str, gone: frozenset[str] = frozenset()) -> list[PodSpec]:
        return [p.pod for n, p in self.placed.items() if p.node == node and n not in gone]

    def fits(self, pod: PodSpec, node: str, gone: frozenset[str] = frozenset()) -> bool:
        alloc = self._node(node).allocatable
        pods = self.on_node(node, gone)
        return (
            sum(p.request.cpu for p in pods) + pod.request.cpu <= alloc.cpu
            and sum(p.request.memory for p in pods) + pod.request.memory <= alloc.memory
            and sum(p.request.gpu for p in pods) + pod.request.gpu <= alloc.gpu
        )

    def score(self, pod: PodSpec, node: str, gone: frozenset[str] = frozenset()) -> int:
        """NodeResourcesFit's LeastAllocated score (cpu and memory, weight 1 each; a pod
        that requests no memory counts 200Mi, as upstream's non-zero requests)."""
        alloc = self._node(node).allocatable
        pods = [*self.on_node(node, gone), pod]
        scores = []
        for capacity, requested in (
            (alloc.cpu, sum(p.request.cpu or DEFAULT_CPU for p in pods)),
            (alloc.memory * MIB, sum((p.request.memory or DEFAULT_MEMORY) * MIB for p in pods)),
        ):
            scores.append(0 if requested > capacity else (capacity - requested) * 100 // capacity)
        return sum(scores) // len(scores)

    def best_nodes(self, pod: PodSpec, gone: frozenset[str] = frozenset()) -> frozenset[str]:
        """The feasible nodes of the top score (empty when none is feasible)."""
        feasible = [n.name for n in self.scenario.nodes if self.fits(pod, n.name, gone)]
        if not feasible:
            return frozenset()
        top = max(self.score(pod, n, gone) for n in feasible)
        return frozenset(n for n in feasible if self.score(pod, n, gone) == top)

    def _node(self, name: str) -> Node:
        return next(n for n in self.scenario.nodes if n.name == name)
