"""DynamicResources' queueing hints: when a claim change or an update of the pod makes a pod
it rejected worth another try."""

from __future__ import annotations

from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from kubesched.framework.dra import SharedDRAManager
from kubesched.model import ApiObject, Pod
from kubesched.plugins.dynamic_resources.pod_claims import (
    ClaimsNotReady,
    claims_not_generated,
    pod_claims,
)
from kubesched.plugins.helper.event_objects import event_objects


def after_claim_change(
    manager: SharedDRAManager, pod: Pod, old: object, new: object, *, accept_group: bool
) -> QueueingHint:
    """Upstream `isSchedulableAfterClaimChange`; `accept_group` as in
    `after_target_pod_update`."""
    before, after = event_objects(ApiObject, old, new)
    if after is None:
        had = before is not None and before.status.get("allocation") is not None
        return QueueingHint.QUEUE if had else QueueingHint.QUEUE_SKIP
    if claims_not_generated(pod):
        return QueueingHint.QUEUE_SKIP  # what pod_claims' ClaimsNotReady says, cheaply
    try:
        claims = pod_claims(pod, manager, accept_group=accept_group)
        uses = any(entry.uid == after.uid for entry in claims)
    except ClaimsNotReady:
        return QueueingHint.QUEUE_SKIP
    if (
        before is not None
        and before.status.get("allocation") is not None
        and after.status.get("allocation") is None
    ):
        return QueueingHint.QUEUE  # deallocated: devices are free again
    # The pod's own claim: created, or its status changed (not just a finalizer).
    changed = before is None or dict(before.status) != dict(after.status)
    return QueueingHint.QUEUE if uses and changed else QueueingHint.QUEUE_SKIP


def after_target_pod_update(
    manager: SharedDRAManager, _pod: Pod, old: object, new: object, *, accept_group: bool
) -> QueueingHint:
    """Queue the pod once all its claims are there (upstream `isSchedulableAfterPodChange`:
    `foreachPodResourceClaim` with the DRAWorkloadResourceClaims gate, `accept_group`,
    under which a claim made for the pod's PodGroup is the pod's)."""
    _, modified = event_objects(Pod, old, new)
    if modified is None:
        raise TypeError("expected Pod, but got NoneType")
    try:
        pod_claims(modified, manager, accept_group=accept_group)
    except ClaimsNotReady:
        return QueueingHint.QUEUE_SKIP
    return QueueingHint.QUEUE


def events(
    *, claim_change: QueueingHintFn, target_pod_update: QueueingHintFn
) -> tuple[ClusterEventWithHint, ...]:
    """The cluster events that may make a pod DynamicResources rejected schedulable."""
    add_update = ActionType.ADD | ActionType.UPDATE
    node_actions = ActionType.ADD | ActionType.UPDATE_NODE_LABEL
    return (
        # A resource may depend on node labels for topology filtering.
        ClusterEventWithHint(
            ClusterEvent(EventResource.NODE, node_actions | ActionType.UPDATE_NODE_ALLOCATABLE)
        ),
        # Allocations are kept in claims: any change may make the pod schedulable.
        ClusterEventWithHint(
            ClusterEvent(EventResource.RESOURCE_CLAIM, add_update | ActionType.DELETE),
            claim_change,
        ),
        # The claim made from a template is named in the pod's status.
        ClusterEventWithHint(
            ClusterEvent(EventResource.TARGET_POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
            target_pod_update,
        ),
        ClusterEventWithHint(ClusterEvent(EventResource.DEVICE_CLASS, add_update)),
        ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_SLICE, add_update)),
    )
