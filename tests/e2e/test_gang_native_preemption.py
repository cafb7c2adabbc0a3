"""Pod-group preemption (kube-scheduler v1.37, `GenericWorkload`), kubesched against the gated
kube-scheduler of `test_gang_native` on the same cluster, each on its own nodes.

A gang of 2 (priority 1000) fits only if pods of priority 10 filling its 2 nodes go (2 of
4, or 1 of 3): both schedulers preempt as many victims (DisruptionTarget condition,
deletion, a `Preempted` event naming the PodGroup), nominate both members, say the same in
the members' FailedScheduling and the PodGroup's condition, and once the test (playing the
kubelet) finishes the victims' termination both bind the whole gang.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.priority_classes import priority_classes
from tests.e2e.test_gang_native import (
    NODE_LABEL,
    ORACLE,
    OURS,
    PG_PATH,
    _bound,
    _condition,
    _nodes,
    _reasons,
    _seen_nodes,
    _wait_gangs_scheduled,
    both,
    oracle,
)
from tests.e2e.test_metrics_parity import families
from tests.e2e.test_serving import https_get

__all__ = ["both", "oracle"]  # the fixtures, shared with test_gang_native

LOW, HIGH = 10, 1000


@pytest.fixture
def classes(api: ApiClient) -> Iterator[tuple[str, ...]]:
    with priority_classes(api, "gang", (("low", LOW), ("high", HIGH))) as names:
        yield names


def _pod(name: str, *, klass: str, **spec: Any) -> dict[str, Any]:
    body = make_pod().name(name).req(cpu="1").obj()
    del body["metadata"]["uid"]
    body["spec"].update(priorityClassName=klass, **spec)
    return body


def _gang(api: ApiClient, scheduler: str, ns: str, klass: str, **spec: Any) -> list[str]:
    group = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "train"},
        "spec": {
            "schedulingPolicy": {"gang": {"minCount": 2}},
            "priorityClassName": klass,
            **spec,
        },
    }
    api.request("POST", PG_PATH.format(ns=ns), body=group)
    names = ["train-0", "train-1"]
    for name in names:
        body = _pod(
            name,
            klass=klass,
            schedulerName=scheduler,
            schedulingGroup={"podGroupName": "train"},
            nodeSelector={NODE_LABEL: scheduler},
        )
        api.create(body, namespace=ns)
    return names


def _terminating(api: ApiClient, ns: str) -> list[dict[str, Any]]:
    return [p for p in api.list("Pod", namespace=ns) if p["metadata"].get("deletionTimestamp")]


def _nominations(api: ApiClient, ns: str, names: list[str]) -> list[str]:
    pods = [api.get("Pod", name, namespace=ns) for name in names]
    return [str(pod["status"].get("nominatedNodeName") or "") for pod in pods]


def _disruption(pod: dict[str, Any], scheduler: str) -> str:
    for cond in pod["status"].get("conditions") or ():
        if cond["type"] == "DisruptionTarget":
            return f"{cond['reason']}: {cond['message'].replace(scheduler, '<scheduler>')}"
    return ""


@pytest.mark.parametrize(("fillers", "evicted"), [(4, 2), (3, 1)])
def test_a_gang_preempts_lower_priority_pods_then_binds_whole(
    api: ApiClient,
    both: dict[str, str],
    classes: tuple[str, str],
    fillers: int,
    evicted: int,
    *,
    same_workload_metrics: Callable[[], None],
) -> None:
    """4 fillers: no member fits, 2 go; 3: one member fits on trial (its message is the
    group's), one filler goes."""
    low, high = classes
    for scheduler, ns in both.items():
        _nodes(api, scheduler, 2)  # 2 x 2 cpu
        for i in range(fillers):
            victim = _pod(f"low-{i}", klass=low, nodeName=f"{scheduler}-{i % 2}")
            api.create(victim, namespace=ns)
    _seen_nodes(api, both, 4)
    members = {s: _gang(api, s, ns, high) for s, ns in both.items()}
    victims = {
        s: wait_for(
            lambda ns=ns: _terminating(api, ns),
            until=lambda pods: len(pods) >= evicted,
            message=f"{s} preempts",
        )
        for s, ns in both.items()
    }
    events = {
        s: wait_for(
            lambda ns=ns: api.events(ns, reason="Preempted"),
            until=lambda found: len(found) >= evicted,
            message=f"{s}'s Preempted events",
        )
        for s, ns in both.items()
    }
    notes = {
        s: sorted(re.sub(r"podgroup \S+", "podgroup <uid>", e.note) for e in found)
        for s, found in events.items()
    }
    assert notes[OURS] == notes[ORACLE] == ["Preempted by podgroup <uid> on node cluster"] * evicted
    disruptions = {s: sorted(_disruption(p, s) for p in pods) for s, pods in victims.items()}
    preempting = "<scheduler>: preempting to accommodate a higher priority podgroup"
    assert disruptions[OURS] == disruptions[ORACLE]
    assert disruptions[OURS] == [f"PreemptionByScheduler: {preempting}"] * evicted
    reasons = {s: _reasons(api, ns, members[s]) for s, ns in both.items()}
    assert reasons[OURS] == reasons[ORACLE]
    nominated = {
        s: wait_for(
            lambda ns=ns, names=members[s]: _nominations(api, ns, names),
            until=all,
            message=f"{s} nominates both members",
        )
        for s, ns in both.items()
    }
    assert all(node.startswith(f"{s}-") for s, nodes in nominated.items() for node in nodes)
    says = f"pod group preemption: found a placement for podgroup, preempting {evicted} victims"
    conditions = {
        s: wait_for(
            lambda ns=ns: _condition(api, ns, "train"),
            until=lambda c: c is not None and says in c[2],
            message=f"{s}'s condition",
        )
        for s, ns in both.items()
    }
    assert conditions[OURS] == conditions[ORACLE]
    ours = conditions[OURS]
    assert ours is not None
    assert ours[:2] == ("False", "Unschedulable")
    for scheduler, ns in both.items():
        assert len(_terminating(api, ns)) == evicted, f"{scheduler} preempted {evicted}"
        for pod in _terminating(api, ns):  # the kubelet's part: the victims stop
            api.delete("Pod", pod["metadata"]["name"], namespace=ns, grace_period=0)
    _wait_gangs_scheduled(api, both, "train", size=2, timeout=60)
    remaining = {s: len(api.list("Pod", namespace=ns)) for s, ns in both.items()}
    # the 2 members and the fillers put back
    assert remaining == {ORACLE: 2 + fillers - evicted, OURS: 2 + fillers - evicted}
    same_workload_metrics()


def test_a_gang_spares_the_pods_a_disruption_budget_protects(
    api: ApiClient, both: dict[str, str], classes: tuple[str, str]
) -> None:
    """Four fillers, two under a PodDisruptionBudget that allows no disruption: both
    schedulers evict the same two, reprieving the protected ones (tried first, as
    upstream's PDB-violating victims are), and the gang binds whole."""
    low, high = classes
    for scheduler, ns in both.items():
        _nodes(api, scheduler, 2)  # 2 x 2 cpu
        budget = {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": "guard"},
            "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "guarded"}}},
        }
        api.create(budget, namespace=ns)
        for i in range(4):
            victim = _pod(f"low-{i}", klass=low, nodeName=f"{scheduler}-{i % 2}")
            # The protected ones come last by name, so the budget decides, not the order.
            victim["metadata"]["labels"] = {"app": "guarded" if i >= 2 else "free"}
            api.create(victim, namespace=ns)
    _seen_nodes(api, both, 4)
    for scheduler, ns in both.items():
        _gang(api, scheduler, ns, high)
    victims = {
        s: sorted(
            p["metadata"]["name"]
            for p in wait_for(
                lambda ns=ns: _terminating(api, ns),
                until=lambda pods: len(pods) >= 2,
                message=f"{s} preempts",
            )
        )
        for s, ns in both.items()
    }
    assert victims[OURS] == victims[ORACLE] == ["low-0", "low-1"], victims
    for ns in both.values():
        for name in victims[OURS]:  # the kubelet's part: the victims stop
            api.delete("Pod", name, namespace=ns, grace_period=0)
    _wait_gangs_scheduled(api, both, "train", size=2, timeout=60)


# What a gang's preemption makes both schedulers export (GenericWorkload's families, and
# the async preemption runs).
WORKLOAD_FAMILIES = (
    "scheduler_podgroup_schedule_attempts",
    "scheduler_podgroup_scheduling_attempt_duration_seconds",
    "scheduler_podgroup_scheduling_algorithm_duration_seconds",
    "scheduler_workload_preemption_attempts",
    "scheduler_workload_preemption_victims",
    "scheduler_preemption_evaluation_duration_seconds",
    "scheduler_preemption_execution_duration_seconds",
    "scheduler_preemption_goroutines_execution",
    "scheduler_permit_wait_duration_seconds",
)


@pytest.fixture
def same_workload_metrics(
    request: pytest.FixtureRequest, local_cluster: LocalCluster, oracle: int
) -> Callable[[], None]:
    """A check: kubesched's /metrics has every family above with kube-scheduler's type,
    label names and buckets, and no scheduler_ family the gated kube-scheduler lacks."""

    def check() -> None:
        token = local_cluster.admin_token
        (ours_proc,) = request.node.kubesched_processes
        ours = families(https_get(ours_proc.port, "/metrics", token)[1])
        theirs = families(https_get(oracle, "/metrics", token)[1])
        for name in WORKLOAD_FAMILIES:
            assert name in theirs, f"kube-scheduler has no {name}"
            assert ours.get(name) == theirs[name], name
        extra = [n for n in ours if n.startswith("scheduler_") and n not in theirs]
        assert not extra, f"families the gated kube-scheduler does not export: {extra}"

    return check


def test_a_pod_preempts_a_whole_disruption_mode_all_gang(
    api: ApiClient, both: dict[str, str], classes: tuple[str, str]
) -> None:
    """With the gate, a single pod that needs one member's room evicts the whole gang (its
    pods on both nodes), as kube-scheduler does."""
    low, high = classes
    for scheduler, ns in both.items():
        _nodes(api, scheduler, 2)
        for i in range(2):  # 1 cpu left per node
            api.create(_pod(f"fill-{i}", klass=low, nodeName=f"{scheduler}-{i}"), namespace=ns)
    _seen_nodes(api, both, 4)
    for scheduler, ns in both.items():
        _gang(api, scheduler, ns, low, disruptionMode={"all": {}})
    for scheduler, ns in both.items():
        wait_for(
            lambda ns=ns: _bound(api, ns),
            until=lambda n: n == 2,
            message=f"the low gang of {scheduler} bound",
        )
    for scheduler, ns in both.items():  # fillers go first: they are less important
        for i in range(2):
            api.delete("Pod", f"fill-{i}", namespace=ns, grace_period=0)
        big = _pod("vip", klass=high, schedulerName=scheduler)
        big["spec"]["nodeSelector"] = {NODE_LABEL: scheduler}
        big["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "2"
        api.create(big, namespace=ns)
    victims = {
        s: wait_for(
            lambda ns=ns: sorted(p["metadata"]["name"] for p in _terminating(api, ns)),
            until=lambda names: len(names) >= 2,
            message=f"{s} preempts the gang",
        )
        for s, ns in both.items()
    }
    assert victims[OURS] == victims[ORACLE] == ["train-0", "train-1"]
    notes = {
        s: sorted(
            re.sub(r"pod \S+ on node \S+", "pod <uid> on node <node>", e.note)
            for e in wait_for(
                lambda ns=ns: api.events(ns, reason="Preempted"),
                until=lambda found: len(found) >= 2,
                message=f"{s}'s Preempted events",
            )
        )
        for s, ns in both.items()
    }
    assert notes[OURS] == notes[ORACLE] == ["Preempted by pod <uid> on node <node>"] * 2
    for ns in both.values():
        for name in ("train-0", "train-1"):
            api.delete("Pod", name, namespace=ns, grace_period=0)
    for scheduler, ns in both.items():
        wait_for(
            lambda ns=ns: is_bound(api.get("Pod", "vip", namespace=ns)),
            until=bool,
            timeout=60,
            message=f"the preemptor of {scheduler} bound",
        )
