"""A pod in a namespace whose ElasticQuota is being deleted, as scheduler-plugins' event
handlers treat it: a quota with `deletionTimestamp` (held by a finalizer) still governs its
namespace, as an update of it; its removal (the delete event) drops it, and the pods it
refused are requeued by that event (CapacityScheduling registers every ElasticQuota event)
and placed, each once."""

from __future__ import annotations

from typing import Any

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.framework import ActionType, ClusterEvent
from kubesched.model import ApiObject, Pod
from kubesched.plugins.capacity_scheduling import ELASTIC_QUOTAS
from kubesched.queue import Nominator, SchedulingQueue
from kubesched.runtime.queueing import Requeue
from kubesched.scheduler.shared_queue import shared_queue
from kubesched.server.informers import DeclaredResourceEvents
from kubesched.testing import make_node, make_pod

from .conftest import PROFILE, Cluster, quota

QUOTA = quota("team", min_={"cpu": "1"}, max_={"cpu": "1"})
DELETING = {
    **QUOTA,
    "metadata": {
        **QUOTA["metadata"],
        "deletionTimestamp": "2026-01-01T00:00:00Z",
        "finalizers": ["example.com/cleanup"],
    },
}
REFUSAL = "Pod team/big is rejected in PreFilter because ElasticQuota team is more than Max"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def big_pod() -> Pod:
    builder = make_pod().name("big").uid("big").namespace("team").scheduler(PROFILE.scheduler_name)
    return builder.req(cpu="2").model()


def cluster_with(obj: dict[str, Any]) -> Cluster:
    node = make_node().name("n1").capacity(cpu="8", memory="8Gi", pods="110").model()
    return Cluster([node], [obj])


def test_a_quota_being_deleted_still_governs_its_namespace() -> None:
    cluster = cluster_with(QUOTA)
    store = cluster.handle.listers.store(ELASTIC_QUOTAS)
    store.on_update(ApiObject.from_json(QUOTA), ApiObject.from_json(DELETING))
    assert REFUSAL in str(cluster.refuse(big_pod()))


def test_the_quota_delete_event_requeues_what_it_refused() -> None:
    cluster = cluster_with(QUOTA)
    deleted = ClusterEvent(ELASTIC_QUOTAS.event_resource, ActionType.DELETE)
    hint = cluster.framework.queueing_hints.strategy(
        pod=big_pod(),
        rejectors={"CapacityScheduling"},
        pending=set(),
        event=deleted,
        old=ApiObject.from_json(DELETING),
        new=None,
    )
    assert hint is not Requeue.SKIP


async def refused_and_waiting(cluster: Cluster, queue: SchedulingQueue) -> None:
    queue.add(big_pod())
    qpi = await queue.pop()
    assert qpi is not None
    error = cluster.refuse(qpi.pod)
    assert REFUSAL in str(error)
    qpi.unschedulable_plugins = set(error.diagnosis.unschedulable_plugins)
    assert queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=queue.scheduling_cycle)
    assert queue.pending_counts()["unschedulable"] == 1


async def test_a_refused_pod_binds_once_after_its_quota_is_deleted() -> None:
    cluster, clock = cluster_with(DELETING), Clock()
    config = KubeSchedulerConfiguration(profiles=(PROFILE,))
    frameworks = {PROFILE.scheduler_name: cluster.framework}
    queue = shared_queue(config, frameworks, Nominator(), clock=clock)
    await refused_and_waiting(cluster, queue)
    informer = DeclaredResourceEvents(
        ELASTIC_QUOTAS, cluster.handle.listers.store(ELASTIC_QUOTAS), queue
    )
    informer.on_update(ApiObject.from_json(QUOTA), ApiObject.from_json(DELETING))
    clock.now += 10
    queue.flush_backoff_completed()
    requeued = await queue.pop()
    assert requeued is not None, "an update requeues the pod too (no hints), to be refused again"
    assert REFUSAL in str(cluster.refuse(requeued.pod))
    requeued.unschedulable_plugins = {"CapacityScheduling"}
    queue.add_unschedulable_if_not_present(requeued, pod_scheduling_cycle=queue.scheduling_cycle)

    informer.on_delete(ApiObject.from_json(DELETING))
    clock.now += 20
    queue.flush_backoff_completed()
    assert queue.pending_counts()["active"] == 1
    placed = await queue.pop()
    assert placed is not None
    assert cluster.schedule(placed.pod) == "n1"
    queue.done(placed.pod.uid)
    assert queue.pending_counts() == {"active": 0, "backoff": 0, "unschedulable": 0, "gated": 0}
    assert cluster.plugin.book.infos == {}, "no quota left to count it against"
