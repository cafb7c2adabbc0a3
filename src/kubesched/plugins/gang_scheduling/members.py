"""Who belongs to a native PodGroup and how many of them are placed: upstream's
`PodGroupState` counts, from the pod lister (indexed by group) plus the members this
plugin saw reserved.
Testable without the framework."""

from __future__ import annotations

from dataclasses import dataclass, field

from kubesched.framework.listers import Lister
from kubesched.model import Pod, pod_group_key


class GroupPods:
    """The pods of each native PodGroup, kept from the pod lister's changes (and seeded
    with what it holds): a group's pods without a scan of its whole namespace, which made
    PreEnqueue and Permit cost the namespace's pods for each member (upstream keeps a
    PodGroupState per group)."""

    def __init__(self, pods: Lister[Pod]) -> None:
        self._groups: dict[tuple[str, str], dict[str, Pod]] = {}
        pods.subscribe(self.changed)
        for pod in pods.list():
            self.changed(None, pod)

    def changed(self, old: Pod | None, new: Pod | None) -> None:
        """A pod lister listener."""
        if old is not None and old.pod_group_name:
            key = (old.namespace, old.pod_group_name)
            group = self._groups.get(key)
            if group is not None:
                group.pop(old.name, None)
                if not group:
                    del self._groups[key]
        if new is not None and new.pod_group_name:
            self._groups.setdefault((new.namespace, new.pod_group_name), {})[new.name] = new

    def of(self, namespace: str, group: str) -> list[Pod]:
        """The pods the lister holds that name `namespace/group`."""
        return list(self._groups.get((namespace, group), {}).values())


def members(groups: GroupPods, of: Pod) -> list[Pod]:
    """The non-terminal members of `of`'s PodGroup the scheduler knows, as upstream's
    PodGroupState: those bound (by any scheduler) and the pending ones for `of`'s scheduler
    (kube-scheduler counts only pending pods a profile of its own is responsible for)."""
    return [
        pod
        for pod in groups.of(of.namespace, of.pod_group_name)
        if pod.node_name or pod.scheduler_name == of.scheduler_name
    ]


@dataclass(slots=True)
class Reservations:
    """Members assumed on a node (Reserve ran, not undone by Unreserve), per group key."""

    _assumed: dict[str, set[str]] = field(default_factory=dict)

    def reserve(self, pod: Pod) -> None:
        key = pod_group_key(pod)
        if key:
            self._assumed.setdefault(key, set()).add(pod.uid)

    def unreserve(self, pod: Pod) -> None:
        key = pod_group_key(pod)
        assumed = self._assumed.get(key)
        if assumed is not None:
            assumed.discard(pod.uid)
            if not assumed:
                del self._assumed[key]

    def scheduled(self, key: str, group_pods: list[Pod]) -> set[str]:
        """UIDs of the members bound or assumed (`ScheduledPodsCount`); members gone or
        bound since they were reserved are forgotten here."""
        uids = {pod.uid for pod in group_pods}
        bound = {pod.uid for pod in group_pods if pod.node_name}
        assumed = (self._assumed.get(key, set()) & uids) - bound
        if assumed:
            self._assumed[key] = assumed
        else:
            self._assumed.pop(key, None)
        return bound | assumed
