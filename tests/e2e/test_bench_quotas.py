"""A small run of `kubesched bench --workload CapacitySchedulingQuotas`: kubesched and
scheduler-plugins' own build, each on its own control plane with the ElasticQuota CRD and
the case's quotas, so that the quota case and the scheduler-plugins contender cannot rot.
Both must bind every measured pod and pass the quota checks (no `max` exceeded); the
workload must make some namespaces borrow."""

from __future__ import annotations

import copy
from dataclasses import replace

import pytest

from kubesched.bench import BenchSettings, ClientLimits, run_bench
from kubesched.bench.catalogue import catalogue_workload
from kubesched.bench.catalogue_quotas import NAME, pods_per_namespace
from kubesched.bench.contenders import KUBE_SCHEDULER, KUBESCHED, SCHEDULER_PLUGINS

USES_SCHEDULER_PLUGINS = True
SIZE = "500"


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Each contender gets its own fresh control plane: the shared one is not needed."""
    return


def test_quota_case_binds_every_pod_within_the_quotas_on_both_schedulers() -> None:
    workload = catalogue_workload(NAME, SIZE)
    counts = pods_per_namespace(workload.measured)
    assert len(workload.quotas) == len(counts) == 5
    settings = BenchSettings(
        workload=workload,
        limits=ClientLimits(scheduler_name="bench-quotas", qps=5000, burst=5000),
        stall_timeout=60.0,
    )
    contenders = (KUBESCHED, SCHEDULER_PLUGINS, KUBE_SCHEDULER)
    results, _machine = run_bench(settings, contenders=contenders, progress=lambda _m: None)
    by_name = {result.name: result for result in results}
    assert "no CapacityScheduling" in by_name[KUBE_SCHEDULER].skipped
    for name in (KUBESCHED, SCHEDULER_PLUGINS):
        result = by_name[name]
        assert not result.failure, f"{name}: {result.failure}"
        assert result.bound == workload.pods
        assert result.throughput.average > 0


def test_a_quota_too_small_for_its_pods_holds_them_back_on_both_schedulers() -> None:
    """The same case with `quota-00`'s `max` at 10 of its 15 pods: both schedulers bind 10,
    refuse the other 5 at PreFilter with scheduler-plugins' text, and the run fails as a
    stall that names them (so the quotas created are the ones both schedulers enforce)."""
    workload = catalogue_workload(NAME, "5")
    first, *others = workload.quotas
    tight = copy.deepcopy(first)
    tight["spec"]["max"] = {"cpu": "1000m", "memory": "5000Mi"}
    settings = BenchSettings(
        workload=replace(workload, quotas=(tight, *others)),
        limits=ClientLimits(scheduler_name="bench-quotas", qps=5000, burst=5000),
        stall_timeout=6.0,
    )
    results, _machine = run_bench(
        settings, contenders=(KUBESCHED, SCHEDULER_PLUGINS), progress=lambda _m: None
    )
    for result in results:
        assert result.failure.startswith("stalled: 15/20 measured pods bound"), result.failure
        assert "ElasticQuota quota-00 is more than Max" in result.failure, result.failure
