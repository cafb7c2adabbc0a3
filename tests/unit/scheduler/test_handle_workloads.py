"""`SchedulerHandle.services` / `controller` over the store the Service and controller
informers fill, as `kubesched.server.components` wires them."""

from __future__ import annotations

import asyncio
from typing import Any

from api_fakes import FakeApi, wait_for

from kubesched.cache import Snapshot
from kubesched.framework import WaitingPods
from kubesched.model.workload_store import WorkloadStore
from kubesched.scheduler.event_recorder import EventRecorder
from kubesched.scheduler.handle import SchedulerHandle
from kubesched.server.informers import WORKLOAD_PATHS, workload_informers


def obj(name: str, rv: str, selector: Any) -> dict[str, Any]:
    meta = {"namespace": "ns", "name": name, "resourceVersion": rv}
    return {"metadata": meta, "spec": {"selector": selector}}


def listed(*items: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"items": list(items), "metadata": {"resourceVersion": "5"}}]


async def test_services_and_replica_sets_follow_their_informers() -> None:
    store = WorkloadStore()
    service_api = FakeApi(
        lists=[listed(obj("web", "1", {"app": "web"}))],
        watches=[[{"type": "DELETED", "object": obj("web", "6", {"app": "web"})}]],
    )
    rs_api = FakeApi(
        lists=[listed()],
        watches=[[{"type": "ADDED", "object": obj("web", "7", {"matchLabels": {"app": "web"}})}]],
    )
    services = workload_informers(service_api, store)["services"]  # type: ignore[arg-type]
    replica_sets = workload_informers(rs_api, store)["replicasets"]  # type: ignore[arg-type]
    handle = SchedulerHandle(
        profile="p",
        snapshot=Snapshot(),
        api=service_api,  # type: ignore[arg-type]
        recorder=EventRecorder(service_api),  # type: ignore[arg-type]
        waiting_pods=WaitingPods(),
        workloads=store,
    )
    tasks = [asyncio.create_task(r.run()) for r in (services, replica_sets)]
    try:
        await wait_for(lambda: services.resource_version == "6")
        await wait_for(lambda: replica_sets.resource_version == "7")
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    assert service_api.gets()[0].path == WORKLOAD_PATHS["Service"]
    assert handle.services("ns") == []  # added by the list, deleted by the watch
    found = handle.controller("ReplicaSet", "ns", "web")
    assert found is not None
    assert found.label_selector == {"matchLabels": {"app": "web"}}
    assert handle.controller("StatefulSet", "ns", "web") is None
