"""NodePorts (PreFilter, Filter): a node fits only if none of the pod's host ports is taken.

A port conflicts with the same (protocol, port) on the same host IP; `0.0.0.0` (or an empty
host IP) means every address, so it conflicts with that port on any IP, and any IP conflicts
with it. Message as upstream: `node(s) didn't have free ports for the requested pod ports`.

Queueing hints: a rejected pod is requeued when a bound (or nominated) pod that held one of
its host ports is deleted (upstream's hint), and on any node added.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Final

from kubesched.apis import names
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeInfo,
    QueueingHint,
    StateKey,
    Status,
)
from kubesched.framework.signs import host_ports_sign
from kubesched.model import HostPort, Pod
from kubesched.plugins.helper.args import no_args
from kubesched.plugins.helper.event_objects import deleted

NAME = names.NODE_PORTS
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
ANY_IP = "0.0.0.0"  # noqa: S104 - the API's "all addresses", not a bind
_REJECTED: Final = Status(Code.UNSCHEDULABLE, ERR_REASON)
_SKIP: Final = Status(Code.SKIP)
_PRE_FILTER_KEY: StateKey[tuple[HostPort, ...]] = StateKey("PreFilter" + NAME)


class NodePorts:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        no_args(args, plugin=NAME)

    def sign_pod(self, pod: Pod) -> tuple[Hashable, ...]:
        """Upstream `SignPod`: the host ports the pod asks for.
        Equal signatures, equal results on a node (`kubesched.framework.signs`)."""
        return (host_ports_sign(pod),)

    def pre_filter(self, state: CycleState, pod: Pod, _nodes: Sequence[NodeInfo]) -> Status | None:
        wanted = tuple(_sanitized(port) for port in pod.host_ports if port.port > 0)
        if not wanted:
            return _SKIP
        state.write(_PRE_FILTER_KEY, wanted)
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        used = node_info.used_ports
        if not used:
            return None
        wanted = state.get(_PRE_FILTER_KEY)
        if wanted is None:
            wanted = tuple(_sanitized(port) for port in pod.host_ports if port.port > 0)
        for port in wanted:
            if conflicts(used, port):
                return _REJECTED
        return None

    def events_to_register(self) -> Sequence[ClusterEvent | ClusterEventWithHint]:
        """Upstream's: a bound pod's deletion, with a hint (a pod's ports cannot change, so
        pod updates are not registered), and a node's addition, without one."""
        return (
            ClusterEventWithHint(
                ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE),
                self.is_schedulable_after_assigned_pod_deleted,
            ),
            ClusterEvent(EventResource.NODE, ActionType.ADD),
        )

    def is_schedulable_after_assigned_pod_deleted(
        self, pod: Pod, old: Any, new: Any
    ) -> QueueingHint:
        """Requeue only when the deleted pod was bound (or nominated) and held a host port
        the pod wants."""
        removed = deleted(Pod, old, new)
        if not removed.node_name and not removed.nominated_node_name:
            return QueueingHint.QUEUE_SKIP
        if not removed.host_ports:
            return QueueingHint.QUEUE_SKIP
        released = Counter(_sanitized(port) for port in removed.host_ports if port.port > 0)
        if any(conflicts(released, _sanitized(port)) for port in pod.host_ports if port.port > 0):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


def _sanitized(port: HostPort) -> HostPort:
    if port.ip and port.protocol:
        return port
    return HostPort(port.ip or ANY_IP, port.protocol or "TCP", port.port)


def conflicts(used: Counter[HostPort], wanted: HostPort) -> bool:
    """Upstream `HostPortInfo.CheckConflict` for a sanitized wanted port."""
    if wanted.ip == ANY_IP:
        return any(
            count > 0 and port.port == wanted.port and port.protocol == wanted.protocol
            for port, count in used.items()
        )
    wildcard = HostPort(ANY_IP, wanted.protocol, wanted.port)
    return used.get(wildcard, 0) > 0 or used.get(wanted, 0) > 0
