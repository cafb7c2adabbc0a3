"""docs/quotas.md on the real control plane: two teams sharing four GPUs, from nothing to a
reclaim, every command of the page run in order (its `sh` blocks, in a folder holding its
YAML blocks, with the cluster's admin kubeconfig as KUBECONFIG and kubesched's venv on the
PATH).

The background line (`kubesched --config=quota-scheduler.yaml &`) is started as the other
e2e modules start kubesched, with a free `--secure-port` and a `--cert-dir` added so it
runs beside other tests (it reads the cluster from KUBECONFIG, as the page's reader's).
After each command the test waits for what the page says it did (four team-a pods bound;
eval-0 bound and one team-a pod preempted), checks the outputs the page shows (the explain
verdict, the Preempted event) and, at the end, the `kubesched_elastic_quota_resource`
series the page names.
The page's namespaces, quotas and nodes are removed afterwards.
"""

from __future__ import annotations

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
GUIDE = ROOT / "docs" / "quotas.md"
EQ = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{ns}/elasticquotas/{ns}"
NAMESPACES = ("team-a", "team-b", "gpu-pool")
GPU = "nvidia.com/gpu"
CLI_TIMEOUT_SECONDS = 60.0


def _guide() -> tuple[list[str], dict[str, str], list[str]]:
    return page_blocks(GUIDE)


def _run(command: str, cwd: Path, env: dict[str, str]) -> str:
    return run_page_command(command, cwd, env, timeout=CLI_TIMEOUT_SECONDS)


def _pods(api: ApiClient, namespace: str) -> list[dict[str, Any]]:
    """The pods of a namespace that are not being deleted."""
    pods = api.list("Pod", namespace=namespace)
    return [pod for pod in pods if not pod["metadata"].get("deletionTimestamp")]


def _bound(api: ApiClient, namespace: str) -> Callable[[], list[str]]:
    return lambda: sorted(p["metadata"]["name"] for p in _pods(api, namespace) if is_bound(p))


def _series(proc: KubeschedProcess) -> dict[tuple[str, str, str], float]:
    """(namespace, resource, kind) -> value of kubesched_elastic_quota_resource."""
    status, text = proc.get("/metrics")
    assert status == 200, text[:300]
    found: dict[tuple[str, str, str], float] = {}
    for line in text.splitlines():
        if line.startswith("kubesched_elastic_quota_resource{"):
            labels = dict(re.findall(r'(\w+)="([^"]*)"', line))
            found[labels["namespace"], labels["resource"], labels["kind"]] = float(line.split()[-1])
    return found


def _cleanup(api: ApiClient) -> None:
    """The page's quotas (deleted first: a quota left behind would count in every later
    module's sum of mins), then its namespaces, handed to the harness's cleanup."""
    for namespace in NAMESPACES:
        if api.get_or_none("Namespace", namespace) is None:
            continue
        try:
            api.request("DELETE", EQ.format(ns=namespace))
        except ApiError as error:
            if error.status != 404:
                raise
        api.patch("Namespace", namespace, {"metadata": {"labels": {TEST_LABEL: "quotas"}}})


def test_two_teams_share_a_gpu_pool_as_the_page_says(
    workload_cluster: LocalCluster, api: ApiClient, tmp_path: Path
) -> None:
    """On the whole local cluster (kwok runs the pods and completes the victim's deletion,
    as the page's reader's cluster does)."""
    commands, files, shown = _guide()
    for name, body in files.items():
        (tmp_path / name).write_text(body)
    bin_dir = str(Path(sys.executable).parent)
    env = {
        **os.environ,
        "KUBECONFIG": str(workload_cluster.kubeconfig_path),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    scheduler: KubeschedProcess | None = None
    outputs: dict[str, str] = {}
    try:
        for command in commands:
            if command.endswith("&"):
                scheduler = start_page_scheduler(
                    command, env, tmp_path, workload_cluster.admin_token, name="quota-scheduler"
                )
                continue
            outputs[command] = _run(command, tmp_path, env)
            wait_with_log_tail(partial(_wait_for_effect, command, api), scheduler)
        assert scheduler is not None
        _check_outputs(outputs, shown)
        _check_metrics(scheduler)
    finally:
        if scheduler is not None:
            scheduler.stop()
        _cleanup(api)


def _wait_for_effect(command: str, api: ApiClient) -> None:
    if command == "kubectl apply -f team-a-training.yaml":
        wanted = [f"train-{i}" for i in range(4)]
        wait_for(
            _bound(api, "team-a"),
            until=lambda names: names == wanted,
            message="team-a's four training pods are bound",
            timeout=60,
        )
    if command == "kubectl apply -f team-b-eval.yaml":
        wait_for(
            _bound(api, "team-b"),
            until=lambda names: names == ["eval-0"],
            message="team-b's eval-0 is bound",
            timeout=90,
        )
        wait_for(
            lambda: len(_pods(api, "team-a")),
            until=lambda count: count == 3,
            message="one of team-a's pods was preempted",
            timeout=60,
        )


def _check_outputs(outputs: dict[str, str], shown: list[str]) -> None:
    [listing] = [
        out for cmd, out in outputs.items() if cmd.startswith("kubectl get pods -n team-a")
    ]
    assert len(re.findall(r"^train-\d .*pool-gpu-\d", listing, flags=re.MULTILINE)) == 4, listing
    [explained] = [out for cmd, out in outputs.items() if cmd.startswith("kubesched explain")]
    for line in shown:  # the page's text block, the victim and its node left open
        pattern = (
            re.escape(line)
            .replace("train\\-1", r"train\-\d")
            .replace("pool\\-gpu\\-1", r"pool\-gpu\-\d")
        )
        assert re.search(pattern, explained), f"{line!r} not in:\n{explained}"
    [events] = [out for cmd, out in outputs.items() if "reason=Preempted" in cmd]
    assert "Preempted by pod" in events, events


def _check_metrics(scheduler: KubeschedProcess) -> None:
    got = _series(scheduler)
    assert got[("team-a", GPU, "used")] == 3, got
    assert got[("team-a", GPU, "borrowed")] == 1, got
    assert got[("team-a", GPU, "runtime")] == 3, got
    assert got[("team-b", GPU, "used")] == 1, got
    assert got[("team-b", GPU, "min")] == 2, got
