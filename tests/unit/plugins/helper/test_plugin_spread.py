"""`default_selector`: upstream `helper.DefaultSelector` (Services, RCs, RSs, StatefulSets)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.framework import (
    REPLICA_SETS,
    REPLICATION_CONTROLLERS,
    SERVICES,
    STATEFUL_SETS,
    ResourceSpec,
)
from kubesched.model import Pod
from kubesched.plugins.helper.spread import SpreadListers, default_selector
from kubesched.testing import FakeHandle, make_pod

KINDS = {
    "Service": SERVICES,
    "ReplicationController": REPLICATION_CONTROLLERS,
    "ReplicaSet": REPLICA_SETS,
    "StatefulSet": STATEFUL_SETS,
}


def workload(
    kind: str, name: str, selector: Any, namespace: str = "default"
) -> tuple[ResourceSpec, dict[str, Any]]:
    obj = {"metadata": {"namespace": namespace, "name": name}, "spec": {"selector": selector}}
    return KINDS[kind], obj


def listers_with(*workloads: tuple[ResourceSpec, dict[str, Any]]) -> SpreadListers:
    return SpreadListers.of(FakeHandle(objects=workloads))


def owned(kind: str, name: str, api_version: str, **labels: str) -> Pod:
    obj = make_pod().name("p").obj()
    obj["metadata"]["labels"] = labels
    obj["metadata"]["ownerReferences"] = [
        {"apiVersion": api_version, "kind": kind, "name": name, "uid": "u", "controller": True}
    ]
    return Pod.from_json(obj)


def matches(pod: Pod, listers: SpreadListers, labels: dict[str, str]) -> bool:
    return default_selector(pod, listers).matches(labels)


def test_services_selecting_the_pod_are_merged() -> None:
    listers = listers_with(
        workload("Service", "a", {"app": "web"}),
        workload("Service", "b", {"tier": "front"}),
        workload("Service", "other", {"app": "db"}),
        workload("Service", "elsewhere", {"app": "web"}, namespace="ns2"),
    )
    pod = make_pod().name("p").label("app", "web").label("tier", "front").model()
    selector = default_selector(pod, listers)
    assert selector.equals == (("app", "web"), ("tier", "front"))


@pytest.mark.parametrize(
    ("kind", "version", "selector"),
    [
        ("ReplicationController", "v1", {"app": "web"}),
        ("ReplicaSet", "apps/v1", {"matchLabels": {"app": "web"}}),
        (
            "StatefulSet",
            "apps/v1",
            {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]},
        ),
    ],
)
def test_the_controllers_selector_is_added(kind: str, version: str, selector: Any) -> None:
    listers = listers_with(workload(kind, "c", selector))
    pod = owned(kind, "c", version, app="web")
    assert matches(pod, listers, {"app": "web"})
    assert not matches(pod, listers, {"app": "db"})


@pytest.mark.parametrize(
    ("kind", "version"),
    [("ReplicaSet", "extensions/v1beta1"), ("Deployment", "apps/v1"), ("StatefulSet", "v1")],
)
def test_other_owner_kinds_or_versions_add_nothing(kind: str, version: str) -> None:
    listers = listers_with(workload("ReplicaSet", "c", {"matchLabels": {"app": "web"}}))
    assert default_selector(owned(kind, "c", version, app="web"), listers).empty


def test_an_invalid_controller_selector_is_ignored() -> None:
    bad = {"matchExpressions": [{"key": "app", "operator": "In", "values": []}]}
    listers = listers_with(
        workload("ReplicaSet", "c", bad), workload("Service", "s", {"app": "web"})
    )
    selector = default_selector(owned("ReplicaSet", "c", "apps/v1", app="web"), listers)
    assert selector.equals == (("app", "web"),)
    assert not selector.others
