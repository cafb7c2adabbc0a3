"""Parity with kube-scheduler, table-driven: on one set of nodes, the same pod spec is placed
first by the real kube-scheduler (schedulerName default-scheduler), then by kubesched.

Each row lists the nodes (and pods already bound to them) and the feasible set the test
expects. Both schedulers must land on a node of that set (of `best`, when scores decide),
or both must report the pod unschedulable with the same `0/N nodes are available: ...`
message, preemption verdict included (both run DefaultPreemption). The
rows check the table against kube-scheduler too, so a wrong row fails on the kube-scheduler
side first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from kubesched.testing.builders import NodeBuilder, PodBuilder
from tests.e2e.harness import ApiClient, assert_stays, condition, is_bound, node_name, wait_for
from tests.e2e.harness.kubesched import KubeschedProcess, start_kubesched
from tests.e2e.harness.parity import (
    Outcome,
    pod_events,
    split_post_filter,
    traceback_free,
    wait_outcome,
    with_limits,
)

SCHEDULER = "parity-scheduler"
DEFAULT = "default-scheduler"

PodSpec = Callable[[PodBuilder], PodBuilder]

# kube-scheduler's reason texts (v1.37)
AFFINITY = "node(s) didn't match Pod's node affinity/selector"
PORTS = "node(s) didn't have free ports for the requested pod ports"
TAINT = "node(s) had untolerated taint(s)"
CORDONED = "node(s) were unschedulable"


@dataclass(frozen=True)
class Case:
    id: str
    nodes: dict[str, Callable[[NodeBuilder], NodeBuilder]]
    pod: PodSpec
    feasible: frozenset[str]
    """Nodes where the pod may go; empty: unschedulable everywhere."""
    best: frozenset[str] = frozenset()
    """When scores decide: the top-scoring nodes (a subset of `feasible`)."""
    message: str = ""
    """kube-scheduler's FailedScheduling message (without the preemption part)."""
    existing: dict[str, list[PodSpec]] = field(default_factory=dict)
    """Pods already bound to a node (by the user, through spec.nodeName)."""


def node(**capacity: str) -> Callable[[NodeBuilder], NodeBuilder]:
    return lambda n: n.capacity(**capacity) if capacity else n


def tainted(key: str, value: str, effect: str) -> Callable[[NodeBuilder], NodeBuilder]:
    return lambda n: n.taint(key, value, effect)


def labelled(**labels: str) -> Callable[[NodeBuilder], NodeBuilder]:
    def build(n: NodeBuilder) -> NodeBuilder:
        for key, value in labels.items():
            n.label(key, value)
        return n

    return build


def gpus(count: str) -> Callable[[NodeBuilder], NodeBuilder]:
    return lambda n: n.capacity_named({"example.com/gpu": count})


def plain(p: PodBuilder) -> PodBuilder:
    return p


ZONES = {"a": labelled(zone="a", cores="4"), "b": labelled(zone="b", cores="16"), "c": node()}

