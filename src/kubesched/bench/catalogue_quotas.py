"""CapacitySchedulingQuotas: teams sharing one cluster through ElasticQuotas, scheduled by
scheduler-plugins' CapacityScheduling profile (not a scheduler_perf test case: upstream has
none with quotas). Run it against scheduler-plugins' own build:

    kubesched bench --workload CapacitySchedulingQuotas --size 5000 \\
        --contenders kubesched,scheduler-plugins

node-default nodes; the initial pods (pod-default) in `namespace-1`, which has no quota;
then the measured pod-default pods over `Q` namespaces `quota-00`.. (2 at size 5, 5 at
500, 50 at 5000), each with an ElasticQuota. Even-numbered namespaces borrow: they get
three pods for every one of the odd-numbered ones, and go over their `min` (the average
namespace's pods and a quarter) on what the odd ones leave idle; all quotas together stay
within the sum of their `min`s, so no pod is refused and none is preempted. `max` is twice
`min`. The checks add: no quota's `max` exceeded, all quotas within the sum of their
`min`s while one is over its own.

Both schedulers run scheduler-plugins' example profile (CapacityScheduling at every
extension point, the only PostFilter plugin) on top of their default plugins: v1.37.2's in
kubesched, v1.35.4's in scheduler-plugins' build (the same default scorers by name).
"""

from __future__ import annotations

import math
from typing import Any

from kubesched.bench import templates as t
from kubesched.bench.catalogue_shapes import Params, default_nodes
from kubesched.bench.contenders import KUBE_SCHEDULER
from kubesched.bench.quota_setup import elastic_quota
from kubesched.bench.workloads import PodGroup, Workload

NAME = "CapacitySchedulingQuotas"
PLUGINS: dict[str, Any] = {
    "multiPoint": {"enabled": [{"name": "CapacityScheduling"}]},
    "postFilter": {"enabled": [{"name": "CapacityScheduling"}], "disabled": [{"name": "*"}]},
}
"""scheduler-plugins' manifests/capacityscheduling/scheduler-config.yaml."""
BORROWER_WEIGHT = 3
"""Pods of an even-numbered (borrowing) namespace for each pod of an odd-numbered one."""
POD_CPU_MILLI, POD_MEMORY_MI = 100, 500
"""pod-default's requests."""
NO_KUBE_SCHEDULER = (
    "kube-scheduler has no CapacityScheduling: compare with --contenders "
    "kubesched,scheduler-plugins"
)


def quota_namespaces(nodes: int) -> tuple[str, ...]:
    """2 namespaces below 500 nodes, 5 below 5000, else 50."""
    count = 2 if nodes < 500 else 5 if nodes < 5000 else 50
    return tuple(f"quota-{i:02d}" for i in range(count))


def spread(namespaces: tuple[str, ...]) -> tuple[str, ...]:
    """The measured pods' namespace cycle: each even-numbered namespace `BORROWER_WEIGHT`
    times, each odd-numbered one once."""
    return tuple(
        ns for i, ns in enumerate(namespaces) for _ in range(BORROWER_WEIGHT if i % 2 == 0 else 1)
    )


def pods_per_namespace(group: PodGroup) -> dict[str, int]:
    """How many of `group`'s pods each namespace gets."""
    counts = dict.fromkeys(group.namespaces(), 0)
    for index in range(group.count):
        counts[group.namespace_of(index)] += 1
    return counts


def quotas(namespaces: tuple[str, ...], pods: int) -> tuple[dict[str, Any], ...]:
    """Every namespace's ElasticQuota: `min` the average namespace's pods and a quarter
    (rounded up), `max` twice that."""
    floor = math.ceil(1.25 * pods / len(namespaces))
    minimum = _requests(floor)
    maximum = _requests(2 * floor)
    return tuple(elastic_quota(ns, minimum=minimum, maximum=maximum) for ns in namespaces)


def _requests(pods: int) -> dict[str, str]:
    return {"cpu": f"{pods * POD_CPU_MILLI}m", "memory": f"{pods * POD_MEMORY_MI}Mi"}


def _build(params: Params) -> Workload:
    nodes, init, measure = params
    namespaces = quota_namespaces(nodes)
    cycle = spread(namespaces)
    return Workload(
        name="",
        nodes=nodes,
        node_factory=default_nodes(),
        initial=(PodGroup(t.pod_default, init, "namespace-1", "init-"),),
        measured=PodGroup(t.pod_default, measure, cycle[0], "pod-", spread=cycle),
        ceiling=True,
        plugins=PLUGINS,
        quotas=quotas(namespaces, measure),
        unsupported=((KUBE_SCHEDULER, NO_KUBE_SCHEDULER),),
    )


_NOT_UPSTREAM = "not a scheduler_perf test case"
QUOTA_CASES = (
    (
        NAME,
        {"5": (5, 5, 20), "500": (500, 500, 1000), "5000": (5000, 1000, 10000)},
        _build,
        dict.fromkeys(("5", "500", "5000"), _NOT_UPSTREAM),
    ),
)
"""(name, sizes, build, notes) as `catalogue.Case` takes them."""
