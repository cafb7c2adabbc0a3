"""kube-scheduler v1.37's native gang scheduling (the `GenericWorkload` feature gate,
`scheduling.k8s.io/v1beta1` PodGroups), kubesched against kube-scheduler itself.

The worker's API server serves PodGroups; this module starts a second, gated kube-scheduler
(profile `gang-oracle`) beside the default one, and each test starts kubesched with the same
gate (profile `gang-kubesched`). The same scenario runs for both at once, each on its own
nodes (nodeSelector), so both see the same cluster: a gang of 8 that fits only 6 binds
none, with the same FailedScheduling texts and the same PodGroup condition; once a node
is added all 8 bind; a group with fewer pods than minCount waits (PreEnqueue), and so do
members whose PodGroup does not exist yet.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, unschedulable_message, wait_for

ORACLE, OURS = "gang-oracle", "gang-kubesched"
SCHEDULERS = (ORACLE, OURS)
ORACLE_PROCESS = "kube-scheduler-gang"
PG_PATH = "/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups"
NODE_LABEL = "gang-e2e"


@pytest.fixture(scope="module")
def oracle(local_cluster: LocalCluster) -> Iterator[int]:
    """A kube-scheduler with GenericWorkload on, for pods of `gang-oracle` only; its secure
    port."""
    port = local_cluster.start_extra_scheduler(
        ORACLE_PROCESS, scheduler_name=ORACLE, generic_workload=True
    )
    try:
        yield port
    finally:
        local_cluster.stop_extra_scheduler(ORACLE_PROCESS)


@pytest.fixture
def both(oracle: int, kubesched: Any, new_namespace: Any) -> dict[str, str]:
    """kubesched started (gated) beside the oracle; a namespace per scheduler."""
    del oracle
    kubesched(f"--scheduler-name={OURS}", "--feature-gates=GenericWorkload=true")
    return {name: new_namespace(hint=name) for name in SCHEDULERS}


def _nodes(api: ApiClient, scheduler: str, count: int, *, first: int = 0) -> None:
    for i in range(first, first + count):
        node = make_node().name(f"{scheduler}-{i}").label(NODE_LABEL, scheduler)
        api.create(node.capacity(cpu="2", pods="20").obj())


def _group(api: ApiClient, ns: str, name: str, min_count: int) -> None:
    body = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name},
        "spec": {"schedulingPolicy": {"gang": {"minCount": min_count}}},
    }
    api.request("POST", PG_PATH.format(ns=ns), body=body)


def _members(api: ApiClient, scheduler: str, ns: str, group: str, count: int) -> list[str]:
    names = [f"{group}-{i}" for i in range(count)]
    for name in names:
        pod = make_pod().name(name).scheduler(scheduler).pod_group(group).req(cpu="1")
        api.create(pod.node_selector(**{NODE_LABEL: scheduler}).obj(), namespace=ns)
    return names


def _why(api: ApiClient, ns: str, pod: str) -> str:
    """The pod's PodScheduled=False message, "" while it has none."""
    return unschedulable_message(api.get("Pod", pod, namespace=ns))


def _bound(api: ApiClient, ns: str) -> int:
    """Members of a PodGroup bound in `ns`."""
    pods = api.list("Pod", namespace=ns)
    return sum(1 for pod in pods if is_bound(pod) and pod["spec"].get("schedulingGroup"))


def _condition(api: ApiClient, ns: str, group: str) -> tuple[str, str, str] | None:
    status = api.request("GET", PG_PATH.format(ns=ns) + f"/{group}").get("status") or {}
    for cond in status.get("conditions") or ():
        if cond["type"] == "PodGroupInitiallyScheduled":
            return cond["status"], cond["reason"], cond.get("message", "")
    return None


def _seen_nodes(api: ApiClient, both: dict[str, str], count: int) -> None:
    """Both schedulers' informers have the `count` nodes: a pod of each fits nowhere and
    says so about all of them."""
    for scheduler, ns in both.items():
        probe = make_pod().name("probe").scheduler(scheduler).req(cpu="100")
        api.create(probe.obj(), namespace=ns)
        wait_for(
            lambda ns=ns: _why(api, ns, "probe"),
            until=lambda why: why.startswith(f"0/{count} nodes"),
            message=f"{scheduler} sees {count} nodes",
        )
        api.delete("Pod", "probe", namespace=ns)


def _reasons(api: ApiClient, ns: str, pods: list[str]) -> list[tuple[str, str]]:
    """Every member's PodScheduled=False (reason, message) and its FailedScheduling event,
    sorted (which member fits nowhere depends on the order they are tried in)."""
    found = []
    for pod in pods:
        message = wait_for(lambda pod=pod: _why(api, ns, pod), message=f"{ns}/{pod} says why")
        reason = _condition_reason(api, ns, pod)
        events = wait_for(
            lambda pod=pod: api.events(ns, regarding=pod, reason="FailedScheduling"),
            message=f"{ns}/{pod} FailedScheduling",
        )
        found.append((reason, message, events[-1].note))
    return sorted((reason, f"{message} | event: {note}") for reason, message, note in found)