CASES = [
    # -- taints and tolerations ----------------------------------------------------------
    Case(
        "noschedule-untolerated",
        {"a": tainted("k", "v", "NoSchedule"), "b": node()},
        plain,
        frozenset({"b"}),
    ),
    Case(
        "noschedule-tolerated-equal",
        {"a": tainted("dedicated", "gpu", "NoSchedule"), "b": tainted("other", "x", "NoSchedule")},
        lambda p: p.toleration("dedicated", "gpu", effect="NoSchedule"),
        frozenset({"a"}),
    ),
    Case(
        "noschedule-wrong-value",
        {"a": tainted("dedicated", "gpu", "NoSchedule"), "b": node()},
        lambda p: p.toleration("dedicated", "cpu", effect="NoSchedule"),
        frozenset({"b"}),
    ),
    Case(
        "noexecute-untolerated",
        {"a": tainted("k", "v", "NoExecute"), "b": node()},
        plain,
        frozenset({"b"}),
    ),
    Case(
        "exists-operator-any-value-any-effect",
        {
            "a": tainted("k", "v1", "NoSchedule"),
            "b": tainted("k", "v2", "NoExecute"),
            "c": tainted("other", "x", "NoSchedule"),
        },
        lambda p: p.toleration("k", operator="Exists"),
        frozenset({"a", "b"}),
    ),
    Case(
        "exists-operator-empty-key-tolerates-all",
        {"a": tainted("k", "v", "NoSchedule"), "b": tainted("x", "y", "NoExecute")},
        lambda p: p.toleration(operator="Exists"),
        frozenset({"a", "b"}),
    ),
    Case(
        "all-tainted",
        {"a": tainted("k", "v", "NoSchedule"), "b": tainted("k2", "v2", "NoExecute")},
        plain,
        frozenset(),
        message=f"0/2 nodes are available: 2 {TAINT}.",
    ),
    Case(
        "prefer-noschedule-scores-lower",
        {"a": tainted("k", "v", "PreferNoSchedule"), "b": node()},
        plain,
        frozenset({"a", "b"}),
        best=frozenset({"b"}),
    ),
    Case(
        "prefer-noschedule-tolerated",
        {"a": tainted("k", "v", "PreferNoSchedule"), "b": tainted("j", "w", "PreferNoSchedule")},
        lambda p: p.toleration("k", "v", effect="PreferNoSchedule"),
        frozenset({"a", "b"}),
        best=frozenset({"a"}),
    ),
    # -- node affinity and nodeSelector --------------------------------------------------
    Case(
        "affinity-in",
        ZONES,
        lambda p: p.required_node_affinity("zone", "In", ["a"]),
        frozenset({"a"}),
    ),
    Case(
        "affinity-notin-matches-unlabelled",
        ZONES,
        lambda p: p.required_node_affinity("zone", "NotIn", ["a"]),
        frozenset({"b", "c"}),
    ),
    Case(
        "affinity-exists",
        ZONES,
        lambda p: p.required_node_affinity("zone", "Exists", []),
        frozenset({"a", "b"}),
    ),
    Case(
        "affinity-does-not-exist",
        ZONES,
        lambda p: p.required_node_affinity("zone", "DoesNotExist", []),
        frozenset({"c"}),
    ),
    Case(
        "affinity-gt",
        ZONES,
        lambda p: p.required_node_affinity("cores", "Gt", ["8"]),
        frozenset({"b"}),
    ),
    Case(
        "affinity-lt",
        ZONES,
        lambda p: p.required_node_affinity("cores", "Lt", ["8"]),
        frozenset({"a"}),
    ),
    Case(
        "affinity-terms-are-ored",
        ZONES,
        lambda p: p.required_node_affinity("zone", "In", ["a"]).required_node_affinity(
            "cores", "Gt", ["8"]
        ),
        frozenset({"a", "b"}),
    ),
    Case(
        "affinity-matches-nothing",
        ZONES,
        lambda p: p.required_node_affinity("zone", "In", ["z"]),
        frozenset(),
        message=f"0/3 nodes are available: 3 {AFFINITY}.",
    ),
    Case(
        "affinity-preferred",
        ZONES,
        lambda p: p.preferred_node_affinity(50, "zone", "In", ["b"]),
        frozenset({"a", "b", "c"}),
        best=frozenset({"b"}),
    ),
    Case(
        "affinity-preferred-weights",
        ZONES,
        lambda p: p.preferred_node_affinity(10, "zone", "In", ["b"]).preferred_node_affinity(
            80, "zone", "In", ["a"]
        ),
        frozenset({"a", "b", "c"}),
        best=frozenset({"a"}),
    ),
    Case(
        "node-selector",
        {"a": labelled(disk="ssd"), "b": labelled(disk="hdd"), "c": node()},
        lambda p: p.node_selector(disk="ssd"),
        frozenset({"a"}),
    ),
    Case(
        "node-selector-and-affinity-both-apply",
        {"a": labelled(disk="ssd", zone="a"), "b": labelled(disk="ssd", zone="b")},
        lambda p: p.node_selector(disk="ssd").required_node_affinity("zone", "In", ["b"]),
        frozenset({"b"}),
    ),
    Case(
        "node-selector-matches-nothing",
        {"a": labelled(disk="hdd"), "b": node()},
        lambda p: p.node_selector(disk="ssd"),
        frozenset(),
        message=f"0/2 nodes are available: 2 {AFFINITY}.",
    ),
    # -- cordoned nodes ------------------------------------------------------------------
    Case(
        "unschedulable-node",
        {"a": lambda n: n.unschedulable(), "b": node()},
        plain,
        frozenset({"b"}),
    ),
    Case(
        "all-unschedulable-nodes",
        {"a": lambda n: n.unschedulable()},
        plain,
        frozenset(),
        message=f"0/1 nodes are available: 1 {CORDONED}.",
    ),
    # -- host ports ----------------------------------------------------------------------
    Case(
        "host-port-taken",
        {"a": node(), "b": node()},
        lambda p: p.host_port(8080),
        frozenset({"b"}),
        existing={"a": [lambda p: p.host_port(8080)]},
    ),
    Case(
        "host-port-taken-everywhere",
        {"a": node(), "b": node()},
        lambda p: p.host_port(8080),
        frozenset(),
        message=f"0/2 nodes are available: 2 {PORTS}.",
        existing={"a": [lambda p: p.host_port(8080)], "b": [lambda p: p.host_port(8080)]},
    ),
    Case(
        "host-port-other-protocol-is-free",
        {"a": node()},
        lambda p: p.host_port(8080),
        frozenset({"a"}),
        existing={"a": [lambda p: p.host_port(8080, protocol="UDP")]},
    ),
    Case(
        "host-port-other-host-ip-is-free",
        {"a": node()},
        lambda p: p.host_port(8080, host_ip="127.0.0.2"),
        frozenset({"a"}),
        existing={"a": [lambda p: p.host_port(8080, host_ip="127.0.0.1")]},
    ),
    Case(
        "host-port-wildcard-ip-conflicts",
        {"a": node(), "b": node()},
        lambda p: p.host_port(8080),
        frozenset({"b"}),
        existing={"a": [lambda p: p.host_port(8080, host_ip="127.0.0.1")]},
    ),
    # -- extended resources --------------------------------------------------------------
    Case(
        "extended-resource-only-on-one-node",
        {"a": gpus("2"), "b": node()},
        lambda p: p.req_named({"example.com/gpu": "1"}),
        frozenset({"a"}),
    ),
    Case(
        "extended-resource-too-many",
        {"a": gpus("2"), "b": node()},
        lambda p: p.req_named({"example.com/gpu": "3"}),
        frozenset(),
        message="0/2 nodes are available: 2 Insufficient example.com/gpu.",
    ),
    Case(
        "extended-resource-counts-bound-pods",
        {"a": gpus("2"), "b": gpus("2")},
        lambda p: p.req_named({"example.com/gpu": "2"}),
        frozenset({"b"}),
        existing={"a": [lambda p: p.req_named({"example.com/gpu": "1"})]},
    ),
    # -- resource fit --------------------------------------------------------------------
    Case(
        "cpu-fits-one-node",
        {"a": node(cpu="1"), "b": node(cpu="4")},
        lambda p: p.req(cpu="2"),
        frozenset({"b"}),
    ),
    Case(
        "memory-fits-one-node",
        {"a": node(memory="4Gi"), "b": node(memory="16Gi")},
        lambda p: p.req(memory="8Gi"),
        frozenset({"b"}),
    ),
    Case(
        "cpu-and-memory-insufficient",
        {"a": node(cpu="1", memory="1Gi"), "b": node(cpu="1", memory="16Gi")},
        lambda p: p.req(cpu="2", memory="2Gi"),
        frozenset(),
        message="0/2 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.",
    ),
    Case(
        "cpu-counts-bound-pods",
        {"a": node(cpu="2"), "b": node(cpu="2")},
        lambda p: p.req(cpu="1500m"),
        frozenset({"b"}),
        existing={"a": [lambda p: p.req(cpu="1")]},
    ),
    Case(
        "init-container-peak",
        {"a": node(cpu="2"), "b": node(cpu="4")},
        lambda p: p.req(cpu="500m").init_container("init", requests={"cpu": "3"}),
        frozenset({"b"}),
    ),
    Case(
        "sidecar-adds-to-containers",
        {"a": node(cpu="2"), "b": node(cpu="4")},
        lambda p: p.req(cpu="1500m").init_container("sidecar", requests={"cpu": "1"}, sidecar=True),
        frozenset({"b"}),
    ),
    Case(
        "ephemeral-storage",
        {"a": node(ephemeral_storage="1Gi"), "b": node(ephemeral_storage="10Gi")},
        lambda p: p.req(ephemeral_storage="2Gi"),
        frozenset({"b"}),
    ),
    Case(
        "too-many-pods",
        {"a": node(pods="1")},
        plain,
        frozenset(),
        message="0/1 nodes are available: 1 Too many pods.",
        existing={"a": [plain]},
    ),
    Case(
        "least-allocated-prefers-emptier-node",
        {"a": node(cpu="4"), "b": node(cpu="4")},
        lambda p: p.req(cpu="500m"),
        frozenset({"a", "b"}),
        best=frozenset({"b"}),
        existing={"a": [lambda p: p.req(cpu="3")]},
    ),
    # -- several reasons at once ---------------------------------------------------------
    Case(
        "mixed-reasons",
        {
            # each node fails one filter (the first failing one is reported, in order
            # NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit)
            "a": tainted("k", "v", "NoSchedule"),
            "b": lambda n: n.capacity(cpu="1").label("zone", "x"),
            "c": node(),
            "d": lambda n: n.unschedulable(),
        },
        lambda p: p.req(cpu="2").node_selector(zone="x"),
        frozenset(),
        message=(
            f"0/4 nodes are available: 1 Insufficient cpu, 1 {AFFINITY}, 1 {TAINT}, 1 {CORDONED}."
        ),
    ),
]


