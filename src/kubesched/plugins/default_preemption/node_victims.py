"""Victims on one node for a single preemptor (upstream `SelectVictimsOnNode` over
`GetVictimsOnNode`'s victims).

The victims are `victims.Victim`s, ordered by `victims.most_important_first`. Without the
`GenericWorkload` gate every pod is one victim at its own priority; with it a PodGroup
member counts at its group's priority, and the pods of a `disruptionMode.all` PodGroup are
one victim (also those on other nodes). Only the main node is changed on the trial copy; a
group's pods elsewhere are only told to the PreFilter extensions (with their own node's
info), as upstream does.
"""

from __future__ import annotations

from collections.abc import Sequence

from kubesched.framework import SUCCESS, Code, CycleState, NodeInfo, Status
from kubesched.framework.interfaces import FilterRunner
from kubesched.framework.status import StatusError
from kubesched.model import Pod, PodDisruptionBudget
from kubesched.plugins.default_preemption.pdb import violation_counts
from kubesched.plugins.default_preemption.victims import (
    Everywhere,
    GroupOf,
    Victim,
    collect,
    most_important_first,
)

NO_VICTIMS = "No preemption victims found for incoming pod"


class _Trial:
    def __init__(
        self,
        runner: FilterRunner,
        state: CycleState,
        preemptor: Pod,
        node: NodeInfo,
        everywhere: Everywhere,
    ) -> None:
        self.runner, self.state, self.preemptor = runner, state, preemptor
        self.node = node.clone()
        self._everywhere = everywhere

    def _info(self, pod: Pod) -> NodeInfo:
        """The node a victim's pod is counted on: another node only for a group's pods
        there; a pod of the main node's list is on the main node. The nodes by name are
        made only when a victim has pods elsewhere (a group), once per `Everywhere`."""
        if pod.node_name == self.node.name:
            return self.node
        return self._everywhere.by_name.get(pod.node_name, self.node)

    def remove(self, victim: Victim) -> None:
        for pod in victim.pods:
            info = self._info(pod)
            if info is self.node:
                self.node.remove_pod(pod.uid)
            run = self.runner.run_pre_filter_extension_remove_pod
            self._check(run(self.state, self.preemptor, pod, info))

    def add(self, victim: Victim) -> None:
        for pod in victim.pods:
            info = self._info(pod)
            if info is self.node:
                self.node.add_pod(pod)
            run = self.runner.run_pre_filter_extension_add_pod
            self._check(run(self.state, self.preemptor, pod, info))

    def fits(self) -> Status:
        return self.runner.run_filter_with_nominated_pods(self.state, self.preemptor, self.node)

    @staticmethod
    def _check(status: Status) -> None:
        if not status.is_success():
            raise StatusError(status)


def select_on_node(
    runner: FilterRunner,
    state: CycleState,
    preemptor: Pod,
    node: NodeInfo,
    pdbs: Sequence[PodDisruptionBudget],
    *,
    group_of: GroupOf | None,
    everywhere: Sequence[NodeInfo],
    now: float,
) -> tuple[list[Pod], int, Status]:
    """(victims' pods, PDB violations, status), as `evaluation.select_victims_on_node`
    says."""
    below = preemptor.priority
    if not isinstance(everywhere, Everywhere):
        everywhere = Everywhere(everywhere)
    potential = collect([node], group_of, now=now, everywhere=everywhere, below=below)
    if not potential:
        return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, NO_VICTIMS)
    trial = _Trial(runner, state.clone(), preemptor, node, everywhere)
    try:
        return _reprieve(trial, potential, pdbs)
    except StatusError as failed:
        return [], 0, failed.status


def _reprieve(
    trial: _Trial, potential: list[Victim], pdbs: Sequence[PodDisruptionBudget]
) -> tuple[list[Pod], int, Status]:
    for victim in potential:
        trial.remove(victim)
    status = trial.fits()
    if not status.is_success():
        return [], 0, status
    ordered = most_important_first(potential)
    counts = violation_counts([victim.pods for victim in ordered], pdbs)
    violating = [(v, n) for v, n in zip(ordered, counts, strict=True) if n]
    others = [v for v, n in zip(ordered, counts, strict=True) if not n]
    chosen: list[Victim] = []

    def reprieved(victim: Victim) -> bool:
        trial.add(victim)
        if trial.fits().is_success():
            return True
        trial.remove(victim)
        chosen.append(victim)
        return False

    violations = sum(n for v, n in violating if not reprieved(v))
    for victim in others:
        reprieved(victim)
    if violating and others:
        chosen = most_important_first(chosen)
    return [pod for victim in chosen for pod in victim.pods], violations, SUCCESS
