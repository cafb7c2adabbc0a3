"""GangScheduling (kube-scheduler v1.37, `GenericWorkload` feature gate): members of a
`scheduling.k8s.io/v1beta1` PodGroup with a gang policy are scheduled all or nothing.

* PreEnqueue holds a member until its PodGroup exists and minCount members exist;
* PlacementFeasible stops the pod-group cycle once minCount cannot be reached, and lets
  the group bind only once minCount members are placed;
* Permit holds placed members until minCount are placed, then allows them all;
* Reserve/Unreserve keep count of the members assumed on a node.

The messages are kube-scheduler's. The pod-group cycle itself is the scheduler's
(`kubesched.scheduler.podgroup_cycle`).

Queueing hints (upstream's, CompositePodGroup off): a rejected member is retried when a pod
of its PodGroup is added (pending or bound), when its PodGroup is added, or when its gang's
minCount decreases.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.apis import names
from kubesched.apis.resources import SCHEDULING_COMPOSITEPODGROUPS, SCHEDULING_PODGROUPS
from kubesched.framework import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    Code,
    CycleState,
    EventResource,
    Handle,
    PlacementProgress,
    QueueingHint,
    Status,
)
from kubesched.framework.resources import resource_event
from kubesched.model import ApiObject, Pod, SchedulingPodGroup, pod_group_key
from kubesched.plugins.gang_scheduling import hierarchy
from kubesched.plugins.gang_scheduling.members import GroupPods, Reservations, members
from kubesched.plugins.helper.args import no_args
from kubesched.plugins.helper.event_objects import added_or_updated, updated
from kubesched.plugins.helper.hierarchy import (
    Key,
    composite_hierarchy,
    composite_key,
)
from kubesched.plugins.helper.hierarchy import pod_group_key as tree_key

NAME = names.GANG_SCHEDULING
PERMIT_TIMEOUT_SECONDS = 300.0
"""How long placed members wait at Permit for the rest of the gang (upstream: 5 minutes)."""


class GangScheduling:
    """PreEnqueue, Reserve, Permit and PlacementFeasible for native PodGroups."""

    name = NAME
    resources = (SCHEDULING_PODGROUPS,)

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        no_args(args, plugin=NAME)
        self._handle = handle
        self._groups = handle.lister(SCHEDULING_PODGROUPS)
        self._pods = GroupPods(handle.pod_lister())
        self._reservations = Reservations()
        self._tree = composite_hierarchy(handle)
        """The PodGroup trees, with the `CompositePodGroup` gate (its lister exists); None
        without: a PodGroup's parent is ignored, as upstream ignores it."""

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        # A member added (pending or bound) may complete its gang's minCount; the pod's
        # PodGroup name is immutable, so pod updates are not registered.
        return (
            *self._composite_events(),
            ClusterEventWithHint(
                ClusterEvent(EventResource.UNSCHEDULED_POD, ActionType.ADD),
                self.is_schedulable_after_pod_added,
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.ASSIGNED_POD, ActionType.ADD),
                self.is_schedulable_after_pod_added,
            ),
            ClusterEventWithHint(
                resource_event(SCHEDULING_PODGROUPS, ActionType.ADD),
                self.is_schedulable_after_pod_group_added,
            ),
            ClusterEventWithHint(
                resource_event(SCHEDULING_PODGROUPS, ActionType.UPDATE),
                self.is_schedulable_after_pod_group_updated,
            ),
        )

    def _composite_events(self) -> tuple[ClusterEventWithHint, ...]:
        """A CompositePodGroup added may complete a waiting tree (gate on only)."""
        if self._tree is None:
            return ()
        event = resource_event(SCHEDULING_COMPOSITEPODGROUPS, ActionType.ADD)
        return (ClusterEventWithHint(event, self.is_schedulable_after_composite_added),)

    def is_schedulable_after_composite_added(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """QUEUE when the CompositePodGroup added is in the rejected pod's tree."""
        _, added = added_or_updated(ApiObject, old, new)
        return _queue_if(self._same_tree(pod, composite_key(added.namespace, added.name)))

    def _same_tree(self, pod: Pod, target: Key) -> bool:
        """upstream `areSameHierarchy`."""
        if not pod.pod_group_name:
            return False
        if self._tree is None:
            return tree_key(pod.namespace, pod.pod_group_name) == target
        return hierarchy.same_tree(self._tree, pod.namespace, pod.pod_group_name, target)

    def is_schedulable_after_pod_added(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """QUEUE when the pod added is a member of the rejected pod's PodGroup."""
        _, added = added_or_updated(Pod, old, new)
        if not added.pod_group_name:
            return QueueingHint.QUEUE_SKIP
        return _queue_if(self._same_tree(pod, tree_key(added.namespace, added.pod_group_name)))

    def is_schedulable_after_pod_group_added(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """QUEUE when the PodGroup added is the rejected pod's."""
        _, added = added_or_updated(ApiObject, old, new)
        return _queue_if(self._same_tree(pod, tree_key(added.namespace, added.name)))

    def is_schedulable_after_pod_group_updated(self, pod: Pod, old: Any, new: Any) -> QueueingHint:
        """QUEUE when the rejected pod's PodGroup keeps a gang policy and its minCount
        decreased (other updates cannot make the members schedulable)."""
        before, after = updated(ApiObject, old, new)
        if not self._same_tree(pod, tree_key(after.namespace, after.name)):
            return QueueingHint.QUEUE_SKIP
        old_min = SchedulingPodGroup.of(before).min_count
        new_min = SchedulingPodGroup.of(after).min_count
        if old_min is None or new_min is None:  # not a gang before or after
            return QueueingHint.QUEUE_SKIP
        return _queue_if(new_min < old_min)

    def _group(self, pod: Pod) -> SchedulingPodGroup | None:
        obj = self._groups.get(pod.pod_group_name, pod.namespace)
        return SchedulingPodGroup.of(obj) if obj is not None else None

    # ---- PreEnqueue ---------------------------------------------------------------------

    def pre_enqueue(self, pod: Pod) -> Status | None:
        if not pod.pod_group_name:
            return None
        if self._tree is not None:
            return hierarchy.pre_enqueue(self._tree, self._pods, pod)
        group = self._group(pod)
        if group is None:
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                f'waiting for pods\'s pod group "{pod.pod_group_name}" to appear in '
                "scheduling queue",
            )
        if group.min_count is None:
            return None
        if len(members(self._pods, pod)) < group.min_count:
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                "waiting for minCount pods from a gang to appear in scheduling queue",
            )
        return None

    # ---- Reserve / Permit ---------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        del state, node_name
        self._reservations.reserve(pod)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        del state, node_name
        self._reservations.unreserve(pod)

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        del state, node_name
        if not pod.pod_group_name:
            return None, 0
        group = self._group(pod)
        if group is None:
            message = (
                f"failed to get podGroup {pod.namespace}/{pod.pod_group_name}: "
                f'podgroup.scheduling.k8s.io "{pod.pod_group_name}" not found'
            )
            return Status(Code.ERROR, message), 0
        parent = group.obj.spec.get("parentCompositePodGroupName")
        if self._tree is not None and isinstance(parent, str) and parent:
            return self._permit_in_tree(pod, parent)
        if group.min_count is None:
            return None, 0
        group_pods = members(self._pods, pod)
        scheduled = self._reservations.scheduled(pod_group_key(pod), group_pods)
        if len(scheduled) < group.min_count:
            self._handle.activate(
                m for m in group_pods if not m.node_name and m.uid not in scheduled
            )
            return Status(Code.WAIT, "waiting for minCount pods from a gang to be scheduled"), (
                PERMIT_TIMEOUT_SECONDS
            )
        self._handle.waiting_pods.allow_group(lambda other: other.uid in scheduled, NAME)
        return None, 0

    def _permit_in_tree(self, pod: Pod, parent: str) -> tuple[Status | None, float]:
        """upstream `permitPodForHierarchy`: wait until the root's quorum is met (activating
        the tree's unscheduled members), then allow every member waiting in the tree."""
        assert self._tree is not None
        tree = self._tree
        status, root, scheduled = hierarchy.permit(
            tree, self._pods, self._reservations, pod, parent
        )
        if root is None:
            return status, 0
        leaves = [(ns, name) for _, ns, name in tree.leaves(root)]
        pods = hierarchy.pods_of(self._pods, pod)
        if status is not None:
            taken = {uid for ns, name in leaves for uid in scheduled(ns, name)}
            self._handle.activate(
                m
                for ns, name in leaves
                for m in pods(ns, name)
                if not m.node_name and m.uid not in taken
            )
            return status, PERMIT_TIMEOUT_SECONDS
        allowed = {uid for ns, name in leaves for uid in scheduled(ns, name)}
        self._handle.waiting_pods.allow_group(lambda other: other.uid in allowed, NAME)
        return None, 0

    # ---- PlacementFeasible --------------------------------------------------------------

    def placement_feasible(
        self, group: SchedulingPodGroup, progress: PlacementProgress
    ) -> Status | None:
        min_count = group.min_count if group.min_count is not None else 1
        scheduled, remaining = progress.scheduled, progress.remaining
        if scheduled + remaining < min_count:
            return Status(
                Code.UNSCHEDULABLE,
                f"minCount ({min_count}) cannot be satisfied: "
                f"{scheduled} scheduled, {remaining} remaining",
            )
        if scheduled < min_count:
            return Status(
                Code.WAIT,
                f"minCount ({min_count}) is not yet satisfied: "
                f"{scheduled} scheduled, {remaining} remaining",
            )
        return None


def _queue_if(condition: bool) -> QueueingHint:
    return QueueingHint.QUEUE if condition else QueueingHint.QUEUE_SKIP