@pytest.fixture(scope="module")
def parity_scheduler(
    local_cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[KubeschedProcess]:
    """One kubesched process for the whole table (nodes and pods change under it)."""
    workdir: Path = tmp_path_factory.mktemp("parity")
    proc = start_kubesched(
        local_cluster.kubeconfig_path,
        f"--scheduler-name={SCHEDULER}",
        "--leader-elect=false",
        workdir=workdir,
        name="parity",
    )
    try:
        proc.wait_ready()
        yield proc
    finally:
        proc.stop()


@pytest.fixture(autouse=True)
def _report_log(request: pytest.FixtureRequest, parity_scheduler: KubeschedProcess) -> None:
    request.node.kubesched_processes = [parity_scheduler]


def node_names(case: Case) -> dict[str, str]:
    """Short table names -> unique node names for this case."""
    return {short: f"{case.id[:40]}-{short}" for short in case.nodes}


def build_pod(spec: PodSpec, *, name: str, namespace: str, scheduler: str) -> dict[str, Any]:
    return with_limits(spec(make_pod().name(name).namespace(namespace).scheduler(scheduler)).obj())


def place(api: ApiClient, namespace: str, pod: dict[str, Any], nodes: int) -> Outcome:
    api.create(pod)
    return wait_outcome(api, namespace, pod["metadata"]["name"], nodes=nodes)


def check(case: Case, who: str, outcome: Outcome, names: dict[str, str]) -> list[str]:
    """What is wrong with `outcome` according to the table (empty: all good)."""
    short = {full: s for s, full in names.items()}
    if case.feasible:
        if not outcome.bound:
            return [f"{who}: expected a node in {sorted(case.feasible)}, got {outcome.describe()}"]
        where = short.get(outcome.node, outcome.node)
        allowed = case.best or case.feasible
        if where not in allowed:
            what = "best-scoring" if case.best else "feasible"
            return [f"{who}: placed on {where}, not a {what} node {sorted(allowed)}"]
        return []
    if outcome.bound:
        return [f"{who}: expected unschedulable, but bound to {short.get(outcome.node)}"]
    problems = []
    if outcome.reason != "Unschedulable":
        problems.append(f"{who}: PodScheduled reason {outcome.reason!r}, not 'Unschedulable'")
    if outcome.message != case.message:
        problems.append(f"{who}: message {outcome.message!r}, table says {case.message!r}")
    return problems


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_same_placement_as_kube_scheduler(
    case: Case, api: ApiClient, namespace: str, parity_scheduler: KubeschedProcess
) -> None:
    names = node_names(case)
    for short, build in case.nodes.items():
        api.create(build(make_node().name(names[short])).obj())
    for short, specs in case.existing.items():
        for i, spec in enumerate(specs):
            pod = build_pod(
                spec, name=f"existing-{short}-{i}", namespace=namespace, scheduler=DEFAULT
            )
            pod["spec"]["nodeName"] = names[short]
            api.create(pod)

    kube = place(
        api,
        namespace,
        build_pod(case.pod, name="by-kube-scheduler", namespace=namespace, scheduler=DEFAULT),
        len(names),
    )
    # Free what kube-scheduler's pod took: kubesched sees this delete before its own pod
    # (one pod watch), so both decide on the same cluster state.
    api.delete("Pod", "by-kube-scheduler", namespace=namespace, grace_period=0)
    wait_for(
        lambda: api.get_or_none("Pod", "by-kube-scheduler", namespace=namespace) is None,
        timeout=10,
        message="kube-scheduler's pod is gone",
    )
    ours = place(
        api,
        namespace,
        build_pod(case.pod, name="by-kubesched", namespace=namespace, scheduler=SCHEDULER),
        len(names),
    )

    table_vs_kube = check(case, "kube-scheduler", kube, names)
    assert not table_vs_kube, f"the table disagrees with kube-scheduler: {table_vs_kube}"
    problems = check(case, "kubesched", ours, names)
    if not case.feasible:
        if ours.full_message != kube.full_message:
            problems.append(
                "FailedScheduling differs from kube-scheduler's:\n"
                f"  kube-scheduler: {kube.full_message!r}\n"
                f"  kubesched:      {ours.full_message!r}"
            )
        events, _ = pod_events(api, namespace, ours.pod, "FailedScheduling")
        note = ours.full_message
        if not any(e.note == note and e.reporting_controller == SCHEDULER for e in events):
            problems.append(f"kubesched: no FailedScheduling event with {note!r}")
    assert not problems, "kubesched differs from kube-scheduler:\n" + "\n".join(problems)
    assert traceback_free(parity_scheduler.log()), "kubesched logged a traceback"


def test_user_set_node_name_is_left_alone(
    api: ApiClient, namespace: str, parity_scheduler: KubeschedProcess
) -> None:
    """A pod created with spec.nodeName is bound already: neither scheduler touches it, even
    on a node it would not choose (tainted, cordoned) or one that does not exist."""
    api.create(make_node().name("nodename-free").obj())
    api.create(make_node().name("nodename-tainted").taint("k", "v", "NoSchedule").obj())
    api.create(make_node().name("nodename-cordoned").unschedulable().obj())
    targets = {
        "on-tainted": "nodename-tainted",
        "on-cordoned": "nodename-cordoned",
        "on-missing-node": "nodename-missing",
    }
    created = []
    for scheduler in (DEFAULT, SCHEDULER):
        for suffix, target in targets.items():
            name = f"{'kube' if scheduler == DEFAULT else 'ks'}-{suffix}"
            builder = make_pod().name(name).namespace(namespace).scheduler(scheduler).node(target)
            created.append((api.create(builder.obj()), target))

    def untouched(_: object = None) -> bool:
        for pod, target in created:
            current = api.get("Pod", pod["metadata"]["name"], namespace=namespace)
            if node_name(current) != target or current["metadata"]["uid"] != pod["metadata"]["uid"]:
                return False
        return True

    assert_stays(untouched, holds=bool, duration=3, message="user-set nodeName pods unchanged")
    for pod, _target in created:
        for reason in ("Scheduled", "FailedScheduling"):
            new, core = pod_events(api, namespace, pod, reason)
            assert not new, f"{reason} event for {pod['metadata']['name']}: {new}"
            assert not core, f"{reason} core event for {pod['metadata']['name']}: {core}"
    log = parity_scheduler.log()
    assert traceback_free(log), "kubesched logged a traceback"
    for pod, _target in created:
        assert f"{namespace}/{pod['metadata']['name']}" not in log, (
            f"kubesched logged about a pod it must ignore: {pod['metadata']['name']}"
        )


def _event_shape(event: dict[str, Any]) -> dict[str, Any]:
    """The fields of an events.k8s.io/v1 Event a user or tool reads (no names, times, UIDs)."""
    regarding = event.get("regarding") or {}
    return {
        "type": event.get("type"),
        "reason": event.get("reason"),
        "action": event.get("action"),
        "regarding": {k: regarding.get(k) for k in ("apiVersion", "kind", "namespace")},
        "regarding.uid set": bool(regarding.get("uid")),
        "reportingInstance set": bool(event.get("reportingInstance")),
    }


def _condition_shape(pod: dict[str, Any]) -> dict[str, Any]:
    scheduled = dict(condition(pod, "PodScheduled") or {})
    scheduled.pop("lastTransitionTime", None)
    scheduled["message"] = split_post_filter(str(scheduled.get("message", "")))[0]
    return scheduled


def _differences(ours: dict[str, Any], kube: dict[str, Any]) -> str:
    keys = sorted({*ours, *kube})
    return "; ".join(
        f"{k}: kubesched {ours.get(k, '<absent>')!r}, kube-scheduler {kube.get(k, '<absent>')!r}"
        for k in keys
        if ours.get(k, "<absent>") != kube.get(k, "<absent>")
    )


def test_reports_have_kube_scheduler_shape(
    api: ApiClient, namespace: str, parity_scheduler: KubeschedProcess
) -> None:
    """The PodScheduled condition and the Scheduled / FailedScheduling events kubesched
    writes carry the same fields and values as kube-scheduler's (scheduler name aside)."""
    api.create(make_node().name("shape-tainted").taint("k", "v", "NoSchedule").obj())
    pods = {}
    for who, scheduler in (("kube", DEFAULT), ("ours", SCHEDULER)):
        pod = make_pod().name(f"{who}-stuck").namespace(namespace).scheduler(scheduler)
        pods[who] = api.create(pod.obj())
    stuck = {who: wait_outcome(api, namespace, f"{who}-stuck", nodes=1) for who in pods}
    ours, kube = _condition_shape(stuck["ours"].pod), _condition_shape(stuck["kube"].pod)
    assert ours == kube, f"PodScheduled=False differs: {_differences(ours, kube)}"
    failed = {
        who: wait_for(
            lambda who=who: pod_events(api, namespace, pods[who], "FailedScheduling")[0],
            timeout=10,
            message=f"FailedScheduling event for {who}-stuck",
        )[0].raw
        for who in pods
    }
    ours, kube = _event_shape(failed["ours"]), _event_shape(failed["kube"])
    assert ours == kube, f"FailedScheduling event differs: {_differences(ours, kube)}"
    assert failed["ours"]["reportingController"] == SCHEDULER

    api.create(make_node().name("shape-open").obj())
    for who in pods:
        wait_for(
            lambda who=who: api.get("Pod", f"{who}-stuck", namespace=namespace),
            until=is_bound,
            timeout=10,
        )
    placed = {
        who: wait_for(
            lambda who=who: pod_events(api, namespace, pods[who], "Scheduled")[0],
            timeout=10,
            message=f"Scheduled event for {who}-stuck",
        )[0].raw
        for who in pods
    }
    ours, kube = _event_shape(placed["ours"]), _event_shape(placed["kube"])
    assert ours == kube, f"Scheduled event differs: {_differences(ours, kube)}"
    for who in pods:
        assert placed[who]["note"] == (
            f"Successfully assigned {namespace}/{who}-stuck to shape-open"
        )
    bound = {who: api.get("Pod", f"{who}-stuck", namespace=namespace) for who in pods}
    ours, kube = _condition_shape(bound["ours"]), _condition_shape(bound["kube"])
    assert ours == kube, f"PodScheduled=True differs: {_differences(ours, kube)}"
