"""DynamicResources' writes to ResourceClaims (upstream `bindClaim`, Unreserve's patch,
PostFilter's deallocation) and PreBind's wait for binding conditions.

Every write is a JSON merge patch carrying the claim's resourceVersion, so a change since
it was read is a conflict: the claim is read again and the write retried (client-go's
`retry.DefaultRetry`, 5 tries), refused with upstream's texts when it was deleted,
allocated elsewhere or deallocated meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from kubesched.errors import KubeschedError
from kubesched.framework import Code, Handle, ObjectWriteError, ResourceSpec, Status
from kubesched.framework.dra import Claim, SharedDRAManager
from kubesched.framework.logkv import kv
from kubesched.model import ApiObject, Pod
from kubesched.model.dra_claims import AllocationResult
from kubesched.plugins.dynamic_resources import extended
from kubesched.plugins.dynamic_resources.extended import NodeClaim
from kubesched.plugins.dynamic_resources.resources import CLAIMS
from kubesched.plugins.dynamic_resources.workload_claims import Consumer, pod_consumer

log = logging.getLogger(__name__)

FINALIZER: Final = "resource.kubernetes.io/delete-protection"
"""upstream `resourceapi.Finalizer`: an allocated claim is not deleted under its pod."""
CONFLICT_RETRIES: Final = 5
BINDING_POLL_SECONDS: Final = 5.0
POD_STATUS: Final = ResourceSpec("", "v1", "pods", writes=True)
"""The pod's `/status` (the scheduler's RBAC grants its patch): not a declared resource."""


class ClaimBindError(KubeschedError):
    """PreBind could not record the allocation or the reservation (the text says why)."""


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


async def bind_claim(
    handle: Handle,
    entry: Claim,
    allocation: AllocationResult | None,
    pod: Pod,
    consumer: Consumer | None = None,
) -> Claim:
    """Record `allocation` (when Reserve made one) and reserve the claim for `consumer`
    (the pod, or its PodGroup under DRAWorkloadResourceClaims); the claim as written."""
    reserve_for = consumer or pod_consumer(pod)
    key = entry.obj.key
    current = entry
    for attempt in range(CONFLICT_RETRIES):
        if attempt:
            try:
                current = Claim.of(
                    await handle.get_object(CLAIMS, entry.obj.namespace, entry.obj.name)
                )
            except ObjectWriteError as exc:
                raise ClaimBindError(f"get updated claim {key} after conflict: {exc}") from None
        try:
            return await _write(handle, current, allocation, reserve_for)
        except ObjectWriteError as exc:
            if not exc.conflict:
                what = "add allocation and reservation to" if allocation else "add reservation to"
                raise ClaimBindError(f"{what} claim {key}: {exc}") from None
    raise ClaimBindError(f"claim {key}: still conflicting after {CONFLICT_RETRIES} tries")


async def _write(
    handle: Handle, current: Claim, allocation: AllocationResult | None, consumer: Consumer
) -> Claim:
    key = current.obj.key
    if current.claim.deleting:
        raise ClaimBindError(f"claim {key} got deleted in the meantime")
    if allocation is not None:
        if current.claim.allocation is not None:
            raise ClaimBindError(f"claim {key} got allocated elsewhere in the meantime")
        if FINALIZER not in current.obj.finalizers:
            patch = {
                "metadata": {
                    "resourceVersion": current.obj.resource_version,
                    "finalizers": [*current.obj.finalizers, FINALIZER],
                }
            }
            try:
                current = Claim.of(await handle.patch_object(CLAIMS, current.obj, patch))
            except ObjectWriteError as exc:
                if exc.conflict:
                    raise
                raise ClaimBindError(f"add finalizer to claim {key}: {exc}") from None
    elif current.claim.allocation is None:
        raise ClaimBindError(f"claim {key} got deallocated elsewhere in the meantime")
    reserved = [*(current.obj.status.get("reservedFor") or ()), consumer.to_json()]
    status: dict[str, Any] = {"reservedFor": reserved}
    if allocation is not None:
        status["allocation"] = {**allocation.to_json(), "allocationTimestamp": _now()}
    patch = {"metadata": {"resourceVersion": current.obj.resource_version}, "status": status}
    return Claim.of(await handle.patch_object(CLAIMS, current.obj, patch, status=True))


async def unreserve(handle: Handle, entry: Claim, pod: Pod) -> None:
    """Take the pod out of `reservedFor` (a strategic merge patch: no resourceVersion)."""
    await unreserve_uid(handle, entry, pod.uid)


async def unreserve_uid(handle: Handle, entry: Claim, uid: str) -> None:
    """Take the consumer with this uid (a pod, or a PodGroup in PodGroupPostFilter) out of
    `reservedFor`."""
    patch = {
        "metadata": {"uid": entry.uid},
        "status": {"reservedFor": [{"$patch": "delete", "uid": uid}]},
    }
    try:
        await handle.patch_object(CLAIMS, entry.obj, patch, status=True, strategic=True)
    except ObjectWriteError as exc:
        # Retried with the pod's next scheduling attempt.
        log.warning("unreserve", extra=kv(resourceclaim=entry.obj.key, err=exc))


async def deallocate(handle: Handle, entry: Claim) -> None:
    """PostFilter: free an allocated claim nobody else uses."""
    patch = {
        "metadata": {"resourceVersion": entry.obj.resource_version},
        "status": {"reservedFor": None, "allocation": None, "devices": None},
    }
    try:
        await handle.patch_object(CLAIMS, entry.obj, patch, status=True)
    except ObjectWriteError as exc:
        log.warning(
            "Deallocation of ResourceClaim failed", extra=kv(resourceclaim=entry.obj.key, err=exc)
        )


# ---- binding conditions (DRADeviceBindingConditions) -------------------------------------


def has_binding_conditions(claims: Sequence[Claim]) -> bool:
    return any(
        result.binding_conditions
        for entry in claims
        if entry.claim.allocation is not None
        for result in entry.claim.allocation.results
    )


def ready_for_binding(entry: Claim) -> bool:
    """upstream `isClaimReadyForBinding`: every binding condition of every allocated device
    True in `status.devices`; ClaimBindError when a failure condition is True."""
    allocation = entry.claim.allocation
    if allocation is None:
        return False
    devices = entry.obj.status.get("devices") or ()
    for result in allocation.results:
        if not result.binding_conditions:
            continue
        status = next(
            (
                d
                for d in devices
                if (d.get("driver"), d.get("pool"), d.get("device"))
                == (result.driver, result.pool, result.device)
            ),
            None,
        )
        if status is None:
            return False
        conditions = {c.get("type"): c for c in status.get("conditions") or ()}
        for name in result.binding_failure_conditions or ():
            failed = conditions.get(name)
            if failed is not None and failed.get("status") == "True":
                raise ClaimBindError(
                    f"device binding failed: claim={entry.obj.name}, "
                    f'reason={failed.get("reason", "")}, message="{failed.get("message", "")}"'
                )
        if any(
            (conditions.get(n) or {}).get("status") != "True" for n in result.binding_conditions
        ):
            return False
    return True


async def wait_for_binding_conditions(
    handle: Handle,
    manager: SharedDRAManager,
    *,
    claims: list[Claim],
    pod: Pod,
    node_name: str,
    timeout: float,
) -> Status | None:
    """Wait until every claim's devices are ready for binding (polling every 5 s)."""
    handle.record_event(
        pod,
        event_type="Normal",
        reason="BindingConditionsPending",
        action="Scheduling",
        note=f"waiting for binding conditions for device on node {node_name}",
    )
    deadline = time.monotonic() + timeout
    while True:
        try:
            if all(
                ready_for_binding(manager.claim(c.obj.namespace, c.obj.name) or c) for c in claims
            ):
                return None
        except ClaimBindError as exc:
            return Status(Code.ERROR, str(exc))
        if time.monotonic() + BINDING_POLL_SECONDS > deadline:
            return Status(Code.ERROR, "device binding timeout: context deadline exceeded")
        await asyncio.sleep(BINDING_POLL_SECONDS)


