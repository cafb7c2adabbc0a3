"""Putting victims back after a pod group was placed without them (the reprieve of upstream
`PodGroupEvaluator.selectVictimsOnDomain`), on the snapshot alone, as upstream's
`MutableSnapshotSharedLister` does: the cache keeps every victim set aside meanwhile.

A victim is put back on its nodes and the members' cycle states are told (PreFilter
`AddPod`); then each placed member, in order, must pass Filter (with nominated pods) on its
node, and is added to that node and reserved before the next one is filtered. The members
are then unreserved and their nodes put back as they were. If a member failed, the victim's
nodes are put back as they were before it (PreFilter `RemovePod`): it is preempted.

Shortcut (`shortcut=True`): when every Filter and Reserve plugin is kubesched's own, a
member's Filter sees a victim only through the node it filters and through its cycle
state, which the PreFilter extensions change. A victim none of whose pods is on a member's
node, and whose pods' nodes share no value with a member's node for the label keys the
running extensions say they reach (`ExtensionReach`; an extension that cannot tell reaches
every node), cannot change any member's verdict: it gets the verdict of the last check of
the members as they are now, with no Filter, Reserve or Unreserve run (those calls are the
what-if's own; a member's Reserve is undone by its Unreserve), and is neither put back on
the snapshot nor told to the extensions (no later verdict reads what that would change). A
check whose victim could change a verdict and stayed out leaves everything as it was, so
the verdict kept before it still holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from kubesched.cache import Snapshot
from kubesched.framework import Code, NodeInfo, Status
from kubesched.framework.status import StatusError
from kubesched.model import Pod, PodDisruptionBudget
from kubesched.plugins.default_preemption.pdb import violation_counts
from kubesched.plugins.default_preemption.victims import Victim
from kubesched.runtime import Framework
from kubesched.scheduler.podgroup_algorithm import MemberResult


def select_victims(
    fw: Framework,
    snapshot: Snapshot,
    placed: list[MemberResult],
    ordered: list[Victim],
    pdbs: Sequence[PodDisruptionBudget],
    *,
    shortcut: bool = True,
) -> tuple[list[Victim], int]:
    """The victims of `ordered` (most important first) that cannot be put back, PDB-violating
    ones tried first, and their PDB violations."""
    counts = violation_counts([victim.pods for victim in ordered], pdbs)
    reprieve = Reprieve(fw, snapshot, placed, shortcut=shortcut)
    chosen: list[Victim] = []
    violations = 0
    for victim, count in zip(ordered, counts, strict=True):
        if count and not reprieve(victim):
            chosen.append(victim)
            violations += count
    chosen.extend(v for v, n in zip(ordered, counts, strict=True) if not n and not reprieve(v))
    return chosen, violations


@dataclass(slots=True)
class Reprieve:
    """Tries victims one after the other on `snapshot` (see the module docstring)."""

    fw: Framework
    snapshot: Snapshot
    placed: list[MemberResult]
    shortcut: bool = True
    hosts: frozenset[str] = field(init=False)
    verdict: bool | None = field(init=False, default=None)
    """The members' verdict on their nodes as they are now (None: not checked yet)."""
    assumed: list[Pod] = field(init=False)
    """Each placed member as assumed on its node (the same object at every check)."""
    grown: dict[int, tuple[NodeInfo, int, NodeInfo]] = field(init=False, default_factory=dict)
    """Member index -> (the node it was added to, that node's generation, the copy with it):
    while the member's node is that very object, the copy is reused (snapshot nodes are
    replaced, never changed in place)."""
    extended: list[MemberResult] = field(init=False)
    """The placed members whose cycle state runs a PreFilter extension."""
    host_values: dict[str, frozenset[str]] = field(init=False, default_factory=dict)
    """Label key -> the values the members' nodes have for it."""

    def __post_init__(self) -> None:
        self.hosts = frozenset(member.host for member in self.placed)
        self.assumed = [member.qpi.pod.on_node(member.host) for member in self.placed]
        self.extended = [m for m in self.placed if self.fw.runs_pre_filter_extensions(m.state)]
        plugins = self.fw.plugins
        self.shortcut = self.shortcut and _in_tree(plugins.filter) and _in_tree(plugins.reserve)

    def __call__(self, victim: Victim) -> bool:
        """Whether every placed member still fits with `victim` back (then it stays)."""
        if not self.shortcut:
            return self._check(victim)
        reaches = self._reaches_members(victim)
        if not reaches and self.verdict is not None:
            return self.verdict
        fits = self._check(victim)
        if fits or not reaches:
            self.verdict = fits
        return fits

    def _reaches_members(self, victim: Victim) -> bool:
        """Whether putting `victim` back may change a member's Filter verdict: one of its
        pods is on a member's node, or an extension's reach (`ExtensionReach`) ties its node
        to a member's node."""
        for pod in victim.pods:
            if pod.node_name in self.hosts:
                return True
            info = self.snapshot.get(pod.node_name) if self.extended else None
            if info is None:  # no extension runs, or not in the snapshot: never read
                continue
            labels = info.node.labels
            for member in self.extended:
                keys = self.fw.pre_filter_extension_reach(member.state, member.qpi.pod, pod, info)
                if keys is None:
                    return True
                for key in keys:
                    value = labels.get(key)
                    if value is not None and value in self._host_values(key):
                        return True
        return False

    def _host_values(self, key: str) -> frozenset[str]:
        values = self.host_values.get(key)
        if values is None:
            infos = (self.snapshot.get(host) for host in self.hosts)
            found = (info.node.labels.get(key) for info in infos if info is not None)
            values = self.host_values[key] = frozenset(v for v in found if v is not None)
        return values

    def _check(self, victim: Victim) -> bool:
        before = self._put_back(victim.pods)
        self._extensions(victim, add=True)
        fits = self._members_fit()
        if not fits:
            for info in before.values():
                self.snapshot.put(info)
            self._extensions(victim, add=False)
        return fits

    def _put_back(self, pods: Sequence[Pod]) -> dict[str, NodeInfo]:
        """Add `pods` to copies of their snapshot nodes; the nodes they replaced."""
        before: dict[str, NodeInfo] = {}
        grown: dict[str, NodeInfo] = {}
        for pod in pods:
            name = pod.node_name
            info = grown.get(name)
            if info is None:
                current = self.snapshot.get(name)
                if current is None:
                    continue
                before[name] = current
                info = grown[name] = current.clone()
            info.add_pod(pod)
        for info in grown.values():
            self.snapshot.put(info)
        return before

    def _members_fit(self) -> bool:
        """Each member filtered on its node, then added to it and reserved; all undone."""
        fw, snapshot = self.fw, self.snapshot
        reserved: list[tuple[MemberResult, Pod]] = []
        originals: dict[str, NodeInfo] = {}
        try:
            for index, member in enumerate(self.placed):
                info = snapshot.get(member.host)
                if info is None:
                    return False
                status = fw.run_filter_with_nominated_pods(member.state, member.qpi.pod, info)
                if not status.is_success():
                    return False
                assumed = self.assumed[index]
                originals.setdefault(member.host, info)
                snapshot.put(self._with_member(index, info, assumed))
                fw.run_reserve(member.state, assumed, member.host)
                reserved.append((member, assumed))
            return True
        finally:
            for member, assumed in reversed(reserved):
                fw.run_unreserve(member.state, assumed, member.host)
            for info in originals.values():
                snapshot.put(info)

    def _with_member(self, index: int, info: NodeInfo, assumed: Pod) -> NodeInfo:
        """`info` with member `index` added (a copy, kept while `info` is the node)."""
        kept = self.grown.get(index)
        if kept is not None and kept[0] is info and kept[1] == info.generation:
            return kept[2]
        grown = info.clone()
        grown.add_pod(assumed)
        self.grown[index] = (info, info.generation, grown)
        return grown

    def _extensions(self, victim: Victim, *, add: bool) -> None:
        """Tell the members' cycle states that the victim's pods came back (or left)."""
        fw = self.fw
        run = fw.run_pre_filter_extension_add_pod if add else fw.run_pre_filter_extension_remove_pod
        for pod in victim.pods:
            info = self.snapshot.get(pod.node_name)
            if info is None:
                continue
            for member in self.placed:
                status = run(member.state, member.qpi.pod, pod, info)
                if not status.is_success():
                    raise StatusError(Status(Code.ERROR, status.message))


def _in_tree(plugins: Sequence[object]) -> bool:
    """Whether every plugin is one of kubesched's own, whose Filter reads no node but the
    one it is given and whose Reserve is undone by its Unreserve (the shortcut's premise;
    a plugin of the user's may read the whole snapshot)."""
    return all(type(pl).__module__.startswith(_IN_TREE) for pl in plugins)


_IN_TREE = "kubesched.plugins."
