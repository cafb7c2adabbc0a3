"""PodGroup-level ResourceClaims (kube-scheduler v1.37.2, the `DRAWorkloadResourceClaims`
feature gate, beta and off by default): a claim a PodGroup declares in `spec.resourceClaims`
is shared by the members that declare the very same claim (same name, same
`resourceClaimName` or `resourceClaimTemplateName`) and reserved for the PodGroup, not for
each pod. The helpers of upstream's `k8s.io/dynamic-resource-allocation/resourceclaim`
(`BindTo`, `IsReservedForPod`, `IsForPod`) and the plugin's `getPodGroupSnapshot`.

With the gate off none of this is read: a member's claims are its own, reserved for it,
exactly as upstream ignores the PodGroup's claims then.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.framework import CycleState, Handle, StateKey
from kubesched.model import ApiObject, Pod, PodResourceClaim
from kubesched.model.pod_volumes import pod_resource_claims
from kubesched.plugins.dynamic_resources.pod_claims import GROUP, PODGROUPS, ClaimsNotReady
from kubesched.plugins.helper.listers import declared_lister

if TYPE_CHECKING:
    from kubesched.plugins.dynamic_resources.cycle import CycleData


@dataclass(frozen=True, slots=True)
class Consumer:
    """A `status.reservedFor` entry to write (upstream `ResourceClaimConsumerReference`)."""

    resource: str
    name: str
    uid: str
    api_group: str = ""

    def to_json(self) -> dict[str, str]:
        body = {"resource": self.resource, "name": self.name, "uid": self.uid}
        return {"apiGroup": self.api_group, **body} if self.api_group else body


def pod_consumer(pod: Pod) -> Consumer:
    return Consumer("pods", pod.name, pod.uid)


def pod_group_of(handle: Handle, pod: Pod, *, enabled: bool) -> ApiObject | None:
    """upstream `getPodGroupSnapshot`: the pod's PodGroup when the gate is on and the pod
    names one; ClaimsNotReady (upstream's text) when it does not exist."""
    if not enabled or not pod.pod_group_name:
        return None
    found = declared_lister(handle, SCHEDULING_PODGROUPS).get(pod.pod_group_name, pod.namespace)
    if found is None:
        key = f"{pod.namespace}/{pod.pod_group_name}"
        raise ClaimsNotReady(f"pod group object not found for pod group {key}")
    return found


def bind_to(pod: Pod, group: ApiObject | None, source: PodResourceClaim) -> Consumer:
    """upstream `resourceclaim.BindTo`: the PodGroup when `source` matches one of its
    claims exactly, else the pod; ClaimsNotReady with upstream's texts for an entry that
    names neither a claim nor a template."""
    if not source.claim_name and not source.template_name:
        raise ClaimsNotReady(
            f"Pod {pod.namespace}/{pod.name} claim {source.name}: "
            "none of the supported fields are set"
        )
    if group is None:
        return pod_consumer(pod)
    for declared in pod_resource_claims(group.spec):
        if not declared.claim_name and not declared.template_name:
            raise ClaimsNotReady(
                f"PodGroup {group.namespace}/{group.name} claim {declared.name}: "
                "none of the supported fields are set"
            )
        if declared == source:
            return Consumer(PODGROUPS, group.name, group.uid, GROUP)
    return pod_consumer(pod)


def claim_bindings(pod: Pod, group: ApiObject | None) -> list[Consumer]:
    """upstream `podResourceClaimBindings`: one consumer per `spec.resourceClaims` entry."""
    return [bind_to(pod, group, source) for source in pod.claim_sources]


@dataclass(slots=True)
class GroupCycleData:
    """DynamicResources' part of a pod-group cycle's shared state (upstream
    `podGroupStateData`): the claims whose allocation a member put in flight in this very
    cycle, with the members sharing it; a later member reuses that allocation instead of
    waiting for it to be written."""

    pending: dict[str, set[str]] = field(default_factory=dict)
    """Claim uid -> the uids of the members that reserved its allocation in flight."""
    pods: dict[tuple[str, str], CycleData] = field(default_factory=dict)
    """(namespace, name) -> each member's PreFilter data, for PodGroupPostFilter (upstream
    `podsStateData`)."""

    def clone(self) -> GroupCycleData:
        return self


GROUP_KEY: StateKey[GroupCycleData] = StateKey("DynamicResources/podGroup")


def group_data(state: CycleState, *, create: bool = False) -> GroupCycleData | None:
    """The pod-group cycle's data (`create`: made on first use, as upstream's
    `getOrCreatePodGroupStateData`); None outside a pod-group cycle."""
    shared = state.pod_group_cycle
    if shared is None:
        return None
    data = shared.get(GROUP_KEY)
    if data is None and create:
        data = GroupCycleData()
        shared.write(GROUP_KEY, data)
    return data
