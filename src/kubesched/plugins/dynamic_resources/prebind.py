"""DynamicResources' PreBind: each claim's allocation and reservation written (upstream
`bindClaim`; the extended resources' claim created first), the allocations taken out of
flight, then the wait for binding conditions (`binding`)."""

from __future__ import annotations

from kubesched.framework import Handle, Status
from kubesched.framework.dra import Claim, SharedDRAManager
from kubesched.model import Pod
from kubesched.plugins.dynamic_resources import binding
from kubesched.plugins.dynamic_resources import extended as extended_resources
from kubesched.plugins.dynamic_resources.cycle import CycleData, error
from kubesched.plugins.dynamic_resources.pod_claims import reserved_for_pod


async def write_claims(
    handle: Handle,
    manager: SharedDRAManager,
    data: CycleData,
    pod: Pod,
    node_name: str,
    *,
    binding_timeout: float,
    accept_group: bool = False,
) -> Status | None:
    """PreBind: write each claim's allocation and reservation (upstream `bindClaim`), then
    wait for the claims' binding conditions up to `binding_timeout`."""
    written = []
    for index, entry in enumerate(data.claims):
        if reserved_for_pod(pod, entry, accept_group=accept_group):
            continue
        try:
            claim = await _bind_claim(handle, data, index, pod, node_name)
        except binding.ClaimBindError as exc:
            return error(str(exc))
        if claim is None:
            continue
        manager.assume(claim)
        data.claims[index] = claim
        written.append(index)
    for index in written:
        if data.allocation[index] is not None:
            manager.remove_pending_allocation(data.claims[index].uid)
    if data.extended_index is not None:
        manager.remove_pending_allocation(data.initial_extended_uid)
    if binding.has_binding_conditions(data.claims):
        return await binding.wait_for_binding_conditions(
            handle,
            manager,
            claims=data.claims,
            pod=pod,
            node_name=node_name,
            timeout=binding_timeout,
        )
    return None


async def _bind_claim(
    handle: Handle, data: CycleData, index: int, pod: Pod, node_name: str
) -> Claim | None:
    """One claim's allocation and reservation written (None: nothing to write)."""
    entry = data.claims[index]
    if index != data.extended_index:
        consumer = data.consumer(index, pod)
        return await binding.bind_claim(handle, entry, data.allocation[index], pod, consumer)
    node_claim = data.node_claims.get(node_name)
    if node_claim is None:
        return None  # the node's device plugin serves the extended resources
    if extended_resources.in_memory(entry):
        entry = await binding.create_claim(handle, pod, node_claim)
        data.claims[index] = entry  # Unreserve deletes it from now on
    claim = await binding.bind_claim(handle, entry, data.allocation[index], pod)
    await binding.record_extended_claim(handle, pod, claim, node_claim)
    return claim