# ---- the claim for extended resources backed by DRA ---------------------------------------


async def create_claim(handle: Handle, pod: Pod, node_claim: NodeClaim) -> Claim:
    body = extended.creation_body(pod, node_claim.claim)
    try:
        return Claim.of(await handle.create_object(CLAIMS, pod.namespace, body))
    except ObjectWriteError as exc:
        raise ClaimBindError(
            f"create claim for extended resources {pod.namespace}/{extended.IN_MEMORY_NAME}: {exc}"
        ) from None


async def record_extended_claim(
    handle: Handle, pod: Pod, claim: Claim, node_claim: NodeClaim
) -> None:
    """`status.extendedResourceClaimStatus` of the pod: which container request is served
    by which device request of which claim."""
    if not node_claim.mappings:
        raise ClaimBindError(
            f"nil or empty request mappings, no update of pod {pod.namespace}/{pod.name} "
            "ExtendedResourceClaimStatus"
        )
    status = {
        "extendedResourceClaimStatus": {
            "requestMappings": [dict(m) for m in node_claim.mappings],
            "resourceClaimName": claim.obj.name,
        }
    }
    target = ApiObject(namespace=pod.namespace, name=pod.name, uid=pod.uid)
    try:
        await handle.patch_object(
            POD_STATUS, target, {"status": status}, status=True, strategic=True
        )
    except ObjectWriteError as exc:
        raise ClaimBindError(
            f"update pod {pod.namespace}/{pod.name} ExtendedResourceClaimStatus: {exc}"
        ) from None


async def delete_claim(handle: Handle, entry: Claim) -> None:
    """Remove the finalizer, then delete the claim (upstream `deleteClaim`)."""
    current = entry
    try:
        for attempt in range(CONFLICT_RETRIES):
            if attempt:
                current = Claim.of(
                    await handle.get_object(CLAIMS, entry.obj.namespace, entry.obj.name)
                )
            if FINALIZER not in current.obj.finalizers:
                break
            finalizers = [f for f in current.obj.finalizers if f != FINALIZER]
            patch = {
                "metadata": {
                    "resourceVersion": current.obj.resource_version,
                    "finalizers": finalizers or None,
                }
            }
            try:
                await handle.patch_object(CLAIMS, current.obj, patch)
                break
            except ObjectWriteError as exc:
                if not exc.conflict:
                    raise
        await handle.delete_object(CLAIMS, current.obj)
    except ObjectWriteError as exc:
        if not exc.not_found:
            log.warning("delete", extra=kv(resourceclaim=entry.obj.key, err=exc))


class BackgroundWrites:
    """Claim writes that nothing waits for (PostFilter's deallocation, Unreserve's), run as
    tasks kept until they end; outside an event loop (a unit test) the write is dropped."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            task = asyncio.get_running_loop().create_task(work)
        except RuntimeError:
            work.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
