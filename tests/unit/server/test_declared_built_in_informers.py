"""The built-in resources in-tree plugins declare (namespaces, Services and controllers,
PodDisruptionBudgets): one informer each feeds its lister, as `kubesched.server.components`
wires them; the plugins read them through `SchedulerHandle.lister`; their changes move no
pod unless a plugin registered events about them (upstream registers none)."""

from __future__ import annotations

import asyncio
from typing import Any

from kubesched.cache import SchedulerCache, Snapshot
from kubesched.framework import (
    DEFAULT_SPREADING,
    NAMESPACES,
    POD_DISRUPTION_BUDGETS,
    REPLICA_SETS,
    SERVICES,
    ActionType,
    ClusterEvent,
    WaitingPods,
    resource_event,
)
from kubesched.framework.listers import ClusterListers
from kubesched.informers import Reflector
from kubesched.model import ApiObject
from kubesched.plugins import InterPodAffinity
from kubesched.plugins.helper.spread import SpreadListers
from kubesched.scheduler.event_recorder import EventRecorder
from kubesched.scheduler.handle import SchedulerHandle
from kubesched.server.informers import declared_informers
from kubesched.testing import make_node, make_pod, run_filter_plugin
from tests.unit.api_fakes import FakeApi, wait_for

NAME_LABEL = "kubernetes.io/metadata.name"


class Moves:
    """The queue's `move_all_to_active_or_backoff`, recorded."""

    def __init__(self) -> None:
        self.events: list[ClusterEvent] = []

    def move_all_to_active_or_backoff(self, event: ClusterEvent, old: Any, new: Any) -> None:
        del old, new
        self.events.append(event)


def ns(name: str, rv: str, **labels: str) -> dict[str, Any]:
    meta = {"name": name, "resourceVersion": rv, "labels": {NAME_LABEL: name, **labels}}
    return {"metadata": meta, "status": {"phase": "Active"}}


def listed(*items: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"items": list(items), "metadata": {"resourceVersion": "5"}}]


def handle(listers: ClusterListers, snapshot: Snapshot | None = None) -> SchedulerHandle:
    api = FakeApi()
    return SchedulerHandle(
        profile="p",
        snapshot=snapshot or Snapshot(),
        api=api,
        recorder=EventRecorder(api),
        waiting_pods=WaitingPods(),
        listers=listers,
    )


def informers_of(
    apis: dict[Any, FakeApi], listers: ClusterListers, moves: Moves, evented: set[str]
) -> list[Reflector[ApiObject]]:
    """The informer of each resource in `apis`, each listing and watching its own fake."""
    return [
        declared_informers(api, listers, moves, evented=evented)[spec.event_resource]  # type: ignore[arg-type]
        for spec, api in apis.items()
    ]


async def run_until(informers: list[Reflector[ApiObject]], rv: str) -> None:
    tasks = [asyncio.create_task(r.run()) for r in informers]
    try:
        for reflector in informers:
            await wait_for(lambda r=reflector: r.resource_version == rv)  # type: ignore[misc]
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_namespace_labels_follow_the_informer_into_the_lister() -> None:
    api = FakeApi(
        lists=[listed(ns("team-a", "1", team="a"))],
        watches=[
            [
                {"type": "ADDED", "object": ns("team-b", "6", team="b")},
                {"type": "MODIFIED", "object": ns("team-a", "7", team="c")},
            ]
        ],
    )
    listers, moves = ClusterListers([NAMESPACES]), Moves()
    informers = declared_informers(api, listers, moves)  # type: ignore[arg-type]
    assert list(informers) == ["namespaces"]
    await run_until(list(informers.values()), "7")
    assert api.gets()[0].path == "/api/v1/namespaces"
    lister = handle(listers).lister(NAMESPACES)
    assert {o.name: dict(o.labels) for o in lister.list()} == {
        "team-a": {NAME_LABEL: "team-a", "team": "c"},
        "team-b": {NAME_LABEL: "team-b", "team": "b"},
    }
    assert moves.events == []  # no plugin registered namespace events


async def test_services_and_controllers_keep_only_their_selectors() -> None:
    template = {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c"}]}}
    rs = {
        "metadata": {"namespace": "ns", "name": "web", "resourceVersion": "7"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": template},
        "status": {"replicas": 3},
    }
    service = {
        "metadata": {"namespace": "ns", "name": "web", "resourceVersion": "6"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]},
    }
    apis = {SERVICES: FakeApi(lists=[listed(service)]), REPLICA_SETS: FakeApi(lists=[listed(rs)])}
    listers, moves = ClusterListers(DEFAULT_SPREADING), Moves()
    await run_until(informers_of(apis, listers, moves, set()), "5")
    h = handle(listers)
    found = h.lister(REPLICA_SETS).get("web", "ns")
    assert found is not None
    assert found.body == {"spec": {"selector": {"matchLabels": {"app": "web"}}}}
    assert h.lister(SERVICES).list("ns")[0].body == {"spec": {"selector": {"app": "web"}}}
    spread = SpreadListers.of(h)
    controller = spread.controller("ReplicaSet", "ns", "web")
    assert controller is not None
    assert controller.label_selector == {"matchLabels": {"app": "web"}}
    assert spread.controller("StatefulSet", "ns", "web") is None
    assert moves.events == []


async def test_only_a_resource_some_plugin_registered_moves_pods() -> None:
    pdb = {"metadata": {"namespace": "ns", "name": "b", "resourceVersion": "6"}}
    apis = {
        POD_DISRUPTION_BUDGETS: FakeApi(
            lists=[listed()], watches=[[{"type": "ADDED", "object": pdb}]]
        ),
        NAMESPACES: FakeApi(
            lists=[listed()], watches=[[{"type": "ADDED", "object": ns("x", "6")}]]
        ),
    }
    listers, moves = ClusterListers(apis), Moves()
    evented = {POD_DISRUPTION_BUDGETS.event_resource}
    await run_until(informers_of(apis, listers, moves, evented), "6")
    assert moves.events == [resource_event(POD_DISRUPTION_BUDGETS, ActionType.ADD)]
    assert [o.name for o in listers.store(NAMESPACES).list()] == ["x"]


def test_inter_pod_affinity_selects_namespaces_by_their_labels_through_the_lister() -> None:
    cache, snapshot = SchedulerCache(), Snapshot()
    for name in ("n1", "n2", "n3"):
        cache.add_node(make_node().name(name).label("zone", name).model())
    for name, namespace, node in (("a", "team-a", "n1"), ("b", "team-b", "n2")):
        pod = make_pod().name(name).namespace(namespace).label("app", "web").node(node)
        cache.add_pod(pod.model())
    cache.update_snapshot(snapshot)
    listers = ClusterListers([NAMESPACES])
    for name, team in (("team-a", "a"), ("team-b", "b")):
        listers.add(NAMESPACES, ApiObject.from_json(ns(name, "1", team=team)))
    term = {
        "labelSelector": {"matchLabels": {"app": "web"}},
        "topologyKey": "zone",
        "namespaceSelector": {"matchLabels": {"team": "a"}},
    }
    affinity = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    incoming = make_pod().name("new").namespace("default").label("app", "web")
    statuses = run_filter_plugin(
        InterPodAffinity(args={}, handle=handle(listers, snapshot)),
        incoming.affinity(affinity).model(),
        snapshot.node_infos,
    )
    assert {name for name, status in statuses.items() if status.is_success()} == {"n2", "n3"}
