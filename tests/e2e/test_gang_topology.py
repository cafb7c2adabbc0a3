"""Topology-aware gang placement (kube-scheduler v1.37's `TopologyAwareWorkloadScheduling`
feature gate, alpha, on top of `GenericWorkload`), kubesched against kube-scheduler itself.

This module starts a second kube-scheduler with both gates (profile `tas-oracle`) beside the
default one; each test starts kubesched with the same gates (profile `tas-kubesched`). Each
scheduler gets its own nodes, labelled with a rack key of its own
(`e2e.kubesched.io/rack-<profile>`), and its PodGroup's `schedulingConstraints.topology`
names that key: the placements each one generates hold its own nodes only, so both see the
same shape of cluster. Where upstream is deterministic they must agree: a gang that fits one
rack (or one zone) only binds there on both; a gang that fits no rack, or names a key no node
carries, binds nowhere, with the same FailedScheduling texts and PodGroup condition on both;
a gang that needs preemption evicts the same pods; a gang without a constraint is one
placement of all nodes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.conftest import TOPOLOGY_GATES
from tests.e2e.harness import ApiClient, is_bound, unschedulable_message, wait_for
from tests.e2e.test_gang_native_preemption import _nominations, _terminating, classes
from tests.e2e.test_metrics_parity import families
from tests.e2e.test_serving import https_get

__all__ = ["classes"]  # the PriorityClasses fixture, shared with test_gang_native_preemption

ORACLE, OURS = "tas-oracle", "tas-kubesched"
SCHEDULERS = (ORACLE, OURS)
ORACLE_PROCESS = "kube-scheduler-tas"
PG_PATH = "/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups"


def _rack_key(scheduler: str) -> str:
    return f"e2e.kubesched.io/rack-{scheduler}"


def _zone_key(scheduler: str) -> str:
    return f"e2e.kubesched.io/zone-{scheduler}"


@pytest.fixture(scope="module")
def oracle(local_cluster: LocalCluster) -> Iterator[int]:
    """A kube-scheduler with GenericWorkload and TopologyAwareWorkloadScheduling on, for
    pods of `tas-oracle` only; its secure port."""
    port = local_cluster.start_extra_scheduler(
        ORACLE_PROCESS, scheduler_name=ORACLE, generic_workload=True, extra_args=(TOPOLOGY_GATES,)
    )
    try:
        yield port
    finally:
        local_cluster.stop_extra_scheduler(ORACLE_PROCESS)


@pytest.fixture
def both(oracle: int, kubesched: Any, new_namespace: Any) -> dict[str, str]:
    """kubesched started with the same gates beside the oracle; a namespace per scheduler."""
    del oracle
    kubesched(f"--scheduler-name={OURS}", TOPOLOGY_GATES)
    return {name: new_namespace(hint=name) for name in SCHEDULERS}


def _racks(api: ApiClient, racks: dict[str, list[str]], zones: dict[str, str] | None = None) -> int:
    """Per scheduler, nodes `<scheduler>-<rack><i>` of the given cpu, labelled with the
    scheduler's rack key (and zone key, `zones`: rack -> zone); the number of nodes made."""
    made = 0
    for scheduler in SCHEDULERS:
        for rack, cpus in racks.items():
            for i, cpu in enumerate(cpus):
                node = make_node().name(f"{scheduler}-{rack}{i}").label(_rack_key(scheduler), rack)
                if zones:
                    node = node.label(_zone_key(scheduler), zones[rack])
                api.create(node.capacity(cpu=cpu, pods="20").obj())
                made += 1
    return made


def _gang(
    api: ApiClient,
    scheduler: str,
    ns: str,
    size: int,
    *,
    key: str | None = "",
    name: str = "train",
    rack: str = "",
) -> list[str]:
    """A PodGroup `name` (minCount `size`, within one domain of `key`, the scheduler's rack
    key by default, None: no constraint) and its `size` members of 1 cpu (on `rack` only,
    if given, by nodeSelector)."""
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": size}}}
    if key is not None:
        key = key or _rack_key(scheduler)
        spec["schedulingConstraints"] = {"topology": [{"key": key}]}
    body = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "spec": spec}
    body["metadata"] = {"name": name}
    created = api.request("POST", PG_PATH.format(ns=ns), body=body)
    assert created["spec"].get("schedulingConstraints") == spec.get("schedulingConstraints")
    names = [f"{name}-{i}" for i in range(size)]
    for pod_name in names:
        pod = make_pod().name(pod_name).scheduler(scheduler).pod_group(name).req(cpu="1")
        if rack:
            pod = pod.node_selector(**{_rack_key(scheduler): rack})
        api.create(pod.obj(), namespace=ns)
    return names


