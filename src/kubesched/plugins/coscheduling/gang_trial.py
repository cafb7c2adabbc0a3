"""The what-if cluster of Coscheduling's gang preemption: node copies with victims taken off,
the preemptor's pods (a gang's pending members, or one pod) filtered by the profile's own
Filter plugins (`FilterRunner`), each with its own cycle state kept current through the
PreFilter extensions, as upstream's preemption does. The snapshot is never changed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from kubesched.framework import Code, CycleState, NodeInfo, Status
from kubesched.framework.interfaces import FilterRunner
from kubesched.framework.status import StatusError
from kubesched.model import Pod
from kubesched.plugins.coscheduling.gang_victims import Unit


@dataclass(slots=True)
class Member:
    """A pod to place, its cycle state after PreFilter, and the nodes it may go to (None:
    any)."""

    pod: Pod
    state: CycleState
    nodes: AbstractSet[str] | None = None


class ClusterTrial:
    """`gang_victims.Trial` over node copies (each node copied when first changed)."""

    def __init__(
        self, runner: FilterRunner, members: Sequence[Member], nodes: Sequence[NodeInfo]
    ) -> None:
        self._runner = runner
        self._members = list(members)
        self._order = [info.name for info in nodes]
        self._nodes = {info.name: info for info in nodes}
        self._copied: set[str] = set()
        self.hosts: dict[str, str] = {}
        """Member UID -> its node, once placed."""

    def node(self, name: str) -> NodeInfo | None:
        """The node as the trial has it now."""
        return self._nodes.get(name)

    def _copy(self, name: str) -> NodeInfo | None:
        info = self._nodes.get(name)
        if info is None or name in self._copied:
            return info
        info = self._nodes[name] = info.clone()
        self._copied.add(name)
        return info

    def remove(self, unit: Unit) -> None:
        for pod in unit.pods:
            info = self._copy(pod.node_name)
            if info is None or info.remove_pod(pod.uid) is None:
                continue
            self._tell(pod, info, add=False)

    def add(self, unit: Unit) -> None:
        for pod in unit.pods:
            info = self._copy(pod.node_name)
            if info is None or pod.uid in info.pods:
                continue
            info.add_pod(pod)
            self._tell(pod, info, add=True)

    def _tell(self, pod: Pod, info: NodeInfo, *, add: bool, skip: str = "") -> None:
        """Tell every member's state that `pod` joined (or left) `info`."""
        for member in self._members:
            if member.pod.uid == skip:
                continue
            if add:
                status = self._runner.run_pre_filter_extension_add_pod(
                    member.state, member.pod, pod, info
                )
            else:
                status = self._runner.run_pre_filter_extension_remove_pod(
                    member.state, member.pod, pod, info
                )
            if not status.is_success():
                raise StatusError(status)

    def _filter(self, member: Member, name: str) -> Status | None:
        info = self._nodes.get(name)
        if info is None or (member.nodes is not None and name not in member.nodes):
            return None
        return self._runner.run_filter_with_nominated_pods(member.state, member.pod, info)

    def place(self, costs: Mapping[str, tuple[int, int, int]]) -> bool:
        """Each member on the first node it passes Filter on, the cheapest first (nodes
        nothing was taken off before all others, then by `costs`, then in order), members
        counted as they are placed; then taken off again (`fits` re-places them). False if
        one fits nowhere."""
        hosts: dict[str, str] = {}
        order = sorted(self._order, key=lambda name: costs.get(name, _FREE))
        try:
            for member in self._members:
                host = next((n for n in order if _ok(self._filter(member, n))), "")
                if not host:
                    return False
                hosts[member.pod.uid] = host
                self._assume(member, host)
        finally:
            self._forget(hosts)
        self.hosts = hosts
        return True

    def fits(self) -> bool:
        taken: dict[str, str] = {}
        try:
            for member in self._members:
                host = self.hosts[member.pod.uid]
                if not _ok(self._filter(member, host)):
                    return False
                taken[member.pod.uid] = host
                self._assume(member, host)
            return True
        finally:
            self._forget(taken)

    def _assume(self, member: Member, host: str) -> None:
        info = self._copy(host)
        if info is None:  # the host passed Filter, so it exists
            raise StatusError(Status(Code.ERROR, f"node {host} not found"))
        placed = member.pod.on_node(host)
        info.add_pod(placed)
        self._tell(placed, info, add=True, skip=member.pod.uid)

    def _forget(self, hosts: dict[str, str]) -> None:
        by_uid = {member.pod.uid: member for member in self._members}
        for uid, host in reversed(hosts.items()):
            info = self._nodes[host]
            placed = info.remove_pod(uid)
            if placed is not None:
                self._tell(placed, info, add=False, skip=by_uid[uid].pod.uid)


_FREE = (0, -(2**31) - 1, 0)
"""The cost of a node nothing is taken off: below any other."""


def _ok(status: Status | None) -> bool:
    return status is not None and status.is_success()


__all__ = ["ClusterTrial", "Member"]
