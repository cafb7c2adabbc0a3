"""Pod statuses as a kubelet writes them after an in-place resize, for the tests."""

from __future__ import annotations

from typing import Any


def status(
    obj: dict[str, Any],
    container: str,
    *,
    allocated: dict[str, str] | None = None,
    actuated: dict[str, str] | None = None,
    init: bool = False,
) -> dict[str, Any]:
    """Add a container status as the kubelet writes it (`allocatedResources`,
    `resources.requests`)."""
    entry: dict[str, Any] = {"name": container, "ready": True, "restartCount": 0}
    if allocated is not None:
        entry["allocatedResources"] = allocated
    if actuated is not None:
        entry["resources"] = {"requests": actuated}
    key = "initContainerStatuses" if init else "containerStatuses"
    obj["status"].setdefault(key, []).append(entry)
    obj["status"]["phase"] = "Running"
    return obj


def resize_pending(obj: dict[str, Any], reason: str) -> dict[str, Any]:
    """The `PodResizePending` condition the kubelet sets ("Deferred" or "Infeasible")."""
    condition = {"type": "PodResizePending", "status": "True", "reason": reason}
    obj["status"].setdefault("conditions", []).append(condition)
    return obj


def pod_status(obj: dict[str, Any], *, allocated: dict[str, str], actuated: dict[str, str]) -> None:
    obj["status"]["phase"] = "Running"
    obj["status"]["allocatedResources"] = allocated
    obj["status"]["resources"] = {"requests": actuated}
