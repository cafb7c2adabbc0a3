"""`SchedulerHandle.namespace_labels` over the namespace informer's store, as
`kubesched.server.components` wires it, and InterPodAffinity's `namespaceSelector` reading it."""

from __future__ import annotations

import asyncio
from typing import Any

from api_fakes import FakeApi, wait_for

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import WaitingPods
from kubesched.model import Namespace
from kubesched.plugins import InterPodAffinity
from kubesched.scheduler.event_recorder import EventRecorder
from kubesched.scheduler.handle import SchedulerHandle
from kubesched.server.informers import NAMESPACES_PATH, namespace_informer
from kubesched.testing import make_node, make_pod, run_filter_plugin

NAME_LABEL = "kubernetes.io/metadata.name"


def ns(name: str, rv: str, **labels: str) -> dict[str, Any]:
    meta = {"name": name, "resourceVersion": rv, "labels": {NAME_LABEL: name, **labels}}
    return {"metadata": meta}


def handle(api: FakeApi, snapshot: Snapshot, namespaces: Any) -> SchedulerHandle:
    return SchedulerHandle(
        profile="p",
        snapshot=snapshot,
        api=api,  # type: ignore[arg-type]
        recorder=EventRecorder(api),  # type: ignore[arg-type]
        waiting_pods=WaitingPods(),
        namespaces=namespaces,
    )


def test_namespace_decodes_name_version_and_labels() -> None:
    decoded = Namespace.from_json(ns("team-a", "7", team="a"))
    assert decoded == Namespace("team-a", "7", {NAME_LABEL: "team-a", "team": "a"})
    assert Namespace.from_json({"metadata": {"name": "bare"}}).labels == {}


async def test_labels_come_from_the_informer_and_follow_its_watch() -> None:
    api = FakeApi(
        lists=[[{"items": [ns("team-a", "1", team="a")], "metadata": {"resourceVersion": "5"}}]],
        watches=[
            [
                {"type": "ADDED", "object": ns("team-b", "6", team="b")},
                {"type": "MODIFIED", "object": ns("team-a", "7", team="c")},
            ]
        ],
    )
    informer = namespace_informer(api)  # type: ignore[arg-type]
    h = handle(api, Snapshot(), informer.store)
    task = asyncio.create_task(informer.run())
    try:
        await asyncio.wait_for(informer.synced.wait(), 1)
        assert api.gets()[0].path == NAMESPACES_PATH
        await wait_for(lambda: "team-b" in informer.store and informer.resource_version == "7")
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert h.namespace_labels("team-a") == {NAME_LABEL: "team-a", "team": "c"}
    assert h.namespace_labels("team-b") == {NAME_LABEL: "team-b", "team": "b"}
    assert h.namespace_labels("missing") is None


def test_without_a_store_every_namespace_has_only_its_name_label() -> None:
    h = handle(FakeApi(), Snapshot(), None)
    assert h.namespace_labels("x") == {NAME_LABEL: "x"}


def test_inter_pod_affinity_selects_namespaces_by_their_labels_through_the_handle() -> None:
    cache, snapshot = SchedulerCache(), Snapshot()
    for name in ("n1", "n2", "n3"):
        cache.add_node(make_node().name(name).label("zone", name).model())
    for name, namespace, node in (("a", "team-a", "n1"), ("b", "team-b", "n2")):
        pod = make_pod().name(name).namespace(namespace).label("app", "web").node(node)
        cache.add_pod(pod.model())
    cache.update_snapshot(snapshot)
    store = {
        "team-a": Namespace.from_json(ns("team-a", "1", team="a")),
        "team-b": Namespace.from_json(ns("team-b", "1", team="b")),
    }
    h = handle(FakeApi(), snapshot, store)
    term = {
        "labelSelector": {"matchLabels": {"app": "web"}},
        "topologyKey": "zone",
        "namespaceSelector": {"matchLabels": {"team": "a"}},
    }
    affinity = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    incoming = make_pod().name("new").namespace("default").label("app", "web")
    statuses = run_filter_plugin(
        InterPodAffinity(args={}, handle=h),
        incoming.affinity(affinity).model(),
        snapshot.node_infos,
    )
    assert {name for name, status in statuses.items() if status.is_success()} == {"n2", "n3"}