def _seen_nodes(api: ApiClient, both: dict[str, str], count: int) -> None:
    """Both schedulers' informers have the `count` nodes (a pod that fits nowhere says so)."""
    for scheduler, ns in both.items():
        probe = make_pod().name("probe").scheduler(scheduler).req(cpu="100")
        api.create(probe.obj(), namespace=ns)
        wait_for(
            lambda ns=ns: unschedulable_message(api.get("Pod", "probe", namespace=ns)),
            until=lambda why: why.startswith(f"0/{count} nodes"),
            message=f"{scheduler} sees {count} nodes",
        )
        api.delete("Pod", "probe", namespace=ns)


def _condition(api: ApiClient, ns: str, group: str = "train") -> tuple[str, str, str] | None:
    status = api.request("GET", PG_PATH.format(ns=ns) + f"/{group}").get("status") or {}
    for cond in status.get("conditions") or ():
        if cond["type"] == "PodGroupInitiallyScheduled":
            return cond["status"], cond["reason"], cond.get("message", "")
    return None


def _racks_bound(api: ApiClient, ns: str) -> list[str]:
    """The rack (node name minus its scheduler prefix and index) of each bound member."""
    pods = [pod for pod in api.list("Pod", namespace=ns) if is_bound(pod)]
    return sorted(pod["spec"]["nodeName"].rsplit("-", 1)[1][:-1] for pod in pods)


def _reasons(api: ApiClient, ns: str, pods: list[str]) -> list[str]:
    """Each member's PodScheduled=False message and last FailedScheduling event, sorted."""
    found = []
    for pod in pods:
        message = wait_for(
            lambda pod=pod: unschedulable_message(api.get("Pod", pod, namespace=ns)),
            message=f"{ns}/{pod} says why",
        )
        events = wait_for(
            lambda pod=pod: api.events(ns, regarding=pod, reason="FailedScheduling"),
            message=f"{ns}/{pod} FailedScheduling",
        )
        found.append(f"{message} | event: {events[-1].note}")
    return sorted(found)


PLACEMENT_FAMILIES = (
    "scheduler_generated_placements",
    "scheduler_placement_evaluations",
    "scheduler_placement_evaluation_duration_seconds",
)


def _same_placement_metrics(request: pytest.FixtureRequest, token: str, oracle_port: int) -> None:
    """kubesched's /metrics has upstream's placement families with kube-scheduler's type,
    label names and buckets (families sampled upstream, such as the per-plugin durations,
    may not have shown up yet after one cycle: `test_gang_native_preemption` compares the
    rest)."""
    (ours_proc,) = request.node.kubesched_processes
    ours = families(https_get(ours_proc.port, "/metrics", token)[1])
    theirs = families(https_get(oracle_port, "/metrics", token)[1])
    for name in PLACEMENT_FAMILIES:
        assert name in theirs, f"kube-scheduler has no {name}"
        assert ours.get(name) == theirs[name], name


def test_a_gang_that_fits_one_rack_only_binds_there(
    api: ApiClient,
    both: dict[str, str],
    oracle: int,
    local_cluster: LocalCluster,
    request: pytest.FixtureRequest,
) -> None:
    # Rack a: 2 cpu, rack b: 2 + 2 cpu, rack c: 1 cpu; the gang needs 4.
    _seen_nodes(api, both, _racks(api, {"a": ["2"], "b": ["2", "2"], "c": ["1"]}))
    for scheduler, ns in both.items():
        _gang(api, scheduler, ns, 4)
    for scheduler, ns in both.items():
        wait_for(
            lambda ns=ns: _racks_bound(api, ns),
            until=lambda racks: len(racks) == 4,
            timeout=30,
            message=f"{scheduler} binds the gang",
        )
    assert {s: _racks_bound(api, ns) for s, ns in both.items()} == {
        ORACLE: ["b"] * 4,
        OURS: ["b"] * 4,
    }
    conditions = {
        s: wait_for(
            lambda ns=ns: _condition(api, ns),
            until=lambda c: c is not None and c[0] == "True",
            message=f"{s}'s condition True",
        )
        for s, ns in both.items()
    }
    assert conditions[OURS] == conditions[ORACLE] == ("True", "Scheduled", "")
    _same_placement_metrics(request, local_cluster.admin_token, oracle)


