"""`default_selector`: upstream `helper.DefaultSelector` (Services, RCs, RSs, StatefulSets)."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.model import Pod, WorkloadSelector
from kubesched.plugins.helper.spread import default_selector
from kubesched.testing import FakeHandle, make_pod


def workload(kind: str, name: str, selector: Any, namespace: str = "default") -> WorkloadSelector:
    obj = {"metadata": {"namespace": namespace, "name": name}, "spec": {"selector": selector}}
    return WorkloadSelector.from_json(kind, obj)


def owned(kind: str, name: str, api_version: str, **labels: str) -> Pod:
    obj = make_pod().name("p").obj()
    obj["metadata"]["labels"] = labels
    obj["metadata"]["ownerReferences"] = [
        {"apiVersion": api_version, "kind": kind, "name": name, "uid": "u", "controller": True}
    ]
    return Pod.from_json(obj)


def matches(pod: Pod, handle: FakeHandle, labels: dict[str, str]) -> bool:
    return default_selector(pod, handle).matches(labels)


def test_services_selecting_the_pod_are_merged() -> None:
    handle = FakeHandle(
        workloads=[
            workload("Service", "a", {"app": "web"}),
            workload("Service", "b", {"tier": "front"}),
            workload("Service", "other", {"app": "db"}),
            workload("Service", "elsewhere", {"app": "web"}, namespace="ns2"),
        ]
    )
    pod = make_pod().name("p").label("app", "web").label("tier", "front").model()
    selector = default_selector(pod, handle)
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
    handle = FakeHandle(workloads=[workload(kind, "c", selector)])
    pod = owned(kind, "c", version, app="web")
    assert matches(pod, handle, {"app": "web"})
    assert not matches(pod, handle, {"app": "db"})


@pytest.mark.parametrize(
    ("kind", "version"),
    [("ReplicaSet", "extensions/v1beta1"), ("Deployment", "apps/v1"), ("StatefulSet", "v1")],
)
def test_other_owner_kinds_or_versions_add_nothing(kind: str, version: str) -> None:
    handle = FakeHandle(workloads=[workload("ReplicaSet", "c", {"matchLabels": {"app": "web"}})])
    assert default_selector(owned(kind, "c", version, app="web"), handle).empty


def test_an_invalid_controller_selector_is_ignored() -> None:
    bad = {"matchExpressions": [{"key": "app", "operator": "In", "values": []}]}
    handle = FakeHandle(
        workloads=[workload("ReplicaSet", "c", bad), workload("Service", "s", {"app": "web"})]
    )
    selector = default_selector(owned("ReplicaSet", "c", "apps/v1", app="web"), handle)
    assert selector.equals == (("app", "web"),)
    assert not selector.others
