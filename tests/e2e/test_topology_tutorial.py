"""docs/topology.md on the real control plane (kube-apiserver with GenericWorkload and
TopologyAwareWorkloadScheduling, as the page asks): a rack-local training job and a
NUMA-pinned pod from nothing, every command of the page run in order (its `sh` blocks, in a
folder holding its YAML blocks, with the cluster's admin kubeconfig as KUBECONFIG and
kubesched's venv on the PATH), but for the two that start a dev cluster: the harness's
control plane has the same gates, and test_dev_cluster_topology.py runs those two.

The background line (`kubesched --config=topology-scheduler.yaml ... &`) is started as the
other e2e modules start kubesched, with a free `--secure-port` and a `--cert-dir` added.
After each command the test waits for what the page says it did (the four workers bound in
rack-a, two per node, with the PodGroup's condition; the pinned pod bound to numa-1) and
checks that every line of the page's `text` blocks is in the explain outputs (the workers'
nodes within rack-a left open: the scheduler breaks score ties at random).
The page's namespace and NodeResourceTopology objects are removed afterwards (the harness
removes the nodes).
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from kubesched.localcluster import LocalCluster
from tests.e2e.harness import TEST_LABEL, ApiClient, ApiError, is_bound, wait_for
from tests.e2e.harness.kubesched import KubeschedProcess
from tests.e2e.harness.tutorial import (
    page_blocks,
    run_page_command,
    start_page_scheduler,
    wait_with_log_tail,
)

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "topology.md"
NRT_PATH = "/apis/topology.node.k8s.io/v1alpha2/noderesourcetopologies"
PODGROUP = "/apis/scheduling.k8s.io/v1beta1/namespaces/ml/podgroups/train"
CLI_TIMEOUT_SECONDS = 60.0
WORKERS = [f"train-{i}" for i in range(4)]


def _guide() -> tuple[list[str], dict[str, str], list[str]]:
    return page_blocks(GUIDE)


def _run(command: str, cwd: Path, env: dict[str, str]) -> str:
    return run_page_command(command, cwd, env, timeout=CLI_TIMEOUT_SECONDS)


def _nodes(api: ApiClient) -> Callable[[], dict[str, str]]:
    """Pod name -> node of the bound pods of namespace ml."""

    def read() -> dict[str, str]:
        pods = api.list("Pod", namespace="ml")
        return {p["metadata"]["name"]: p["spec"]["nodeName"] for p in pods if is_bound(p)}

    return read


def test_a_rack_local_job_and_a_numa_pinned_pod_as_the_page_says(
    local_cluster: LocalCluster, api: ApiClient, tmp_path: Path
) -> None:
    commands, files, shown = _guide()
    for name, body in files.items():
        (tmp_path / name).write_text(body)
    bin_dir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "KUBECONFIG": str(local_cluster.kubeconfig_path),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    scheduler: KubeschedProcess | None = None
    outputs: dict[str, str] = {}
    as_json: dict[str, dict[str, Any]] = {}
    try:
        for command in commands:
            if "kubesched dev-cluster" in command:
                continue  # the harness's cluster here; test_dev_cluster_topology.py runs them
            if command.endswith("&"):
                scheduler = start_page_scheduler(
                    command, env, tmp_path, local_cluster.admin_token, name="topology-scheduler"
                )
            else:
                outputs[command] = _run(command, tmp_path, env)
            if command.startswith("kubesched explain"):  # what the page says of -o json
                as_json[command] = json.loads(_run(f"{command} -o json", tmp_path, env))
            wait_with_log_tail(partial(_wait_for_effect, command, api), scheduler)
        _check_outputs(outputs, shown)
        _check_json(list(as_json.values()))
    finally:
        if scheduler is not None:
            scheduler.stop()
        _cleanup(api)


def _wait_for_effect(command: str, api: ApiClient) -> None:
    if command == "kubectl apply -f training.yaml":
        # Still Pending: nothing serves rack-scheduler yet.
        assert _nodes(api)() == {}
    if command.startswith("kubesched --config="):
        placed = wait_for(
            _nodes(api),
            until=lambda nodes: sorted(nodes) == WORKERS,
            message="the four workers are bound",
            timeout=60,
        )
        assert sorted(placed.values()) == ["a-1", "a-1", "a-2", "a-2"], placed
        wait_for(
            lambda: _condition(api),
            until=lambda found: found == "True",
            message="the PodGroup is PodGroupInitiallyScheduled",
            timeout=30,
        )
    if command == "kubectl apply -f numa-pod.yaml":
        wait_for(
            lambda: _nodes(api)().get("pinned"),
            until=lambda node: node == "numa-1",
            message="the pinned pod is bound to numa-1",
            timeout=60,
        )


def _condition(api: ApiClient) -> str:
    status = api.request("GET", PODGROUP).get("status") or {}
    for condition in status.get("conditions") or ():
        if condition["type"] == "PodGroupInitiallyScheduled":
            return str(condition["status"])
    return ""


def _check_outputs(outputs: dict[str, str], shown: list[str]) -> None:
    explained = "\n".join(
        out for cmd, out in outputs.items() if cmd.startswith("kubesched explain")
    )
    for line in shown:  # the workers' nodes within rack-a left open (random among ties)
        pattern = (
            re.escape(line)
            .replace("on\\ a\\-1", r"on\ a\-[12]")
            .replace("on\\ a\\-2", r"on\ a\-[12]")
        )
        assert re.search(f"^{pattern}$", explained, flags=re.MULTILINE), (
            f"{line!r} not in:\n{explained}"
        )
    [listing] = [out for cmd, out in outputs.items() if cmd.startswith("kubectl get pods -n ml")]
    assert len(re.findall(r"^train-\d .* a-[12] ", listing, flags=re.MULTILINE)) == 4, listing
    [pinned] = [out for cmd, out in outputs.items() if cmd.startswith("kubectl get pod -n ml")]
    assert re.search(r"^pinned .* numa-1 ", pinned, flags=re.MULTILINE), pinned


def _check_json(answers: list[dict[str, Any]]) -> None:
    """`group.placements` of the job's explain, `findings.NodeResourceTopologyMatch` of the
    pinned pod's, as the page says."""
    job, pinned = answers
    placements = job["group"]["placements"]
    assert placements["topologyKey"] == "topology.kubernetes.io/rack"
    assert placements["chosen"] == "rack-a"
    assert placements["podNode"] in {"a-1", "a-2"}
    rack_b = next(p for p in placements["placements"] if p["domain"] == "rack-b")
    assert rack_b["feasible"] is False
    assert rack_b["members"][2] == {
        "name": "train-2",
        "fits": False,
        "reason": "0/1 nodes are available: 1 Insufficient cpu.",
        "plugins": ["NodeResourcesFit"],
    }
    assert job["summary"].startswith("kubesched would place the group in rack-a")
    numa = {row["node"]: row for row in pinned["findings"]["NodeResourceTopologyMatch"]["nodes"]}
    assert numa["numa-1"]["hosts"] == ["node-1"]
    assert numa["numa-1"]["zones"][1] == {
        "name": "node-1",
        "available": {"cpu": "8", "memory": "16Gi"},
    }
    assert numa["numa-2"]["verdict"].startswith("cannot align pod")
    assert pinned["choice"]["node"] == "numa-1"


def _cleanup(api: ApiClient) -> None:
    """The page's NodeResourceTopology objects (cluster-scoped), then its namespace, handed
    to the harness's clean-up (which deletes every node)."""
    for name in ("numa-1", "numa-2"):
        try:
            api.request("DELETE", f"{NRT_PATH}/{name}")
        except ApiError as error:
            if error.status != 404:
                raise
    if api.get_or_none("Namespace", "ml") is not None:
        api.patch("Namespace", "ml", {"metadata": {"labels": {TEST_LABEL: "topology"}}})