def test_a_gang_that_fits_no_rack_binds_nowhere_and_says_why(
    api: ApiClient, both: dict[str, str]
) -> None:
    # Two racks of 3 cpu: each holds 3 of the 4 members.
    _seen_nodes(api, both, _racks(api, {"a": ["3"], "b": ["3"]}))
    members = {scheduler: _gang(api, scheduler, ns, 4) for scheduler, ns in both.items()}
    reasons = {s: _reasons(api, ns, members[s]) for s, ns in both.items()}
    assert reasons[OURS] == reasons[ORACLE]
    group_says = (
        "pod group is unschedulable, 0/2 placements are available, first placement status: "
        "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining"
    )
    # The members placed on trial repeat the group's rejection after their own (upstream's
    # `pod group is unschedulable` prefix, then the group's message, which starts with it).
    placed_say = f"pod group is unschedulable, {group_says}"
    placed = [reason for reason in reasons[OURS] if reason.startswith(placed_say)]
    assert len(placed) == 3, reasons[OURS]
    conditions = {
        s: wait_for(lambda ns=ns: _condition(api, ns), message=f"{s}'s condition")
        for s, ns in both.items()
    }
    assert conditions[OURS] == conditions[ORACLE]
    ours = conditions[OURS]
    assert ours is not None
    assert ours[:2] == ("False", "Unschedulable")
    assert ours[2].startswith(group_says)
    assert {s: _racks_bound(api, ns) for s, ns in both.items()} == {ORACLE: [], OURS: []}


def test_a_gang_that_fits_one_zone_only_binds_there_and_one_without_domain_nowhere(
    api: ApiClient, both: dict[str, str]
) -> None:
    # Zone x: racks x (2 cpu) and w (2 cpu); zone y: rack y (3 cpu). No rack holds the 4
    # members; zone x does. A second gang names a key no node carries.
    racks = {"x": ["2"], "w": ["2"], "y": ["3"]}
    count = _racks(api, racks, zones={"x": "zx", "w": "zx", "y": "zy"})
    _seen_nodes(api, both, count)
    lost = {}
    for scheduler, ns in both.items():
        _gang(api, scheduler, ns, 4, key=_zone_key(scheduler))
        block = f"e2e.kubesched.io/block-{scheduler}"
        lost[scheduler] = _gang(api, scheduler, ns, 2, key=block, name="lost")
    for scheduler, ns in both.items():
        wait_for(
            lambda ns=ns: _racks_bound(api, ns),
            until=lambda bound: len(bound) == 4,
            timeout=30,
            message=f"{scheduler} binds the zone gang",
        )
    assert {s: _racks_bound(api, ns) for s, ns in both.items()} == {
        ORACLE: ["w", "w", "x", "x"],
        OURS: ["w", "w", "x", "x"],
    }
    reasons = {s: _reasons(api, ns, lost[s]) for s, ns in both.items()}
    assert reasons[OURS] == reasons[ORACLE]
    assert all(reason.startswith("no feasible placements found") for reason in reasons[OURS])
    conditions = {
        s: wait_for(lambda ns=ns: _condition(api, ns, "lost"), message=f"{s}'s condition")
        for s, ns in both.items()
    }
    assert conditions[OURS] == conditions[ORACLE]
    ours = conditions[OURS]
    assert ours is not None
    assert ours[:2] == ("False", "Unschedulable")
    for scheduler in SCHEDULERS:  # rack y's node gets the key: the lost gang binds there
        labels = {f"e2e.kubesched.io/block-{scheduler}": "b1"}
        api.patch("Node", f"{scheduler}-y0", {"metadata": {"labels": labels}})
    for scheduler, ns in both.items():
        wait_for(
            lambda ns=ns: _racks_bound(api, ns),
            until=lambda bound: bound.count("y") == 2,
            timeout=40,
            message=f"{scheduler} binds the lost gang once a node has its key",
        )


def _filler(api: ApiClient, ns: str, name: str, node: str, klass: str) -> None:
    """A pod of `klass` bound to `node` directly (1 cpu)."""
    body = make_pod().name(name).req(cpu="1").obj()
    del body["metadata"]["uid"]
    body["spec"].update(priorityClassName=klass, nodeName=node)
    api.create(body, namespace=ns)


