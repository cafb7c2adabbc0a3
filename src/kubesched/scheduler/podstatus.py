"""Writes to a pod's status the way kube-scheduler does: the PodScheduled condition and
`status.nominatedNodeName`, patched on `pods/status` only when they change.

A Pod is never written after it was parsed: the condition kubesched last patched on a pod
object is remembered beside it (`written_condition`), for as long as that object lives (the
informer's next version of the pod carries it in its own `scheduled_condition`).

A pod's PodScheduled patches are sent one at a time, in the order asked for: a cycle's
patch waits for the previous cycle's to come back (kube-scheduler's `updatePod` runs inside
the failing cycle, or, with `SchedulerAsyncAPICalls`, its `callQueue` keeps one call per
object in flight), so the text the pod ends with is the last cycle's."""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime

from kubesched.framework.logkv import kv
from kubesched.kube.api import STRATEGIC_MERGE_PATCH, KubeApi
from kubesched.kube.errors import ApiError
from kubesched.model import Pod

log = logging.getLogger(__name__)

UNSCHEDULABLE = "Unschedulable"
SCHEDULER_ERROR = "SchedulerError"
PODS_STATUS_RBAC_FIX = (
    'grant patch on pods/status (apiGroup "") to kubesched\'s identity, so unschedulable '
    "pods get their PodScheduled condition; `kubesched manifests` prints the RBAC and "
    "`kubesched doctor` checks it"
)


class ForbiddenOnce:
    """Logs the first 403 on pods/status in full, naming the fix; later ones at debug."""

    def __init__(self) -> None:
        self._explained = False

    def report(self, pod: Pod, error: ApiError) -> None:
        if self._explained:
            log.debug("could not update pod status (403)", extra=kv(pod=pod.key))
            return
        self._explained = True
        log.error(
            "kubesched may not update pod status; pods get no PodScheduled condition",
            extra=kv(pod=pod.key, err=error, fix=PODS_STATUS_RBAC_FIX),
        )


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


Condition = tuple[str, str, str]
"""PodScheduled's (status, reason, message)."""


class _WrittenConditions:
    """The condition last patched per pod object, dropped when the object is freed."""

    __slots__ = ("_by_pod",)

    def __init__(self) -> None:
        self._by_pod: dict[int, tuple[weakref.ref[Pod], Condition]] = {}

    def get(self, pod: Pod) -> Condition | None:
        entry = self._by_pod.get(id(pod))
        return entry[1] if entry is not None and entry[0]() is pod else None

    def put(self, pod: Pod, condition: Condition) -> None:
        key = id(pod)
        by_pod = self._by_pod

        def drop(_ref: weakref.ref[Pod]) -> None:
            entry = by_pod.get(key)
            if entry is not None and entry[0] is _ref:
                del by_pod[key]

        self._by_pod[key] = (weakref.ref(pod, drop), condition)

    def __len__(self) -> int:
        return len(self._by_pod)


_WRITTEN = _WrittenConditions()


class _OneAtATime:
    """A lock per pod UID, held while that pod's status patch is in flight; dropped when no
    patch of the pod waits."""

    __slots__ = ("_locks", "_users")

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: dict[str, int] = {}

    @asynccontextmanager
    async def turn(self, uid: str) -> AsyncIterator[None]:
        """Wait for the pod's earlier patches, then hold its turn."""
        lock = self._locks.setdefault(uid, asyncio.Lock())
        self._users[uid] = self._users.get(uid, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._users[uid] -= 1
            if not self._users[uid]:
                del self._users[uid], self._locks[uid]

    def __len__(self) -> int:
        return len(self._locks)


_IN_FLIGHT = _OneAtATime()


def written_condition(pod: Pod) -> Condition | None:
    """The PodScheduled condition as the API server has it after kubesched's last patch of
    this pod object, else as the object was read."""
    return _WRITTEN.get(pod) or pod.scheduled_condition


def condition_changed(pod: Pod, *, status: str, reason: str, message: str) -> bool:
    """True when the pod's PodScheduled condition differs from (status, reason, message)."""
    return written_condition(pod) != (status, reason, message)


async def patch_pod_scheduled(
    api: KubeApi,
    pod: Pod,
    *,
    status: str,
    reason: str,
    message: str,
    nominated_node_name: str | None = None,
    timeout: float | None = None,
) -> bool:
    """Set PodScheduled (and optionally nominatedNodeName); returns False if nothing changed.
    Waits for an earlier patch of the same pod to come back first."""
    async with _IN_FLIGHT.turn(pod.uid):
        return await _patch_pod_scheduled(
            api,
            pod,
            condition=(status, reason, message),
            nominated_node_name=nominated_node_name,
            timeout=timeout,
        )


async def _patch_pod_scheduled(
    api: KubeApi,
    pod: Pod,
    *,
    condition: Condition,
    nominated_node_name: str | None,
    timeout: float | None,
) -> bool:
    status, reason, message = condition
    nominate = nominated_node_name is not None and nominated_node_name != pod.nominated_node_name
    if not condition_changed(pod, status=status, reason=reason, message=message) and not nominate:
        return False
    patched: dict[str, object] = {
        "type": "PodScheduled",
        "status": status,
        "reason": reason,
        "message": message,
        "lastProbeTime": None,
    }
    if pod.generation:
        # kube-scheduler >= 1.34 records which pod generation the condition describes.
        patched["observedGeneration"] = pod.generation
    current = written_condition(pod)
    if current is None or current[0] != status:
        # Like upstream `UpdatePodCondition`: the transition time moves only with the status.
        patched["lastTransitionTime"] = _now()
    body: dict[str, object] = {
        "metadata": {"uid": pod.uid},
        "status": {"conditions": [patched]},
    }
    if nominate:
        body["status"] = {"conditions": [patched], "nominatedNodeName": nominated_node_name}
    path = f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}/status"
    await api.patch(path, body, content_type=STRATEGIC_MERGE_PATCH, timeout=timeout)
    _WRITTEN.put(pod, (status, reason, message))
    return True


async def patch_nominated_node_name(
    api: KubeApi, pod: Pod, node_name: str, *, timeout: float | None = None
) -> bool:
    """Set `status.nominatedNodeName` alone (upstream `updatePod` with a ModeOverride
    nomination and no condition); returns False when it already had that value."""
    if pod.nominated_node_name == node_name:
        return False
    body = {"metadata": {"uid": pod.uid}, "status": {"nominatedNodeName": node_name}}
    path = f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}/status"
    await api.patch(path, body, content_type=STRATEGIC_MERGE_PATCH, timeout=timeout)
    return True
