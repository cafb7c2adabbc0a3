"""CapacityScheduling's victims on one node (scheduler-plugins' `SelectVictimsOnNode`).

Which pods may be victims depends on the preemptor's quota:

* its namespace has a quota and the pod's request (with the nominated pods of its
  namespace) takes it over `min`: pods of its own namespace with lower priority (it is
  over its guarantee, so it may only displace its own less important pods);
* its quota stays within `min`: pods of *other* namespaces whose quota is over its `min`
  (they borrow what this quota is guaranteed), whatever their priority;
* its namespace has no quota: pods of namespaces without a quota, of lower priority.

The node's pods are walked from the least important (lower priority, then later start) and
every candidate is taken off a copy of the node and out of the quota snapshot (through the
PreFilter extensions) as it is met, so another quota gives pods only while it is still over
its `min` (as upstream: taking a borrower below its guarantee is not allowed). If the
preemptor then fails Filter, or would take its quota over
`max` or all quotas over the sum of their `min`s (`global quota max exceeded`), the node
cannot help. Otherwise candidates are given back from the most important (higher priority,
then earlier start), those whose eviction would break a PodDisruptionBudget first, and a
candidate stays a victim when the preemptor no longer fits with it or the quotas would be
exceeded with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from kubesched.framework import SUCCESS, Code, CycleState, NodeInfo, Status
from kubesched.framework.interfaces import FilterRunner
from kubesched.framework.status import StatusError
from kubesched.model import Pod, PodDisruptionBudget
from kubesched.plugins.capacity_scheduling.core import (
    PRE_FILTER_KEY,
    SNAPSHOT_KEY,
    PreFilterState,
    QuotaSnapshot,
)
from kubesched.plugins.capacity_scheduling.quota import QuotaInfos
from kubesched.plugins.helper.selectors import SelectorError, compile_selector

GLOBAL_MAX_EXCEEDED = "global quota max exceeded"
NO_SNAPSHOT = "Failed to read elasticQuotaSnapshot from cycleState"
NO_PRE_FILTER_STATE = "Failed to read preFilterState from cycleState"


def start_seconds(pod: Pod, now: float) -> float:
    """`status.startTime` as epoch seconds; `now` for a pod not started (upstream)."""
    try:
        return datetime.fromisoformat(pod.start_time).timestamp() if pod.start_time else now
    except ValueError:
        return now


def most_important_first(pods: Sequence[Pod], now: float) -> list[Pod]:
    """Higher priority first, then the earlier start (upstream `MoreImportantPod`)."""
    return sorted(pods, key=lambda pod: (-pod.priority, start_seconds(pod, now)))


def may_evict(pod: Pod, preemptor: Pod, infos: QuotaInfos, *, own_over_min: bool) -> bool:
    """Whether the preemptor's quota lets it evict `pod` (see the module docstring);
    `own_over_min`: the preemptor's request takes its quota over `min`."""
    quota = infos.get(pod.namespace)
    if preemptor.namespace not in infos:
        return quota is None and pod.priority < preemptor.priority
    if quota is None:
        return False
    if own_over_min:
        return pod.namespace == preemptor.namespace and pod.priority < preemptor.priority
    return pod.namespace != preemptor.namespace and quota.used_over_min()


def own_over_min(preemptor: Pod, infos: QuotaInfos, state: PreFilterState) -> bool:
    """Whether the preemptor (with the pods nominated in its namespace) takes its quota
    over `min`; False without a quota."""
    own = infos.get(preemptor.namespace)
    return own is not None and own.used_over_min_with(state.in_quota_with_pod)


