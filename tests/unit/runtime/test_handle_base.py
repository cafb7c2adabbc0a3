"""`HandleBase`: what the scheduler's, explain's, the offline check's and the tests' Handles
share, the same in each: an undeclared resource's KeyError, the listers, waiting pods and
the shared DRA manager; and, for the in-memory ones, nominations, recorded preemptions and
objects read from the listers."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.cache import Snapshot
from kubesched.explain import ReadOnlyHandle
from kubesched.framework import ObjectWriteError, ResourceSpec, WaitingPods
from kubesched.framework.dra import DEVICE_CLASSES
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject
from kubesched.plugins.dynamic_resources.resources import ALL as DRA_RESOURCES
from kubesched.runtime.dra_manager import DraManager
from kubesched.runtime.handle_base import HandleBase
from kubesched.runtime.offline import OfflineHandle
from kubesched.scheduler.event_recorder import EventRecorder
from kubesched.scheduler.handle import SchedulerHandle
from kubesched.testing import FakeHandle, make_pod
from tests.unit.api_fakes import FakeApi

CONFIGMAPS = ResourceSpec("", "v1", "configmaps")
UNDECLARED = ResourceSpec("example.com", "v1", "widgets")


def scheduler_handle(
    listers: ClusterListers, profile: str = "p", dra_manager: DraManager | None = None
) -> SchedulerHandle:
    api = FakeApi()
    return SchedulerHandle(
        profile=profile,
        snapshot=Snapshot(),
        api=api,
        recorder=EventRecorder(api),
        waiting_pods=WaitingPods(),
        listers=listers,
        dra_manager=dra_manager,
    )


def handles(listers: ClusterListers) -> list[Any]:
    return [
        scheduler_handle(listers),
        ReadOnlyHandle(Snapshot(), listers=listers),
        OfflineHandle(listers),
        FakeHandle(listers=listers),
    ]


def test_every_handle_reads_the_listers_and_names_the_fix_for_an_undeclared_resource() -> None:
    listers = ClusterListers([CONFIGMAPS])
    listers.add(CONFIGMAPS, ApiObject(namespace="ns", name="rule"))
    for handle in handles(listers):
        assert isinstance(handle, HandleBase)
        assert handle.lister(CONFIGMAPS).get("rule", "ns") is not None
        assert handle.pod_lister() is listers.pods
        assert isinstance(handle.waiting_pods, WaitingPods)
        assert handle.volume_listers is not None
        with pytest.raises(KeyError, match=r"widgets\.v1\.example\.com is not declared: list it"):
            handle.lister(UNDECLARED)


def test_every_handle_answers_one_dra_manager_over_its_listers() -> None:
    listers = ClusterListers(DRA_RESOURCES)
    listers.add(DEVICE_CLASSES, ApiObject.from_json({"metadata": {"name": "gpu"}, "spec": {}}))
    for handle in handles(listers):
        manager = handle.shared_dra_manager()
        assert manager is handle.shared_dra_manager()
        assert manager.device_class("gpu") is not None


def test_the_scheduler_handles_share_the_manager_they_are_given() -> None:
    listers = ClusterListers(DRA_RESOURCES)
    shared = DraManager(listers)
    profiles = [scheduler_handle(listers, name, shared) for name in ("a", "b")]
    assert all(handle.shared_dra_manager() is shared for handle in profiles)


async def test_the_in_memory_handles_hold_nominations_record_preemptions_and_read_objects() -> None:
    listers = ClusterListers([CONFIGMAPS])
    listers.add(CONFIGMAPS, ApiObject(namespace="ns", name="rule"))
    nominated = make_pod().name("held").nominated_node("n1").model()
    victim = make_pod().name("low").node("n1").model()
    fake = FakeHandle(listers=listers)
    fake.nominate(nominated, "n1")
    readonly = ReadOnlyHandle(Snapshot(), nominated=[nominated], listers=listers)
    offline = OfflineHandle(listers)
    offline.nominated["n1"] = [nominated]
    for handle in (readonly, offline, fake):
        assert handle.has_nominated_pods()
        assert [p.name for p in handle.nominated_pods_for_node("n1")] == ["held"]
        assert handle.nominated_pods_for_node("n2") == []
        handle.preempt(nominated, node_name="n1", victims=[victim])
        assert [p.keys for p in handle.preemptions] == [("default/held", "n1", ("default/low",))]
        assert (await handle.get_object(CONFIGMAPS, "ns", "rule")).name == "rule"
        with pytest.raises(ObjectWriteError) as missing:
            await handle.get_object(CONFIGMAPS, "ns", "gone")
        assert missing.value.not_found
    assert fake.preempting == {nominated.uid}
