"""The quota case (CapacitySchedulingQuotas), its checks and the scheduler-plugins contender:
the quotas make some namespaces borrow while every pod still fits; the checks catch a
quota's `max` exceeded and borrowing beyond the sum of the `min`s."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from kubesched.bench import BenchSettings, ClientLimits, contenders, run_bench
from kubesched.bench.catalogue import SIZES, catalogue_workload
from kubesched.bench.catalogue_quotas import NAME, PLUGINS, pods_per_namespace
from kubesched.bench.quota_setup import borrowers, elastic_quota, problems_of
from kubesched.bench.tracker import PodTracker
from kubesched.model import Pod

LIMITS = ClientLimits(scheduler_name="bench", qps=100, burst=100)


def used_after_all_bound(size: str) -> tuple[list[dict[str, Any]], dict[str, dict[str, int]]]:
    """The case's quotas and what each namespace uses once all its measured pods are bound."""
    workload = catalogue_workload(NAME, size)
    used: dict[str, dict[str, int]] = {}
    for _path, body in workload.measured.pods("bench"):
        pod = Pod.from_json(body)
        total = used.setdefault(pod.namespace, {"cpu": 0, "memory": 0})
        total["cpu"] += pod.requests.milli_cpu
        total["memory"] += pod.requests.memory
    return list(workload.quotas), used


@pytest.mark.parametrize("size", SIZES)
def test_some_namespaces_borrow_and_every_pod_fits_its_quota(size: str) -> None:
    quotas, used = used_after_all_bound(size)
    assert sorted(q["metadata"]["namespace"] for q in quotas) == sorted(used)
    lending = set(used) - set(borrowers(quotas, used))
    assert borrowers(quotas, used)
    assert lending
    pods = [bound_pod(ns, ns, u["cpu"], memory=u["memory"]) for ns, u in used.items()]
    assert problems_of(quotas, pods) == []


def test_the_5000_node_size_has_50_quotas_and_half_of_them_borrow() -> None:
    workload = catalogue_workload(NAME, "5000")
    counts = pods_per_namespace(workload.measured)
    assert (workload.nodes, workload.initial_pods, workload.pods) == (5000, 1000, 10000)
    assert len(counts) == len(workload.quotas) == 50
    assert counts["quota-00"] == 300
    assert counts["quota-01"] == 100
    quotas, used = used_after_all_bound("5000")
    assert len(borrowers(quotas, used)) == 25


def test_the_case_runs_the_capacity_scheduling_profile_and_not_on_kube_scheduler() -> None:
    workload = catalogue_workload(NAME, "5")
    assert workload.plugins == PLUGINS
    assert workload.initial[0].namespace not in pods_per_namespace(workload.measured)
    settings = BenchSettings(workload=workload, limits=LIMITS)
    results, _machine = run_bench(settings, contenders=["kube-scheduler"], progress=print)
    assert "no CapacityScheduling" in results[0].skipped


def test_pod_names_are_unique_across_the_spread_namespaces() -> None:
    workload = catalogue_workload(NAME, "500")
    names = [body["metadata"]["name"] for _path, body in workload.measured.pods("bench")]
    assert len(set(names)) == len(names) == 1000
    paths = {path for path, _body in workload.measured.pods("bench")}
    assert paths == {f"/api/v1/namespaces/quota-0{i}/pods" for i in range(5)}


def bound_pod(
    namespace: str, name: str, milli_cpu: int, *, memory: int = 0, node: str = "n1"
) -> Pod:
    """A pod bound to `node` (none: "") requesting `milli_cpu` and `memory` bytes."""
    requests = {"cpu": f"{milli_cpu}m", "memory": str(memory)}
    body = {
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "nodeName": node,
            "containers": [{"name": "c", "resources": {"requests": requests}}],
        },
    }
    return Pod.from_json(body)


QUOTAS = [
    elastic_quota("a", minimum={"cpu": "2"}, maximum={"cpu": "3"}),
    elastic_quota("b", minimum={"cpu": "2"}, maximum={"cpu": "4"}),
]


def test_a_quota_over_its_max_is_a_problem() -> None:
    problems = problems_of(QUOTAS, [bound_pod("a", "p1", 2000), bound_pod("a", "p2", 1500)])
    assert problems == ["namespace a uses cpu 3500 > its ElasticQuota's max 3000"]


def test_borrowing_beyond_the_sum_of_the_mins_is_a_problem() -> None:
    pods = [bound_pod("a", "p1", 3000), bound_pod("b", "p2", 1500)]
    assert problems_of(QUOTAS, pods) == [
        (
            "1 quota(s) over their min (e.g. a) while all quotas together use cpu 4500 > the "
            "sum of their mins 4000"
        )
    ]
    assert problems_of(QUOTAS, [bound_pod("a", "p1", 3000), bound_pod("b", "p2", 1000)]) == []


def test_unbound_pods_and_pods_without_a_quota_do_not_count() -> None:
    pods = [bound_pod("a", "p1", 9000, node=""), bound_pod("other", "p2", 9000)]
    assert problems_of(QUOTAS, pods) == []


def test_scheduler_plugins_runs_its_own_build_with_the_case_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = tmp_path / "scheduler-plugins-scheduler"
    monkeypatch.setattr(
        contenders, "ensure_scheduler_plugins", lambda: SimpleNamespace(scheduler=binary)
    )
    cluster = SimpleNamespace(workdir=tmp_path, kubeconfig_path=tmp_path / "admin.kubeconfig")
    name = contenders.SCHEDULER_PLUGINS
    assert contenders.is_contender(name)
    argv = contenders.contender_argv(name, cluster, LIMITS, plugins=PLUGINS)  # type: ignore[arg-type]
    config_path = tmp_path / "scheduler-plugins.yaml"
    assert argv == [str(binary), f"--config={config_path}", "--secure-port=0"]
    config = yaml.safe_load(config_path.read_text())
    assert config["profiles"] == [{"schedulerName": "bench", "plugins": PLUGINS}]
    assert config["leaderElection"] == {"leaderElect": False}


class ListingClient:
    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.items = items
        self.paths: list[str] = []

    async def get(self, path: str, **_kwargs: Any) -> dict[str, Any]:
        self.paths.append(path)
        return {"metadata": {"resourceVersion": "7"}, "items": self.items}


async def test_a_tracker_of_several_namespaces_lists_all_pods_and_keeps_theirs() -> None:
    items = [
        {"metadata": {"name": n, "namespace": ns}, "spec": {"nodeName": "n1"}}
        for n, ns in (("pod-0", "quota-00"), ("pod-1", "quota-01"), ("init-0", "namespace-1"))
    ]
    client = ListingClient(items)
    tracker = PodTracker(client, ("quota-00", "quota-01"))  # type: ignore[arg-type]
    await tracker.start()
    assert client.paths == ["/api/v1/pods"]
    assert sorted(tracker.pods) == ["pod-0", "pod-1"]
    assert tracker.bound == 2
