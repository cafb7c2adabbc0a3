"""Which pod and which profile: NAMESPACE/POD, pods from files, pending checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from kubesched.config import load_config
from kubesched.explain import (
    ExplainError,
    check_pending,
    load_pod_file,
    parse_target,
    select_profile,
)
from kubesched.model import Pod
from kubesched.testing import make_pod


def test_parse_target() -> None:
    assert parse_target("demo/web-1") == ("demo", "web-1")
    for bad in ("web-1", "/web", "demo/", "a/b/c"):
        with pytest.raises(ExplainError, match="expected NAMESPACE/POD"):
            parse_target(bad)


def test_a_bound_pod_is_not_pending_and_the_error_names_its_node() -> None:
    obj = make_pod().name("p").namespace("demo").node("node-7").phase("Running").obj()
    with pytest.raises(ExplainError) as raised:
        check_pending(obj)
    assert (
        str(raised.value) == "pod demo/p is not pending: it is bound to node node-7 (phase Running)"
    )


def test_a_finished_pod_is_not_pending() -> None:
    obj = make_pod().name("p").namespace("demo").phase("Succeeded").obj()
    with pytest.raises(ExplainError, match=r"has finished \(phase Succeeded\)"):
        check_pending(obj)


def test_a_pending_pod_passes() -> None:
    check_pending(make_pod().name("p").obj())


def test_an_unserved_scheduler_name_lists_the_served_ones(tmp_path: Path) -> None:
    config = load_config(
        ["--scheduler-name=my-scheduler"], environ={}, namespace_file=tmp_path / "none"
    ).config
    assert select_profile(config, "demo/p", "my-scheduler").scheduler_name == "my-scheduler"
    with pytest.raises(ExplainError) as raised:
        select_profile(config, "demo/p", "default-scheduler")
    message = str(raised.value)
    assert "pod demo/p has spec.schedulerName 'default-scheduler'" in message
    assert "(it serves: my-scheduler)" in message
    assert "\n" not in message


# --- -f FILE -----------------------------------------------------------------------------
def write(tmp_path: Path, text: str, name: str = "pod.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_pod_file_becomes_a_pending_hypothetical_pod(tmp_path: Path) -> None:
    obj = make_pod().name("what-if").namespace("demo").scheduler("s1").req(cpu="2").obj()
    obj["status"] = {"phase": "Running", "nominatedNodeName": "n"}
    path = write(tmp_path, yaml.safe_dump(obj))
    pod_obj, notes = load_pod_file(path, target=None, default_scheduler="s0")
    pod = Pod.from_json(pod_obj)
    assert (pod.key, pod.scheduler_name, pod.phase) == ("demo/what-if", "s1", "Pending")
    assert pod.requests.milli_cpu == 2000
    assert not pod.nominated_node_name
    assert notes == []


def test_limits_without_requests_are_requested_as_the_api_server_defaults_them(
    tmp_path: Path,
) -> None:
    obj = make_pod().name("gpu").scheduler("s1").req(cpu="1").obj()
    container = obj["spec"]["containers"][0]
    container["resources"]["limits"] = {"cpu": "2", "nvidia.com/gpu": "1", "memory": "1Gi"}
    obj["spec"]["initContainers"] = [
        {"name": "init", "image": "i", "resources": {"limits": {"memory": "3Gi"}}}
    ]
    path = write(tmp_path, yaml.safe_dump(obj))
    pod = Pod.from_json(load_pod_file(path, target=None, default_scheduler="s0")[0])
    # cpu keeps its own request; the GPU and memory are requested at their limits, and the
    # init container's memory is the pod's floor.
    assert pod.requests.milli_cpu == 1000
    assert pod.requests.scalar["nvidia.com/gpu"] == 1
    assert pod.requests.memory == 3 * 2**30


def test_json_files_work_too_and_the_argument_renames_the_pod(tmp_path: Path) -> None:
    obj = make_pod().name("x").scheduler("s1").obj()
    path = write(tmp_path, json.dumps(obj), "pod.json")
    pod_obj, _ = load_pod_file(path, target=("ns2", "renamed"), default_scheduler="s0")
    assert Pod.from_json(pod_obj).key == "ns2/renamed"


def test_a_pod_without_scheduler_name_is_explained_for_the_first_profile(tmp_path: Path) -> None:
    obj = make_pod().name("x").obj()
    obj["metadata"].pop("namespace")
    path = write(tmp_path, yaml.safe_dump(obj))
    pod_obj, notes = load_pod_file(path, target=None, default_scheduler="s0")
    pod = Pod.from_json(pod_obj)
    assert (pod.key, pod.scheduler_name) == ("default/x", "s0")
    assert len(notes) == 1
    assert "sets no spec.schedulerName" in notes[0]


def test_a_deployment_is_explained_through_its_pod_template(tmp_path: Path) -> None:
    template = make_pod().scheduler("s1").label("app", "web").req(cpu="1").obj()
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "demo"},
        "spec": {
            "replicas": 3,
            "template": {"metadata": template["metadata"], "spec": template["spec"]},
        },
    }
    path = write(tmp_path, yaml.safe_dump(deployment))
    pod_obj, notes = load_pod_file(path, target=None, default_scheduler="s0")
    pod = Pod.from_json(pod_obj)
    assert pod.key == "demo/web-hypothetical"
    assert pod.labels == {"app": "web"}
    assert [(o.kind, o.name, o.controller) for o in pod.owners] == [("ReplicaSet", "web", True)]
    assert "Deployment" in notes[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("kind: Pod\nspec: [unclosed", "is not valid YAML or JSON"),
        ("---\nkind: Pod\n---\nkind: Pod\n", "holds 2 objects; give exactly one Pod"),
        ("", "holds 0 objects"),
        ("- a\n- b\n", "does not hold an object"),
        ("kind: Service\nmetadata: {name: s}\n", "holds a Service; give a Pod or one of"),
        ("kind: Pod\nmetadata: {name: p}\nspec: {}\n", "the pod has no spec.containers"),
        (
            "kind: Pod\nmetadata: {name: p}\nspec: {nodeName: n1, containers: [{name: c}]}\n",
            "already names a node (spec.nodeName=n1)",
        ),
        ("kind: Deployment\nmetadata: {name: d}\nspec: {}\n", "the Deployment has no pod template"),
    ],
)
def test_bad_files_are_one_line_errors(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ExplainError) as raised:
        load_pod_file(path, target=None, default_scheduler="s0")
    assert expected in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ExplainError, match=r"cannot read .*nope.yaml: No such file"):
        load_pod_file(str(tmp_path / "nope.yaml"), target=None, default_scheduler="s0")
