"""`kubesched explain` on the real control plane.

Four nodes: one tainted, one too small, two that fit with different load. A pod for a
scheduler name no running scheduler serves stays Pending; explain (a separate process,
admin kubeconfig) names the plugin and reason for every rejected node and the node it would
choose, without writing anything (the pod's resourceVersion does not change, no events).
Then kubesched starts and binds the pod to the explained node, or reports the explained
FailedScheduling message word for word.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for

SCHEDULER = "explain-scheduler"
CLI_TIMEOUT_SECONDS = 90.0
TAINT = "node(s) had untolerated taint(s)"


def explain(cluster: LocalCluster, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m kubesched explain ARGS --kubeconfig=<admin>` (no KUBECONFIG from outside)."""
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"}
    argv = [
        sys.executable,
        "-m",
        "kubesched",
        "explain",
        *args,
        f"--kubeconfig={cluster.kubeconfig_path}",
    ]
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=CLI_TIMEOUT_SECONDS, env=env, check=False
    )


def explain_json(cluster: LocalCluster, *args: str) -> dict[str, Any]:
    done = explain(cluster, *args, f"--scheduler-name={SCHEDULER}", "-o", "json")
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


@pytest.fixture
def four_nodes(api: ApiClient, namespace: str) -> None:
    """tainted, small (500m CPU), busy (2 of 4 CPUs used), idle (4 CPUs free)."""
    big = {"cpu": "4", "memory": "8Gi"}
    api.create(make_node().name("ex-tainted").capacity(**big).taint("dedicated", "gpu").obj())
    api.create(make_node().name("ex-small").capacity(cpu="500m", memory="1Gi").obj())
    api.create(make_node().name("ex-busy").capacity(**big).obj())
    api.create(make_node().name("ex-idle").capacity(**big).obj())
    load = make_pod().name("load").node("ex-busy").req(cpu="2", memory="4Gi")
    api.create(load.obj(), namespace=namespace)


def pending_pod(api: ApiClient, namespace: str, name: str, **req: str) -> dict[str, Any]:
    pod = make_pod().name(name).scheduler(SCHEDULER).req(**req)
    return api.create(pod.obj(), namespace=namespace)


def rows(table: str) -> dict[str, str]:
    """Node name -> its table row."""
    lines = table.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("NODE "))
    found = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        found[line.split()[0]] = line
    return found


@pytest.mark.usefixtures("four_nodes")
def test_explain_names_every_verdict_and_kubesched_binds_where_it_said(
    local_cluster: LocalCluster, api: ApiClient, namespace: str, kubesched: Any
) -> None:
    before = pending_pod(api, namespace, "web", cpu="1", memory="1Gi")

    done = explain(local_cluster, f"{namespace}/web", f"--scheduler-name={SCHEDULER}")
    assert done.returncode == 0, done.stderr
    table = rows(done.stdout)
    assert list(table) == ["ex-idle", "ex-busy", "ex-small", "ex-tainted"]
    assert table["ex-tainted"].endswith(f"rejected by TaintToleration: {TAINT}")
    assert table["ex-small"].endswith("rejected by NodeResourcesFit: Insufficient cpu")
    assert table["ex-idle"].endswith("feasible, chosen")
    assert table["ex-busy"].endswith("feasible")
    assert "preemption: not needed: the pod fits" in done.stdout
    assert "sampling: the scheduler stops filtering once it has found 4 feasible nodes" in (
        done.stdout
    )
    assert done.stdout.splitlines()[-1].startswith("kubesched would choose ex-idle (total score ")

    data = explain_json(local_cluster, f"{namespace}/web")
    assert data["choice"] == {"node": "ex-idle", "best": ["ex-idle"], "tie": False}
    nodes = {n["node"]: n for n in data["nodes"]}
    assert nodes["ex-tainted"]["rejection"]["plugin"] == "TaintToleration"
    assert nodes["ex-small"]["rejection"]["reasons"] == ["Insufficient cpu"]
    assert nodes["ex-idle"]["total"] > nodes["ex-busy"]["total"]
    fit = nodes["ex-idle"]["scores"]["NodeResourcesFit"]
    assert fit["weighted"] == fit["normalized"] * fit["weight"]

    # explain wrote nothing: the pod is untouched and nobody reported on it.
    pod = api.get("Pod", "web", namespace=namespace)
    assert pod["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"]
    assert api.events(namespace, regarding="web") == []

    kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    bound = wait_for(
        lambda: api.get("Pod", "web", namespace=namespace), until=is_bound, message="web bound"
    )
    assert bound["spec"]["nodeName"] == data["choice"]["node"]


@pytest.mark.usefixtures("four_nodes")
def test_the_failed_scheduling_message_is_the_one_kubesched_reports(
    local_cluster: LocalCluster, api: ApiClient, namespace: str, kubesched: Any, tmp_path: Path
) -> None:
    pending_pod(api, namespace, "huge", cpu="8")
    data = explain_json(local_cluster, f"{namespace}/huge")
    expected = (
        f"0/4 nodes are available: 1 {TAINT}, 3 Insufficient cpu. "
        "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    )
    assert data["failedScheduling"] == expected
    assert data["preemption"]["summary"] == (
        "would not help: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
    )
    assert data["choice"]["node"] is None
    plugins = {n["node"]: n["rejection"]["plugin"] for n in data["nodes"]}
    assert plugins == {
        "ex-tainted": "TaintToleration",
        "ex-small": "NodeResourcesFit",
        "ex-busy": "NodeResourcesFit",
        "ex-idle": "NodeResourcesFit",
    }

    # A profile without DefaultPreemption: no PostFilter part in the message (DynamicResources'
    # PostFilter still runs and, for a pod without resource claims, adds nothing).
    config = tmp_path / "config.yaml"
    config.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "leaderElection: {leaderElect: false}\n"
        "profiles:\n"
        f"- schedulerName: {SCHEDULER}\n"
        "  plugins: {postFilter: {disabled: [{name: DefaultPreemption}]}}\n"
    )
    done = explain(local_cluster, f"{namespace}/huge", f"--config={config}")
    assert done.returncode == 0, done.stderr
    assert (
        "\npreemption: not enabled in this profile (PostFilter plugin(s) DynamicResources ran)\n"
        in done.stdout
    )
    assert done.stdout.splitlines()[-1] == (
        f"FailedScheduling: 0/4 nodes are available: 1 {TAINT}, 3 Insufficient cpu."
    )

    kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    events = wait_for(
        lambda: api.events(namespace, regarding="huge", reason="FailedScheduling"),
        message="FailedScheduling for huge",
    )
    assert events[0].note == expected