def _wait_gangs_scheduled(
    api: ApiClient, both: dict[str, str], group: str, *, size: int, timeout: float
) -> None:
    """Both schedulers bind all `size` members of `group` and set its condition True."""
    for scheduler, ns in both.items():
        wait_for(
            lambda ns=ns: _bound(api, ns),
            until=lambda n: n == size,
            timeout=timeout,
            message=f"all {size} of {scheduler} bound",
        )
    after = {
        s: wait_for(
            lambda ns=ns: _condition(api, ns, group),
            until=lambda c: c is not None and c[0] == "True",
            message=f"{s}'s condition True",
        )
        for s, ns in both.items()
    }
    assert after[OURS] == after[ORACLE] == ("True", "Scheduled", "")


def _condition_reason(api: ApiClient, ns: str, pod: str) -> str:
    obj = api.get("Pod", pod, namespace=ns)
    cond = next(c for c in obj["status"]["conditions"] if c["type"] == "PodScheduled")
    return str(cond.get("reason", ""))


def test_a_gang_that_fits_only_six_binds_none_until_a_node_is_added(
    api: ApiClient, both: dict[str, str]
) -> None:
    plain = make_pod().name("plain").node_selector(**{NODE_LABEL: "plain"}).obj()
    _nodes(api, "plain", 1)
    api.create(plain, namespace=both[OURS])  # kube-scheduler's own pod
    for scheduler in SCHEDULERS:
        _nodes(api, scheduler, 3)  # 3 x 2 cpu: room for 6 of the 8 members
    _seen_nodes(api, both, 7)
    members = {}
    for scheduler, ns in both.items():
        _group(api, ns, "train", 8)
        members[scheduler] = _members(api, scheduler, ns, "train", 8)
    reasons = {s: _reasons(api, ns, members[s]) for s, ns in both.items()}
    assert reasons[OURS] == reasons[ORACLE]
    group_says = (
        "pod group is unschedulable, minCount (8) cannot be satisfied: 6 scheduled, 1 "
        "remaining, pod group preemption: No preemption victims found for incoming preemptor"
    )
    assert sum(1 for _, message in reasons[OURS] if message.startswith(group_says)) == 6
    conditions = {
        s: wait_for(lambda ns=ns: _condition(api, ns, "train"), message=f"{s}'s condition")
        for s, ns in both.items()
    }
    assert conditions[OURS] == conditions[ORACLE]
    ours = conditions[OURS]
    assert ours is not None
    assert ours[:2] == ("False", "Unschedulable")
    assert {s: _bound(api, ns) for s, ns in both.items()} == {ORACLE: 0, OURS: 0}
    assert is_bound(api.get("Pod", "plain", namespace=both[OURS]))  # default scheduler unaffected
    for scheduler in SCHEDULERS:
        _nodes(api, scheduler, 1, first=3)
    _wait_gangs_scheduled(api, both, "train", size=8, timeout=40)


def test_a_group_with_fewer_pods_than_min_count_waits(api: ApiClient, both: dict[str, str]) -> None:
    for scheduler, ns in both.items():
        _nodes(api, scheduler, 2)
        _group(api, ns, "small", 4)
        _members(api, scheduler, ns, "small", 3)
    time.sleep(4)  # both have seen the pods and held them at PreEnqueue
    for ns in both.values():
        assert _bound(api, ns) == 0
        assert not api.events(ns, reason="FailedScheduling")
    conditions = {
        s: sorted(str(p["status"].get("conditions")) for p in api.list("Pod", namespace=ns))
        for s, ns in both.items()
    }
    assert conditions[OURS] == conditions[ORACLE]
    assert {s: _condition(api, ns, "small") for s, ns in both.items()} == {ORACLE: None, OURS: None}


def test_members_created_before_their_pod_group_bind_once_it_exists(
    api: ApiClient, both: dict[str, str]
) -> None:
    for scheduler, ns in both.items():
        _nodes(api, scheduler, 2)
        _members(api, scheduler, ns, "early", 3)
    time.sleep(3)  # no PodGroup yet: nobody tries them
    for ns in both.values():
        assert _bound(api, ns) == 0
        assert not api.events(ns, reason="FailedScheduling")
    for ns in both.values():
        _group(api, ns, "early", 3)
    for scheduler, ns in both.items():
        wait_for(
            lambda ns=ns: _bound(api, ns),
            until=lambda n: n == 3,
            timeout=30,
            message=f"all 3 of {scheduler} bound",
        )
    after = {
        s: wait_for(lambda ns=ns: _condition(api, ns, "early"), message=f"{s}'s condition")
        for s, ns in both.items()
    }
    assert after[OURS] == after[ORACLE] == ("True", "Scheduled", "")