def split_by_pdb(
    pods: Sequence[Pod], pdbs: Sequence[PodDisruptionBudget]
) -> tuple[list[Pod], list[Pod]]:
    """(violating, non-violating), each in the given order: a pod violates a budget whose
    `disruptionsAllowed` the pods before it and itself take below zero (pods listed in
    `disruptedPods` are not counted; a missing, empty or invalid selector selects nothing)."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[Pod] = []
    others: list[Pod] = []
    for pod in pods:
        broken = False
        for i, pdb in enumerate(pdbs if pod.labels else ()):
            if pdb.namespace != pod.namespace or not _selects(pdb, pod):
                continue
            if pod.name in pdb.disrupted_pods:
                continue
            allowed[i] -= 1
            broken = broken or allowed[i] < 0
        (violating if broken else others).append(pod)
    return violating, others


def _selects(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    try:
        selector = compile_selector(pdb.selector)
    except SelectorError:
        return False
    return not selector.empty and selector.matches(pod.labels)


class _Trial:
    """A copy of the node and the cycle state, pods taken off and given back."""

    def __init__(
        self, runner: FilterRunner, state: CycleState, pod: Pod, node: NodeInfo, *, now: float
    ) -> None:
        self.runner, self.state, self.preemptor, self.now = runner, state, pod, now
        self.node = node.clone()

    def remove(self, pod: Pod) -> None:
        if self.node.remove_pod(pod.uid) is None:
            message = f"no corresponding pod {pod.name} in pods of node {self.node.name}"
            raise StatusError(Status(Code.ERROR, message))
        run = self.runner.run_pre_filter_extension_remove_pod
        _check(run(self.state, self.preemptor, pod, self.node))

    def add(self, pod: Pod) -> None:
        self.node.add_pod(pod)
        run = self.runner.run_pre_filter_extension_add_pod
        _check(run(self.state, self.preemptor, pod, self.node))

    def fits(self) -> bool:
        return self.filter().is_success()

    def filter(self) -> Status:
        return self.runner.run_filter_with_nominated_pods(self.state, self.preemptor, self.node)


def _check(status: Status) -> None:
    if not status.is_success():
        raise StatusError(status)


def least_important_first(pods: Iterable[Pod], now: float) -> list[Pod]:
    """Lower priority first, then the later start (upstream's walk of a node's pods)."""
    return sorted(pods, key=lambda pod: (pod.priority, -start_seconds(pod, now)))


def _collect(trial: _Trial, snapshot: QuotaSnapshot, state: PreFilterState) -> list[Pod]:
    """Take the pods the preemptor's quota lets it evict off the trial, the least important
    first. Each one taken leaves the quota snapshot, so a quota over its `min` gives pods
    only until it is back within it (upstream re-reads the quota for every pod)."""
    infos = snapshot.infos
    over = own_over_min(trial.preemptor, infos, state)
    taken = []
    for pod in least_important_first(trial.node.pods.values(), trial.now):
        if may_evict(pod, trial.preemptor, infos, own_over_min=over):
            trial.remove(pod)
            taken.append(pod)
    return taken


def select_victims_on_node(
    runner: FilterRunner,
    state: CycleState,
    preemptor: Pod,
    node: NodeInfo,
    pdbs: Sequence[PodDisruptionBudget],
    *,
    now: float,
) -> tuple[list[Pod], int, Status]:
    """(victims most important first, how many break a PDB, status) on a copy of `node`.

    `state` is a clone of the cycle's state: the quota snapshot in it is changed."""
    snapshot = state.get(SNAPSHOT_KEY)
    if snapshot is None:
        return [], 0, Status(Code.UNSCHEDULABLE, NO_SNAPSHOT)
    pre_filter_state = state.get(PRE_FILTER_KEY)
    if pre_filter_state is None:
        return [], 0, Status(Code.UNSCHEDULABLE, NO_PRE_FILTER_STATE)
    trial = _Trial(runner, state, preemptor, node, now=now)
    try:
        potential = _collect(trial, snapshot, pre_filter_state)
        if not potential:
            message = f"No victims found on node {node.name} for preemptor pod {preemptor.name}"
            return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, message)
        return _reprieve(
            trial, snapshot=snapshot, pre=pre_filter_state, potential=potential, pdbs=pdbs, now=now
        )
    except StatusError as failed:
        return [], 0, failed.status


def _reprieve(
    trial: _Trial,
    *,
    snapshot: QuotaSnapshot,
    pre: PreFilterState,
    potential: list[Pod],
    pdbs: Sequence[PodDisruptionBudget],
    now: float,
) -> tuple[list[Pod], int, Status]:
    status = trial.filter()
    if not status.is_success():
        return [], 0, status
    own = snapshot.infos.get(trial.preemptor.namespace)
    if own is not None and (
        own.used_over_max_with(pre.pod_request)
        or snapshot.infos.aggregated_used_over_min_with(pre.pod_request)
    ):
        return [], 0, Status(Code.UNSCHEDULABLE, GLOBAL_MAX_EXCEEDED)
    violating, others = split_by_pdb(most_important_first(potential, now), pdbs)
    victims: list[Pod] = []

    def over_quota() -> bool:
        return own is not None and (
            own.used_over_max_with(pre.in_quota_with_pod)
            or snapshot.infos.aggregated_used_over_min_with(pre.all_with_pod)
        )

    def reprieve(pod: Pod) -> bool:
        trial.add(pod)
        fits = trial.fits()
        if not fits:
            trial.remove(pod)
            victims.append(pod)
        if over_quota():
            trial.remove(pod)
            victims.append(pod)
        return fits

    violations = sum(1 for pod in violating if not reprieve(pod))
    for pod in others:
        reprieve(pod)
    if violating and others:
        victims = most_important_first(victims, now)
    return victims, violations, SUCCESS
