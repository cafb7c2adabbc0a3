"""What the model reads of the built-in resources' listers: a body trimmed to the parts a
resource keeps (`ResourceSpec.keep`), a PodDisruptionBudget and a workload's selector."""

from __future__ import annotations

from typing import Any

from kubesched.apis.config import PluginRef, PluginSet, Profile
from kubesched.framework import (
    POD_DISRUPTION_BUDGETS,
    REPLICA_SETS,
    SERVICES,
    Registry,
    ResourceSpec,
)
from kubesched.framework.resources import declared_resources
from kubesched.model import ApiObject, PodDisruptionBudget, WorkloadSelector


def test_keep_trims_the_body_to_the_paths_and_keeps_the_metadata() -> None:
    raw: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"namespace": "ns", "name": "web", "labels": {"app": "web"}},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"spec": {}}},
        "status": {"replicas": 3, "readyReplicas": 2},
    }
    obj = ApiObject.from_json(raw, keep=("spec.selector", "status.replicas", "missing.part"))
    assert obj.body == {
        "spec": {"selector": {"matchLabels": {"app": "web"}}},
        "status": {"replicas": 3},
    }
    assert (obj.namespace, obj.name, dict(obj.labels)) == ("ns", "web", {"app": "web"})
    assert ApiObject.from_json(raw, keep=("spec", "spec.selector")).body == {"spec": raw["spec"]}
    assert ApiObject.from_json(raw, keep=("spec.selector", "spec")).body == {"spec": raw["spec"]}
    assert ApiObject.from_json(raw).body == {"spec": raw["spec"], "status": raw["status"]}
    selector = {"matchLabels": {"app": "web"}, "matchExpressions": [], "other": 1}
    deep = ("spec.selector.matchLabels", "spec.selector.matchExpressions")
    assert ApiObject.from_json({"spec": {"selector": selector}}, keep=deep).body == {
        "spec": {"selector": {"matchLabels": {"app": "web"}, "matchExpressions": []}}
    }


def test_two_plugins_declaring_a_resource_keep_both_parts_or_the_whole_body() -> None:
    def reading(name: str, spec: ResourceSpec) -> type:
        return type(name, (), {"name": name, "resources": (spec,)})

    def united(*specs: ResourceSpec) -> tuple[str, ...]:
        registry = Registry()
        names = [f"P{i}" for i in range(len(specs))]
        for name, spec in zip(names, specs, strict=True):
            registry.register_class(reading(name, spec), source="test")
        enabled = PluginSet(enabled=tuple(PluginRef(name) for name in names))
        profile = Profile(scheduler_name="s", plugins={"multiPoint": enabled})
        (found,) = declared_resources([profile], registry)
        return found.keep

    selector = ResourceSpec("apps", "v1", "replicasets", keep=("spec.selector",))
    replicas = ResourceSpec("apps", "v1", "replicasets", keep=("status.replicas",))
    whole = ResourceSpec("apps", "v1", "replicasets")
    assert united(selector, replicas) == ("spec.selector", "status.replicas")
    assert united(selector, whole) == ()
    assert united(selector, selector) == ("spec.selector",)


def test_a_pod_disruption_budget_of_its_lister_object() -> None:
    raw = {
        "metadata": {"namespace": "ns", "name": "b", "resourceVersion": "4"},
        "spec": {"selector": {"matchLabels": {"app": "db"}}, "maxUnavailable": 1},
        "status": {"disruptionsAllowed": 1, "disruptedPods": {"db-0": "2024-01-01T00:00:00Z"}},
    }
    pdb = PodDisruptionBudget.of(ApiObject.from_json(raw, keep=POD_DISRUPTION_BUDGETS.keep))
    assert pdb == PodDisruptionBudget(
        namespace="ns",
        name="b",
        resource_version="4",
        selector={"matchLabels": {"app": "db"}},
        disruptions_allowed=1,
        disrupted_pods=frozenset({"db-0"}),
    )
    bare = PodDisruptionBudget.of(ApiObject.from_json({"metadata": {"name": "x"}}))
    assert (bare.selector, bare.disruptions_allowed, bare.disrupted_pods) == (None, 0, frozenset())


def test_a_workload_selector_is_a_map_or_a_label_selector_by_kind() -> None:
    def of(spec: Any, kind: str, selector: Any) -> WorkloadSelector:
        raw = {"metadata": {"namespace": "ns", "name": "w"}, "spec": {"selector": selector}}
        return WorkloadSelector.of(ApiObject.from_json(raw, keep=spec.keep), kind=kind)

    service = of(SERVICES, "Service", {"app": "web"})
    assert (service.match_labels, service.label_selector) == ({"app": "web"}, None)
    assert of(SERVICES, "Service", {}).match_labels is None
    rs = of(REPLICA_SETS, "ReplicaSet", {"matchLabels": {"app": "web"}})
    assert (rs.match_labels, rs.label_selector) == (None, {"matchLabels": {"app": "web"}})
    assert rs.key == ("ns", "w")
