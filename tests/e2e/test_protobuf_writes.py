"""The real kube-apiserver reads kubesched's protobuf bodies as it reads their JSON: the same
Event (every field kubesched writes: series, related, a MicroTime with microseconds) and the
same Binding, one sent as JSON and one as protobuf, are stored alike, field for field."""

from __future__ import annotations

import asyncio
from typing import Any

from kubesched.kube.client import KubeClient
from kubesched.kube.connection import load_connection
from kubesched.kube.protobuf import PROTOBUF
from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient

# What the API server sets on every object by itself.
_SERVER_SET = {"uid", "resourceVersion", "creationTimestamp", "managedFields", "name"}


def event(name: str, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": name, "namespace": namespace},
        "eventTime": "2026-12-05T12:00:01.000250Z",
        "reportingController": "my-scheduler",
        "reportingInstance": "my-scheduler-host",
        "action": "Preempting",
        "reason": "Preempted",
        "regarding": {"kind": "Pod", "namespace": namespace, "name": "victim", "apiVersion": "v1"},
        "related": {"kind": "Pod", "namespace": namespace, "name": "preemptor", "uid": "u2"},
        "note": "Preempted by pod u2 on node n1",
        "type": "Normal",
        "series": {"count": 300, "lastObservedTime": "2026-12-05T12:00:02.500000Z"},
    }


def binding(pod: dict[str, Any], node: str) -> dict[str, Any]:
    meta = pod["metadata"]
    return {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": meta["name"], "namespace": meta["namespace"], "uid": meta["uid"]},
        "target": {"apiVersion": "v1", "kind": "Node", "name": node},
    }


async def write(local_cluster: LocalCluster, content_type: str, *requests: Any) -> None:
    connection = await load_connection(kubeconfig=str(local_cluster.kubeconfig_path))
    client = KubeClient(connection, content_type=content_type)
    try:
        for path, body in requests:
            await client.post(path, body)
    finally:
        await client.close()


def stored(obj: dict[str, Any]) -> dict[str, Any]:
    meta = {k: v for k, v in obj["metadata"].items() if k not in _SERVER_SET}
    return {**obj, "metadata": meta}


def test_protobuf_and_json_bodies_are_stored_alike(
    local_cluster: LocalCluster, api: ApiClient, namespace: str
) -> None:
    # The pods name a scheduler nobody runs, so only the test binds them.
    api.create(make_node().name("pb-node").capacity(cpu="4", pods="10").obj())
    pods = {
        kind: api.create(
            make_pod().name(f"{kind}-pod").namespace(namespace).scheduler("nobody").obj()
        )
        for kind in ("json", "pb")
    }
    events = f"/apis/events.k8s.io/v1/namespaces/{namespace}/events"
    for kind, content_type in (("json", "application/json"), ("pb", PROTOBUF)):
        asyncio.run(
            write(
                local_cluster,
                content_type,
                (events, event(f"{kind}-event", namespace)),
                (
                    f"/api/v1/namespaces/{namespace}/pods/{kind}-pod/binding",
                    binding(pods[kind], "pb-node"),
                ),
            )
        )
    path = f"{events}/{{}}"
    json_event, pb_event = (api.request("GET", path.format(f"{k}-event")) for k in ("json", "pb"))
    assert stored(pb_event) == stored(json_event)
    assert pb_event["eventTime"] == "2026-12-05T12:00:01.000250Z"
    assert pb_event["series"] == {"count": 300, "lastObservedTime": "2026-12-05T12:00:02.500000Z"}
    assert pb_event["related"]["name"] == "preemptor"
    for kind in ("json", "pb"):
        assert api.get("Pod", f"{kind}-pod", namespace=namespace)["spec"]["nodeName"] == "pb-node"
