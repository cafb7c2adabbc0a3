"""`kubesched_elastic_quota_resource`: the rows CapacityScheduling reports and the family a
scrape of the registry shows, for a flat quota and for a quota tree."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest

from kubesched.scheduler.quota_metrics import capacity_plugins, register_quota_metrics

from .conftest import Cluster, quota
from .test_fair_plugin import GPU, gpu_node, gpu_pod, submit, team


def scrape(cluster: Cluster) -> dict[tuple[str, str, str], float]:
    """(namespace, resource, kind) -> value of the profile's series."""
    registry = CollectorRegistry()
    assert register_quota_metrics(registry, {"capacity-scheduler": cluster.framework})
    values: dict[tuple[str, str, str], float] = {}
    for line in generate_latest(registry).decode().splitlines():
        if line.startswith("kubesched_elastic_quota_resource{"):
            labels, value = line.removeprefix("kubesched_elastic_quota_resource").rsplit(" ", 1)
            pairs = dict(part.split("=", 1) for part in labels.strip("{}").split(","))
            name, resource, kind = (pairs[k].strip('"') for k in ("namespace", "resource", "kind"))
            values[name, resource, kind] = float(value)
    return values


def test_a_flat_quota_reports_used_min_max_and_borrowed() -> None:
    cluster = Cluster(
        [gpu_node("gpu-1", 8)], [quota("a", min_={"cpu": "1", GPU: "1"}, max_={"cpu": "4"})]
    )
    pods = [gpu_pod(f"a{i}", "a") for i in range(2)]
    submit(cluster, pods)
    for each in pods:
        cluster.bind(each, "gpu-1")
    got = scrape(cluster)
    assert got[("a", GPU, "used")] == 2
    assert got[("a", GPU, "min")] == 1
    assert got[("a", GPU, "borrowed")] == 1
    assert ("a", GPU, "max") not in got  # unlimited: the quota does not name it
    assert got[("a", "cpu", "max")] == 4
    assert got[("a", "cpu", "min")] == 1
    assert ("a", GPU, "runtime") not in got


def test_a_tree_reports_the_runtime_shares_of_the_last_cycle() -> None:
    cluster = Cluster(
        [gpu_node("gpu-1", 4)],
        [team("a", min_=2, max_=4, weight=1), team("b", min_=2, max_=4, weight=1)],
    )
    pods = [gpu_pod(f"a{i}", "a") for i in range(3)]
    submit(cluster, pods)
    cluster.schedule(pods[0])
    got = scrape(cluster)
    assert (got[("a", GPU, "runtime")], got[("b", GPU, "runtime")]) == (3, 0)
    assert got[("a", GPU, "used")] == 1
    [row_a, row_b] = cluster.plugin.quota_rows()
    assert (row_a.name, row_a.namespace, row_b.name) == ("a", "a", "b")


def test_no_family_without_the_plugin() -> None:
    cluster = Cluster([gpu_node("gpu-1", 1)])
    assert capacity_plugins({"capacity-scheduler": cluster.framework}) == {
        "capacity-scheduler": cluster.plugin
    }
    assert not register_quota_metrics(CollectorRegistry(), {})