@pytest.fixture
def priority_classes(api: ApiClient) -> Iterator[dict[str, str]]:
    """explain-e2e-mid (100) and explain-e2e-high (1000); deleted after the test."""
    classes = {"mid": ("explain-e2e-mid", 100), "high": ("explain-e2e-high", 1000)}
    for name, value in classes.values():
        api.delete("PriorityClass", name)
        api.create(
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
            }
        )
    try:
        yield {key: name for key, (name, _) in classes.items()}
    finally:
        for name, _ in classes.values():
            api.delete("PriorityClass", name)


@pytest.mark.usefixtures("four_nodes")
def test_explain_shows_what_preemption_would_do(
    local_cluster: LocalCluster,
    api: ApiClient,
    namespace: str,
    kubesched: Any,
    priority_classes: dict[str, str],
) -> None:
    # ex-idle gets a priority-100 pod using 3 CPUs; ex-busy carries `load` (priority 0,
    # 2 CPUs). A priority-1000 pod asking for 3 CPUs fits nowhere; evicting `load` is the
    # cheapest way to make room (lowest victim priority).
    filler = make_pod().name("filler").node("ex-idle").req(cpu="3").obj()
    filler["spec"]["priorityClassName"] = priority_classes["mid"]
    api.create(filler, namespace=namespace)
    vip = make_pod().name("vip").scheduler(SCHEDULER).req(cpu="3").obj()
    vip["spec"]["priorityClassName"] = priority_classes["high"]
    api.create(vip, namespace=namespace)

    data = explain_json(local_cluster, f"{namespace}/vip")
    assert data["choice"]["node"] is None
    assert data["preemption"]["nominatedNode"] == "ex-busy"
    assert data["preemption"]["victims"] == [{"pod": f"{namespace}/load", "priority": 0}]
    assert data["failedScheduling"].endswith(
        "preemption: found a potential placement for pod on node ex-busy, preempting 1 victims"
    )
    # Nothing was evicted or nominated by explain.
    assert api.get_or_none("Pod", "load", namespace=namespace) is not None
    assert "nominatedNodeName" not in api.get("Pod", "vip", namespace=namespace)["status"]

    kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    events = wait_for(
        lambda: api.events(namespace, regarding="vip", reason="FailedScheduling"),
        message="FailedScheduling for vip",
    )
    assert events[0].note == data["failedScheduling"]
    nominated = wait_for(
        lambda: api.get("Pod", "vip", namespace=namespace)["status"].get("nominatedNodeName"),
        message="vip nominated",
    )
    assert nominated == "ex-busy"


@pytest.mark.usefixtures("four_nodes")
def test_a_hypothetical_pod_from_a_file(
    local_cluster: LocalCluster, api: ApiClient, namespace: str, tmp_path: Path
) -> None:
    # 3 CPUs: only ex-idle has room (ex-busy has 2 left). No schedulerName in the file.
    obj = make_pod().name("what-if").namespace(namespace).req(cpu="3").obj()
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(obj))
    done = explain(local_cluster, "-f", str(path), f"--scheduler-name={SCHEDULER}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"hypothetical pod {namespace}/what-if (schedulerName ")
    table = rows(done.stdout)
    assert table["ex-busy"].endswith("rejected by NodeResourcesFit: Insufficient cpu")
    assert "note: the pod in" in done.stdout
    assert done.stdout.splitlines()[-1].startswith("kubesched would choose ex-idle")
    data = explain_json(local_cluster, "-f", str(path))
    assert data["hypothetical"] is True
    assert data["choice"]["node"] == "ex-idle"
    assert api.get_or_none("Pod", "what-if", namespace=namespace) is None


@pytest.mark.usefixtures("four_nodes")
def test_errors_are_one_line_with_exit_code_1(
    local_cluster: LocalCluster, api: ApiClient, namespace: str
) -> None:
    pending_pod(api, namespace, "web", cpu="1")
    cases = {
        (f"{namespace}/nope", f"--scheduler-name={SCHEDULER}"): (
            f"kubesched explain: pod {namespace}/nope not found"
        ),
        (f"{namespace}/load", f"--scheduler-name={SCHEDULER}"): (
            f"kubesched explain: pod {namespace}/load is not pending: it is bound to node ex-busy"
        ),
        (f"{namespace}/web", "--scheduler-name=someone-else"): (
            f"kubesched explain: pod {namespace}/web has spec.schedulerName '{SCHEDULER}', "
            "which this configuration does not serve (it serves: someone-else)"
        ),
    }
    for args, message in cases.items():
        done = explain(local_cluster, *args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        errors = [line for line in done.stderr.splitlines() if line.startswith("kubesched ")]
        assert len(errors) == 1, done.stderr
        assert errors[0].startswith(message)
        assert done.stdout == ""
