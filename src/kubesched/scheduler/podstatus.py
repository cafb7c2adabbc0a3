"""Writes to a pod's status the way kube-scheduler does: the PodScheduled condition and
`status.nominatedNodeName`, patched on `pods/status` only when they change."""

from __future__ import annotations

import logging
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


def condition_changed(pod: Pod, *, status: str, reason: str, message: str) -> bool:
    """True when the pod's PodScheduled condition differs from (status, reason, message)."""
    return pod.scheduled_condition != (status, reason, message)


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
    """Set PodScheduled (and optionally nominatedNodeName); returns False if nothing changed."""
    nominate = nominated_node_name is not None and nominated_node_name != pod.nominated_node_name
    if not condition_changed(pod, status=status, reason=reason, message=message) and not nominate:
        return False
    condition: dict[str, object] = {
        "type": "PodScheduled",
        "status": status,
        "reason": reason,
        "message": message,
        "lastProbeTime": None,
    }
    if pod.generation:
        # kube-scheduler >= 1.34 records which pod generation the condition describes.
        condition["observedGeneration"] = pod.generation
    if pod.scheduled_condition is None or pod.scheduled_condition[0] != status:
        # Like upstream `UpdatePodCondition`: the transition time moves only with the status.
        condition["lastTransitionTime"] = _now()
    body: dict[str, object] = {
        "metadata": {"uid": pod.uid},
        "status": {"conditions": [condition]},
    }
    if nominate:
        body["status"] = {"conditions": [condition], "nominatedNodeName": nominated_node_name}
    path = f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}/status"
    await api.patch(path, body, content_type=STRATEGIC_MERGE_PATCH, timeout=timeout)
    pod.scheduled_condition = (status, reason, message)
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
