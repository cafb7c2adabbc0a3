"""Why a pod fits nowhere: per-node statuses, the rejecting plugins, and the FitError message
(the errors the scheduling cycle raises with them are `kubesched.runtime.errors`).

The FitError text is exactly kube-scheduler's, e.g.
`0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {k: v}.`
(reasons counted over nodes, each entry "<count> <reason>", entries sorted as strings).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import Protocol

from kubesched.framework.status import Code, Status

NO_NODES_AVAILABLE_MESSAGE = "no nodes available to schedule pods"
_NAME = attrgetter("name")


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class NodeToStatus:
    """Statuses of rejected nodes, plus one status shared by nodes not listed (upstream
    `NodeToStatus`): PreFilter rejections and PreFilterResult exclusions apply to all of
    those absent nodes at once.

    A filter scan hands its rejections over with `defer` (the kept results of a run of
    nodes in bulk): they are recorded, in order, when the statuses are first read or set,
    so a pod that fits somewhere does not pay a step per rejected node. The nodes of all
    deferred rejections must be distinct (one scan meets each node once)."""

    __slots__ = ("_deferred", "_deferred_count", "_statuses", "absent_nodes_status")

    def __init__(self) -> None:
        self._statuses: dict[str, Status] = {}
        self._deferred: list[tuple[Sequence[_Named], Sequence[Status]]] = []
        self._deferred_count = 0
        self.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        """The status of nodes without an entry (no reasons by default)."""

    def defer(self, nodes: Sequence[_Named], statuses: Sequence[Status]) -> None:
        """`nodes[i]` was rejected with `statuses[i]`; recorded when first needed."""
        self._deferred.append((nodes, statuses))
        self._deferred_count += len(nodes)

    def _flush(self) -> None:
        pending, self._deferred, self._deferred_count = self._deferred, [], 0
        for nodes, statuses in pending:
            self._statuses.update(zip(map(_NAME, nodes), statuses, strict=True))

    def set(self, node_name: str, status: Status) -> None:
        if self._deferred:
            self._flush()
        self._statuses[node_name] = status

    def set_many(self, pairs: Iterable[tuple[str, Status]]) -> None:
        if self._deferred:
            self._flush()
        self._statuses.update(pairs)

    def get(self, node_name: str) -> Status:
        if self._deferred:
            self._flush()
        return self._statuses.get(node_name, self.absent_nodes_status)

    def items(self) -> Sequence[tuple[str, Status]]:
        if self._deferred:
            self._flush()
        return list(self._statuses.items())

    def values(self) -> Sequence[Status]:
        if self._deferred:
            self._flush()
        return list(self._statuses.values())

    def __len__(self) -> int:
        """The nodes with a status. Deferred rejections are of distinct nodes (one filter
        scan meets each node once), so they are counted without recording them unless a
        node's status was also set directly."""
        if self._deferred and self._statuses:
            self._flush()
        return len(self._statuses) + self._deferred_count

    def __contains__(self, node_name: object) -> bool:
        if self._deferred:
            self._flush()
        return node_name in self._statuses


class Diagnosis:
    """What the filtering phase learned about a pod that could not be placed."""

    __slots__ = (
        "_pending_plugins",
        "_unread",
        "_unschedulable_plugins",
        "node_to_status",
        "post_filter_msg",
        "pre_filter_msg",
    )

    def __init__(
        self,
        *,
        node_to_status: NodeToStatus | None = None,
        unschedulable_plugins: set[str] | None = None,
        pending_plugins: set[str] | None = None,
        pre_filter_msg: str = "",
        post_filter_msg: str = "",
    ) -> None:
        self.node_to_status = NodeToStatus() if node_to_status is None else node_to_status
        self._unschedulable_plugins = (
            set() if unschedulable_plugins is None else unschedulable_plugins
        )
        self._pending_plugins = set() if pending_plugins is None else pending_plugins
        self._unread: list[Sequence[Status]] = []
        self.pre_filter_msg = pre_filter_msg
        self.post_filter_msg = post_filter_msg

    @property
    def unschedulable_plugins(self) -> set[str]:
        """Plugins that rejected the pod (the queue requeues it on their events)."""
        if self._unread:
            self._read_deferred()
        return self._unschedulable_plugins

    @unschedulable_plugins.setter
    def unschedulable_plugins(self, plugins: set[str]) -> None:
        if self._unread:
            self._read_deferred()
        self._unschedulable_plugins = plugins

    @property
    def pending_plugins(self) -> set[str]:
        """Plugins that parked the pod (Pending)."""
        if self._unread:
            self._read_deferred()
        return self._pending_plugins

    @pending_plugins.setter
    def pending_plugins(self, plugins: set[str]) -> None:
        if self._unread:
            self._read_deferred()
        self._pending_plugins = plugins

    def defer_rejections(self, nodes: Sequence[_Named], statuses: Sequence[Status]) -> None:
        """`nodes[i]` was rejected with `statuses[i]` (known before this cycle): recorded
        in `node_to_status` and the plugin sets only when they are read."""
        self.node_to_status.defer(nodes, statuses)
        self._unread.append(statuses)

    def _read_deferred(self) -> None:
        pending, self._unread = self._unread, []
        distinct = {id(status): status for statuses in pending for status in statuses}
        for status in distinct.values():
            self.add_plugin_status(status)

    def add_plugin_status(self, status: Status) -> None:
        """Remember which plugin rejected (or parked) the pod (upstream `AddPluginStatus`)."""
        if not status.plugin:
            return
        if status.is_rejected():
            self.unschedulable_plugins.add(status.plugin)
        if status.code is Code.PENDING:
            self.pending_plugins.add(status.plugin)


def fit_error_message(*, num_all_nodes: int, diagnosis: Diagnosis) -> str:
    """`0/N nodes are available: <PreFilterMsg or counted Filter reasons>. <PostFilterMsg>`."""
    message = f"0/{num_all_nodes} nodes are available:"
    if diagnosis.pre_filter_msg:
        message += f" {diagnosis.pre_filter_msg}."
    else:
        histogram = _reason_histogram(
            num_all_nodes=num_all_nodes, statuses=diagnosis.node_to_status
        )
        if histogram:
            message += f" {', '.join(histogram)}."
    if diagnosis.post_filter_msg:
        message += f" {diagnosis.post_filter_msg}"
    return message


def _reason_histogram(*, num_all_nodes: int, statuses: NodeToStatus) -> list[str]:
    counts: Counter[str] = Counter()
    for status in statuses.values():
        counts.update(status.reasons)
    absent = num_all_nodes - len(statuses)
    if absent > 0:
        for reason in statuses.absent_nodes_status.reasons:
            counts[reason] += absent
    return sorted(f"{count} {reason}" for reason, count in counts.items())