def _high_gang(api: ApiClient, scheduler: str, ns: str, klass: str) -> list[str]:
    """A PodGroup `train` of `klass` (minCount 2, one rack) and its 2 members."""
    body = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "train"},
        "spec": {
            "schedulingPolicy": {"gang": {"minCount": 2}},
            "schedulingConstraints": {"topology": [{"key": _rack_key(scheduler)}]},
            "priorityClassName": klass,
        },
    }
    api.request("POST", PG_PATH.format(ns=ns), body=body)
    names = ["train-0", "train-1"]
    for name in names:
        pod = make_pod().name(name).scheduler(scheduler).pod_group("train").req(cpu="1").obj()
        del pod["metadata"]["uid"]
        pod["spec"]["priorityClassName"] = klass
        api.create(pod, namespace=ns)
    return names


def test_a_gang_preempts_within_the_only_rack_that_can_hold_it(
    api: ApiClient, both: dict[str, str], classes: tuple[str, str]
) -> None:
    # Racks a and b, one node of 2 cpu each: a full of low-priority pods, b of pods of the
    # gang's own priority (no victims). Only rack a can hold the gang, once its pods go.
    low, high = classes
    count = _racks(api, {"a": ["2"], "b": ["2"]})
    for scheduler, ns in both.items():
        for i in range(2):
            _filler(api, ns, f"low-{i}", f"{scheduler}-a0", low)
            _filler(api, ns, f"peer-{i}", f"{scheduler}-b0", high)
    _seen_nodes(api, both, count)
    members = {s: _high_gang(api, s, ns, high) for s, ns in both.items()}
    for scheduler, ns in both.items():
        wait_for(
            lambda ns=ns: _terminating(api, ns),
            until=lambda pods: len(pods) == 2,
            message=f"{scheduler} preempts rack a's pods",
        )
    victims = {
        s: sorted(p["metadata"]["name"] for p in _terminating(api, ns)) for s, ns in both.items()
    }
    assert victims == {ORACLE: ["low-0", "low-1"], OURS: ["low-0", "low-1"]}
    reasons = {s: _reasons(api, ns, members[s]) for s, ns in both.items()}
    assert reasons[OURS] == reasons[ORACLE]
    says = "pod group preemption: found a placement for podgroup, preempting 2 victims"
    conditions = {
        s: wait_for(
            lambda ns=ns: _condition(api, ns),
            until=lambda c: c is not None and says in c[2],
            message=f"{s}'s condition",
        )
        for s, ns in both.items()
    }
    assert conditions[OURS] == conditions[ORACLE]
    nominated = {
        s: wait_for(
            lambda ns=ns, names=members[s]: _nominations(api, ns, names),
            until=all,
            message=f"{s} nominates both members",
        )
        for s, ns in both.items()
    }
    assert nominated == {ORACLE: [f"{ORACLE}-a0"] * 2, OURS: [f"{OURS}-a0"] * 2}
    for ns in both.values():
        for pod in _terminating(api, ns):  # the kubelet's part: the victims stop
            api.delete("Pod", pod["metadata"]["name"], namespace=ns, grace_period=0)
    for scheduler, ns in both.items():
        wait_for(
            lambda ns=ns: _racks_bound(api, ns),
            until=lambda racks: racks.count("a") == 2,
            timeout=40,
            message=f"{scheduler} binds the gang on rack a",
        )


def test_with_the_gate_a_gang_without_constraint_is_one_placement_of_all_nodes(
    api: ApiClient, both: dict[str, str]
) -> None:
    # One node of 2 cpu per scheduler; 3 members that may only go there (nodeSelector).
    _seen_nodes(api, both, _racks(api, {"a": ["2"]}))
    members = {s: _gang(api, s, ns, 3, key=None, rack="a") for s, ns in both.items()}
    reasons = {s: _reasons(api, ns, members[s]) for s, ns in both.items()}
    assert reasons[OURS] == reasons[ORACLE]
    conditions = {
        s: wait_for(lambda ns=ns: _condition(api, ns), message=f"{s}'s condition")
        for s, ns in both.items()
    }
    assert conditions[OURS] == conditions[ORACLE]
    ours = conditions[OURS]
    assert ours is not None
    assert ours[2].startswith(
        "pod group is unschedulable, 0/1 placements are available, first placement status: "
        "minCount (3) cannot be satisfied: 2 scheduled, 0 remaining"
    )
