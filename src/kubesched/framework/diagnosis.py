"""Why a pod fits nowhere: per-node statuses, the rejecting plugins, and the FitError message
(the errors the scheduling cycle raises with them are `kubesched.runtime.errors`).

The FitError text is exactly kube-scheduler's, e.g.
`0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {k: v}.`
(reasons counted over nodes, each entry "<count> <reason>", entries sorted as strings).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kubesched.framework.status import Code, Status

NO_NODES_AVAILABLE_MESSAGE = "no nodes available to schedule pods"


class NodeToStatus:
    """Statuses of rejected nodes, plus one status shared by nodes not listed (upstream
    `NodeToStatus`): PreFilter rejections and PreFilterResult exclusions apply to all of
    those absent nodes at once."""

    __slots__ = ("_statuses", "absent_nodes_status")

    def __init__(self) -> None:
        self._statuses: dict[str, Status] = {}
        self.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        """The status of nodes without an entry (no reasons by default)."""

    def set(self, node_name: str, status: Status) -> None:
        self._statuses[node_name] = status

    def set_many(self, pairs: Iterable[tuple[str, Status]]) -> None:
        self._statuses.update(pairs)

    def get(self, node_name: str) -> Status:
        return self._statuses.get(node_name, self.absent_nodes_status)

    def items(self) -> Sequence[tuple[str, Status]]:
        return list(self._statuses.items())

    def values(self) -> Sequence[Status]:
        return list(self._statuses.values())

    def __len__(self) -> int:
        return len(self._statuses)

    def __contains__(self, node_name: object) -> bool:
        return node_name in self._statuses


@dataclass(slots=True)
class Diagnosis:
    """What the filtering phase learned about a pod that could not be placed."""

    node_to_status: NodeToStatus = field(default_factory=NodeToStatus)
    unschedulable_plugins: set[str] = field(default_factory=set)
    """Plugins that rejected the pod (the queue requeues it on their events)."""
    pending_plugins: set[str] = field(default_factory=set)
    pre_filter_msg: str = ""
    post_filter_msg: str = ""

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
