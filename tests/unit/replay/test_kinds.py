"""What `kubesched record` keeps of each object: what scheduling reads, and no more."""

from __future__ import annotations

from typing import Any

from kubesched.model import Node, Pod
from kubesched.replay.kinds import BY_NAME, KINDS, READ_ANNOTATIONS, strip
from kubesched.testing.builders import make_node, make_pod


def _pod() -> dict[str, Any]:
    obj = make_pod().name("p").req(cpu="500m", memory="1Gi").host_port(8080).obj()
    container = obj["spec"]["containers"][0]
    container.update(
        env=[{"name": "PASSWORD", "value": "hunter2"}],
        envFrom=[{"secretRef": {"name": "s"}}],
        command=["/bin/app"],
        args=["--token=abc"],
        livenessProbe={"httpGet": {"port": 8080}},
        volumeMounts=[{"name": "v", "mountPath": "/data"}],
    )
    obj["metadata"].update(
        managedFields=[{"manager": "kubectl"}],
        annotations={
            "kubectl.kubernetes.io/last-applied-configuration": "{...}",
            "volume.kubernetes.io/selected-node": "n1",
        },
    )
    obj["status"].update(
        hostIP="10.0.0.1",
        podIP="10.1.0.1",
        conditions=[{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}],
        nominatedNodeName="n2",
        containerStatuses=[{"name": "pause", "image": "x", "imageID": "sha", "ready": True}],
    )
    return obj


def test_a_pod_loses_env_command_args_probes_and_unread_status() -> None:
    kept = strip(BY_NAME["pods"], _pod())
    container = kept["spec"]["containers"][0]
    assert set(container) == {"name", "image", "ports", "resources"}
    assert "hunter2" not in str(kept)
    assert "managedFields" not in kept["metadata"]
    assert kept["metadata"]["annotations"] == {"volume.kubernetes.io/selected-node": "n1"}
    assert set(kept["status"]) == {"phase", "conditions", "nominatedNodeName", "containerStatuses"}
    assert kept["status"]["containerStatuses"] == [{"name": "pause"}]


def test_a_stripped_pod_parses_as_the_original_for_scheduling() -> None:
    original, kept = Pod.from_json(_pod()), Pod.from_json(strip(BY_NAME["pods"], _pod()))
    assert kept.requests == original.requests
    assert kept.nominated_node_name == original.nominated_node_name == "n2"
    assert kept.scheduled_condition == original.scheduled_condition


def test_a_node_keeps_resources_images_and_conditions_only() -> None:
    obj = make_node().name("n1").capacity(cpu="8").taint("k", "v").image("img", 100).obj()
    obj["status"].update(addresses=[{"type": "InternalIP", "address": "10.0.0.1"}])
    kept = strip(BY_NAME["nodes"], obj)
    assert set(kept["status"]) == {"capacity", "allocatable", "conditions", "images"}
    assert kept["status"]["conditions"] == [{"type": "Ready", "status": "True"}]
    assert Node.from_json(kept) == Node.from_json(obj)


def test_a_declared_resource_keeps_its_declared_parts() -> None:
    service = {
        "metadata": {"name": "s", "namespace": "a", "labels": {"x": "y"}},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}], "clusterIP": "10.0.0.9"},
        "status": {"loadBalancer": {}},
    }
    kept = strip(BY_NAME["services"], service)
    assert kept == {
        "metadata": {"name": "s", "namespace": "a", "labels": {"x": "y"}},
        "spec": {"selector": {"app": "web"}},
    }


def test_an_extra_annotation_is_kept_when_asked() -> None:
    obj = make_node().name("n1").obj()
    obj["metadata"]["annotations"] = {"example.com/rack": "r1", "other": "x"}
    kept = strip(BY_NAME["nodes"], obj, annotations=READ_ANNOTATIONS | {"example.com/rack"})
    assert kept["metadata"]["annotations"] == {"example.com/rack": "r1"}


def test_nodes_pods_and_namespaces_are_required_the_rest_optional() -> None:
    assert {kind.name for kind in KINDS if kind.required} == {"nodes", "pods", "namespaces"}
    assert {"apps/replicasets", "policy/poddisruptionbudgets", "persistentvolumeclaims"} < set(
        BY_NAME
    )
    assert "resource.k8s.io/resourceclaims" in BY_NAME
    assert BY_NAME["pods"].field_selector == "status.phase!=Succeeded,status.phase!=Failed"
