"""`SchedulerHandle.record_object_event`: an events.k8s.io Event about a non-pod object (an
ElasticQuota), written in that object's namespace with its apiVersion, kind and UID, under
the profile's name; a replica that does not lead records nothing and says so."""

from __future__ import annotations

from kubesched.cache import Snapshot
from kubesched.explain import ReadOnlyHandle
from kubesched.framework import EventObject, Handle, WaitingPods
from kubesched.runtime.offline import OfflineHandle
from kubesched.scheduler.event_recorder import EventRecorder
from kubesched.scheduler.handle import SchedulerHandle
from tests.unit.api_fakes import FakeApi

QUOTA = EventObject("scheduling.x-k8s.io/v1alpha1", "ElasticQuota", "team", "eq", "uid-eq")


def handle(api: FakeApi, recorder: EventRecorder, *, leading: bool) -> SchedulerHandle:
    return SchedulerHandle(
        profile="capacity-scheduler",
        snapshot=Snapshot(),
        api=api,
        recorder=recorder,
        waiting_pods=WaitingPods(),
        leading=lambda: leading,
    )


def record(target: Handle) -> bool:
    return target.record_object_event(
        QUOTA, event_type="Warning", reason="MinExceedsMax", action="ReadElasticQuota", note="n"
    )


async def test_an_event_about_an_elastic_quota_names_it() -> None:
    api = FakeApi()
    recorder = EventRecorder(api, hostname="host-1")
    assert record(handle(api, recorder, leading=True))
    await recorder.drain(timeout=1)
    (post,) = api.posts()
    assert post.path == "/apis/events.k8s.io/v1/namespaces/team/events"
    assert post.body["regarding"] == {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "ElasticQuota",
        "namespace": "team",
        "name": "eq",
        "uid": "uid-eq",
    }
    assert (post.body["type"], post.body["reason"], post.body["note"]) == (
        "Warning",
        "MinExceedsMax",
        "n",
    )
    assert post.body["reportingController"] == "capacity-scheduler"


async def test_a_standby_records_nothing() -> None:
    api = FakeApi()
    recorder = EventRecorder(api, hostname="host-1")
    assert not record(handle(api, recorder, leading=False))
    await recorder.drain(timeout=1)
    assert api.posts() == []


def test_the_handles_without_a_cluster_record_nothing() -> None:
    for offline in (OfflineHandle(), ReadOnlyHandle(Snapshot())):
        assert not record(offline)
