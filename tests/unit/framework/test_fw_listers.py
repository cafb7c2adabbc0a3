"""IndexedStore: the lister plugins read, kept by an informer's events."""

from __future__ import annotations

import pytest

from kubesched.apis.config import PluginRef, PluginSet, Profile
from kubesched.apis.resources import ResourceSpec
from kubesched.framework import ActionType
from kubesched.framework.listers import ClusterListers, IndexedStore
from kubesched.framework.resources import declared_resources, resource_event
from kubesched.model import ApiObject
from kubesched.plugins import config_registry

CONFIGMAPS = ResourceSpec("", "v1", "configmaps", label_indexes=("team",))


def _cm(name: str, namespace: str = "a", **labels: str) -> ApiObject:
    return ApiObject.from_json(
        {"metadata": {"name": name, "namespace": namespace, "labels": labels}, "data": {"k": name}}
    )


def test_index_follows_adds_updates_and_deletes() -> None:
    store = IndexedStore[ApiObject](label_indexes=("team",))
    one, two = _cm("one", team="red"), _cm("two", "b", team="red")
    store.on_add(one)
    store.on_add(two)
    assert {o.name for o in store.by_label("team", "red")} == {"one", "two"}
    assert [o.name for o in store.by_label("team", "red", namespace="b")] == ["two"]
    moved = _cm("one", team="blue")
    store.on_update(one, moved)
    assert [o.name for o in store.by_label("team", "red")] == ["two"]
    assert store.get("one", "a") is moved
    store.on_delete(two)
    assert store.list() == [moved]
    assert store.list("b") == []


def test_unindexed_labels_are_scanned_and_listeners_hear_changes() -> None:
    store = IndexedStore[ApiObject]()
    heard: list[tuple[str | None, str | None]] = []
    store.subscribe(
        lambda old, new: heard.append(
            (old.name if old is not None else None, new.name if new is not None else None)
        )
    )
    store.on_add(_cm("x", env="prod"))
    store.on_delete(_cm("x", env="prod"))
    assert heard == [(None, "x"), ("x", None)]
    store.on_add(_cm("y", env="prod"))
    assert [o.name for o in store.by_label("env", "prod")] == ["y"]
    assert store.get("x", "a") is None
    assert store.get("y", "a").body["data"] == {"k": "y"}  # type: ignore[union-attr]


def test_undeclared_resources_are_refused_with_the_fix() -> None:
    with pytest.raises(KeyError, match="resources"):
        ClusterListers().store(CONFIGMAPS)


def test_resource_paths_and_event_names() -> None:
    pg = ResourceSpec("scheduling.x-k8s.io", "v1alpha1", "podgroups")
    assert pg.path == "/apis/scheduling.x-k8s.io/v1alpha1/podgroups"
    assert (
        pg.object_path(namespace="n", name="g")
        == "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/n/podgroups/g"
    )
    assert CONFIGMAPS.path == "/api/v1/configmaps"
    assert (
        resource_event(pg, ActionType.UPDATE).label == "podgroups.v1alpha1.scheduling.x-k8s.io"
        "Update"
    )


def test_declared_resources_come_from_enabled_plugins_only() -> None:
    registry = config_registry()
    default = Profile(scheduler_name="s")
    dra = {
        ("resource.k8s.io", "resourceclaims"),
        ("resource.k8s.io", "deviceclasses"),
        ("resource.k8s.io", "resourceslices"),
        ("resource.k8s.io", "devicetaintrules"),
    }
    # InterPodAffinity, PodTopologySpread and DefaultPreemption read built-in resources.
    built_in = {
        ("", "namespaces"),
        ("", "services"),
        ("", "replicationcontrollers"),
        ("apps", "replicasets"),
        ("apps", "statefulsets"),
        ("policy", "poddisruptionbudgets"),
    }
    declared = {(s.group, s.resource) for s in declared_resources([default], registry)}
    assert declared == dra | built_in
    without = ("DynamicResources", "InterPodAffinity", "PodTopologySpread", "DefaultPreemption")
    no_dra = Profile(
        scheduler_name="n",
        plugins={"multiPoint": PluginSet(disabled=tuple(PluginRef(n) for n in without))},
    )
    # NodeResourcesFit reads DeviceClasses too (extended resources backed by DRA).
    assert [(s.group, s.resource) for s in declared_resources([no_dra], registry)] == [
        ("resource.k8s.io", "deviceclasses")
    ]
    gang = Profile(
        scheduler_name="g",
        plugins={"multiPoint": PluginSet(enabled=(PluginRef("Coscheduling"),))},
    )
    found = declared_resources([default, gang], registry)
    assert {(s.group, s.resource) for s in found} == {
        ("scheduling.x-k8s.io", "podgroups"),
        ("", "pods"),
        *dra,
        *built_in,
    }
    assert next(s for s in found if s.resource == "pods").label_indexes == (
        "scheduling.x-k8s.io/pod-group",
    )
