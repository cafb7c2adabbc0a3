"""The test cases of `catalogue_event_handling` (scheduler_perf's `event_handling/`):
upstream's parameters, the order of their ops, the pods each stage holds back and the
change that lets them through, the count of measured pods, and the script's ops against a
recording client."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from kubesched.bench import templates_event_handling as h
from kubesched.bench.catalogue import CASES, SIZES, catalogue_workload
from kubesched.bench.catalogue_event_handling import EVENT_HANDLING_CASES
from kubesched.bench.placement import misplaced, tolerates
from kubesched.bench.script import (
    NO_NULL_BINDER,
    WARM_UP_NODE,
    Barrier,
    CreateNodes,
    CreatePods,
    DeletePods,
    Script,
    ScriptSettings,
    Update,
    run_steps,
)
from kubesched.bench.workloads import PodGroup, Workload
from kubesched.framework import QueueingHint
from kubesched.kube.errors import Conflict
from kubesched.model import Node, Pod
from kubesched.model.node import Taint
from kubesched.model.pod import Toleration
from kubesched.plugins import InterPodAffinity, PodTopologySpread
from kubesched.testing import FakeHandle

NAMES = [entry[0] for entry in EVENT_HANDLING_CASES]
QUEUE, SKIP = QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP


def _script(workload: Workload) -> Script:
    assert workload.script is not None
    return workload.script


def _created_pods(workload: Workload) -> Iterator[dict[str, Any]]:
    groups = [*workload.initial]
    groups += [step.group for step in _script(workload).steps if isinstance(step, CreatePods)]
    for group in groups:
        for _path, body in group.pods("bench"):
            yield body


def _nodes(workload: Workload) -> list[dict[str, Any]]:
    nodes = [workload.node(i) for i in range(workload.nodes)]
    for step in _script(workload).steps:
        if isinstance(step, CreateNodes):
            nodes += [step.factory(i) for i in range(step.count)]
    return nodes


def test_the_five_cases_are_registered_in_upstreams_order() -> None:
    assert NAMES == [
        "EventHandlingPodDelete",
        "EventHandlingPodUpdate",
        "EventHandlingNodeAdd",
        "EventHandlingPodAdd",
        "EventHandlingNodeUpdate",
    ]
    assert set(NAMES) <= set(CASES)


@pytest.mark.parametrize(("name", "size"), list(itertools.product(NAMES, ("5", "500"))))
def test_the_measured_count_is_every_created_pod_upstream_collects(name: str, size: str) -> None:
    workload = catalogue_workload(name, size)
    script = _script(workload)
    wanted = dict(term.split("=") for term in script.selector.split(",") if term)
    measured = [
        body
        for body in _created_pods(workload)
        if body["metadata"]["namespace"] in script.namespaces
        and all((body["metadata"].get("labels") or {}).get(k) == v for k, v in wanted.items())
    ]
    assert len(measured) == workload.pods == script.count
    names = [body["metadata"]["name"] for body in measured]
    assert len(set(names)) == len(names)  # the tracker follows them by name
    assert set(workload.measured.namespaces()) == set(script.namespaces)
    assert dict(workload.unsupported) == {"null-binder": NO_NULL_BINDER}


@pytest.mark.parametrize("name", NAMES)
def test_every_node_and_pod_parses_with_the_scheduler_name(name: str) -> None:
    workload = catalogue_workload(name, "5")
    for body in _created_pods(workload):
        assert body["spec"]["schedulerName"] == "bench"
        assert body["metadata"]["namespace"] in workload.all_namespaces()
        Pod.from_json(body)
    names = [Node.from_json(body).name for body in _nodes(workload)]
    assert len(set(names)) == len(names)


def test_upstreams_parameters_and_the_5000_size_is_the_performance_variant() -> None:
    sizes = {name: CASES[name].sizes for name in NAMES}
    assert sizes["EventHandlingPodDelete"]["5"] == (2, 15, 20)
    assert sizes["EventHandlingPodDelete"]["500"] == (50, 480, 500)
    assert sizes["EventHandlingPodUpdate"]["500"] == (1, 1000, 1000)
    assert sizes["EventHandlingNodeAdd"]["500"] == (100, 0, 1000)
    assert sizes["EventHandlingPodAdd"]["500"] == (2, 1, 1000)
    for name in NAMES:
        assert sizes[name]["5000"] == sizes[name]["500"]
        assert "no 5000-node variant" in catalogue_workload(name, "5000").note
        assert set(sizes[name]) == set(SIZES)


def test_cases_without_a_schedulable_node_at_the_start_use_the_warm_up_node() -> None:
    for name in ("EventHandlingPodUpdate", "EventHandlingNodeAdd", "EventHandlingNodeUpdate"):
        workload = catalogue_workload(name, "5")
        assert _script(workload).own_nodes
        assert (workload.nodes, workload.initial) == (1, ())
        assert workload.node(0)["metadata"]["name"] == WARM_UP_NODE
    delete = catalogue_workload("EventHandlingPodDelete", "5")
    assert not _script(delete).own_nodes
    assert [g.count for g in delete.initial] == [15, 15]  # the blockers, bound first


def test_node_add_holds_each_group_until_its_nodes_come() -> None:
    steps = _script(catalogue_workload("EventHandlingNodeAdd", "5")).steps
    kinds = [type(step).__name__ for step in steps]
    assert kinds[:3] == ["CreateNodes", "CreatePods", "Barrier"]
    first = steps[0]
    assert isinstance(first, CreateNodes)
    node = Node.from_json(first.factory(0))
    assert node.unschedulable
    low = steps[3]
    assert isinstance(low, CreateNodes)
    resources = steps[4]
    assert isinstance(resources, CreatePods)
    _path, pod = next(resources.group.pods("bench"))
    assert (
        Pod.from_json(pod).requests.milli_cpu > Node.from_json(low.factory(0)).allocatable.milli_cpu
    )
    taint = [s for s in steps if isinstance(s, CreateNodes)][-1]
    assert taint.factory(0)["spec"]["taints"] == [{"key": "toleration", "effect": "NoSchedule"}]


def test_node_update_changes_the_nodes_it_created() -> None:
    steps = _script(catalogue_workload("EventHandlingNodeUpdate", "5")).steps
    created = {
        step.factory(i)["metadata"]["name"]
        for step in steps
        if isinstance(step, CreateNodes)
        for i in range(step.count)
    }
    updates = [step for step in steps if isinstance(step, Update)]
    assert len(updates) == 4
    for update in updates:
        assert update.rate == 100.0
        assert {update.path(i).rsplit("/", 1)[1] for i in range(update.count)} <= created
    grow = updates[1]
    assert grow.subresources == ("status",)
    taints = [s for s in steps if isinstance(s, CreatePods)][-1].group
    _path, pod = list(taints.pods("bench"))[-1]
    assert pod["spec"]["tolerations"][0]["key"] == "toleration-1"  # pod 19 of 20: node 1


def test_the_updates_make_the_change_the_upstream_template_makes() -> None:
    node = h.node("n", taints=["allow"], unschedulable=True)
    h.make_schedulable(0, node)
    h.add_labels(0, node)
    h.retaint(3, node)
    h.grow(0, node)
    parsed = Node.from_json(node)
    assert not parsed.unschedulable
    assert parsed.labels["affinity"] == "allow"
    assert node["spec"]["taints"] == [{"key": "toleration-3", "effect": "NoSchedule"}]
    assert parsed.allocatable.milli_cpu == 4000
    pod = h.plain_pod(labels={"color": "green-1"}, cpu="0.0001", memory="30Mi")("p-1", "ns", "s")
    pod["spec"]["tolerations"] = [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}]
    pod["spec"]["schedulingGates"] = [{"name": "test.k8s.io/hold"}]
    h.add_toleration("toleration")(0, pod)
    h.drop_labels(0, pod)
    h.scale_down(0, pod)
    h.drop_gates(0, pod)
    keys = [t["key"] for t in pod["spec"]["tolerations"]]
    assert keys == ["node.kubernetes.io/not-ready", "toleration"]  # added, none removed
    assert pod["metadata"]["labels"] == {}
    assert "schedulingGates" not in pod["spec"]
    assert Pod.from_json(pod).requests.memory == 1024 * 1024


def test_pod_delete_blockers_fill_the_volume_limit_and_are_deleted_by_label() -> None:
    workload = catalogue_workload("EventHandlingPodDelete", "500")
    steps = _script(workload).steps
    deletes = [step for step in steps if isinstance(step, DeletePods)]
    assert {(d.namespace, d.selector, d.rate) for d in deletes} == {
        ("blockertopologyportsresources", "type=blocker", 100.0),
        ("blockeraffinity", "type=blocker", 100.0),
    }
    modes = {
        body["metadata"]["namespace"]: body["spec"]["accessModes"]
        for path, body in workload.objects
        if path.endswith("persistentvolumeclaims")
    }
    assert modes["blockeraffinity"] == ["ReadWriteOncePod"]
    csinodes = [body for path, body in workload.objects if path.endswith("csinodes")]
    assert len(csinodes) == 50
    assert csinodes[0]["spec"]["drivers"][0]["allocatable"]["count"] == 20
    for blockers in workload.initial:  # 2 x 480 CSI volumes on 50 nodes: 19.2 of 20 a node
        _path, pod = next(blockers.pods("bench"))
        assert pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"] == "pvc-0"
    barrier = steps[-1]
    assert isinstance(barrier, Barrier)
    assert not barrier.attempted


class _Recorder:
    """A KubeClient stand-in that records requests; its first PUT conflicts."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.conflicts = 1

    async def post(self, path: str, body: dict[str, Any], *, timeout: float) -> dict[str, Any]:
        self.calls.append(("POST", body["metadata"]["name"]))
        return body

    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float
    ) -> dict[str, Any]:
        self.calls.append(("GET", f"{path}?{(params or {}).get('labelSelector', '')}"))
        if path.endswith("/pods"):
            items = [{"metadata": {"name": f"b-{i}"}} for i in range(2)]
            return {"items": items, "metadata": {}}
        return {"metadata": {"name": path.rsplit("/", 1)[1], "resourceVersion": "1"}, "spec": {}}

    async def put(self, path: str, body: dict[str, Any], *, timeout: float) -> dict[str, Any]:
        self.calls.append(("PUT", path))
        if self.conflicts:
            self.conflicts -= 1
            raise Conflict(409, "Conflict", "the object has been modified")
        return {"metadata": {"resourceVersion": "2"}}

    async def delete(
        self, path: str, *, body: dict[str, Any] | None = None, timeout: float
    ) -> dict[str, Any]:
        self.calls.append(("DELETE", path))
        return {}


def test_the_script_runs_its_ops_in_order_retrying_a_conflicted_update() -> None:
    group = PodGroup(h.plain_pod(), 2, "ns", "p-")
    script = Script(
        steps=(
            CreateNodes(lambda i: h.node(f"n-{i}"), 1),
            CreatePods(group),
            Update(lambda i: f"/api/v1/nodes/n-{i}", h.make_schedulable, 1, 1000.0, ("", "status")),
            DeletePods("ns", "type=blocker", 1000.0),
        ),
        namespaces=("ns",),
        count=2,
    )
    client = _Recorder()
    asyncio.run(run_steps(client, script, ScriptSettings("bench", 1, 5.0)))  # type: ignore[arg-type]
    assert client.calls == [
        ("POST", "n-0"),
        ("POST", "p-0"),
        ("POST", "p-1"),
        ("GET", "/api/v1/nodes/n-0?"),
        ("PUT", "/api/v1/nodes/n-0"),  # conflicts: read again
        ("GET", "/api/v1/nodes/n-0?"),
        ("PUT", "/api/v1/nodes/n-0"),
        ("PUT", "/api/v1/nodes/n-0/status"),
        ("GET", "/api/v1/namespaces/ns/pods?type=blocker"),
        ("DELETE", "/api/v1/namespaces/ns/pods/b-0"),
        ("DELETE", "/api/v1/namespaces/ns/pods/b-1"),
    ]


def test_a_node_is_valid_for_a_pod_only_if_its_taints_and_affinity_allow_it() -> None:
    def pod(**spec: Any) -> Pod:
        return Pod.from_json(h.plain_pod(**spec)("p-0", "ns", "bench"))

    tainted = Node.from_json(h.node("n", taints=["allow"]))
    assert misplaced(pod(), tainted) == "taint allow:NoSchedule not tolerated"
    assert misplaced(pod(tolerate=["allow"]), tainted) == ""
    closed = Node.from_json(h.node("n", unschedulable=True))
    assert misplaced(pod(), closed) == "the node is unschedulable"
    assert misplaced(pod(tolerate=["node.kubernetes.io/unschedulable"]), closed) == ""
    requires = {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "affinity", "operator": "In", "values": ["allow"]}]}
            ]
        }
    }
    picky = pod(affinity={"nodeAffinity": requires})
    assert misplaced(picky, Node.from_json(h.node("n"))) == "required node affinity does not match"
    labelled = Node.from_json(h.node("n", labels=h.UNBLOCKING_LABELS))
    assert misplaced(picky, labelled) == ""
    wildcard = [Toleration(operator="Exists")]
    assert tolerates(wildcard, Taint("any", "", "NoExecute"))


def test_pod_add_events_queue_only_the_pods_their_hints_concern() -> None:
    """The cost of EventHandlingPodAdd is the hints asked per event (docs/performance.md):
    what they answer for its pods is upstream's, a green pod wakes the spreading pods only,
    `yellow-<i>` the affinity pod i only."""
    steps = _script(catalogue_workload("EventHandlingPodAdd", "5")).steps
    groups = {s.group.prefix: s.group for s in steps if isinstance(s, CreatePods)}

    def pod(prefix: str, index: int, node: str = "") -> Pod:
        _path, obj = list(groups[prefix].pods("bench"))[index]
        obj["metadata"]["uid"] = f"{prefix}{index}"
        if node:
            obj["spec"]["nodeName"] = node
        return Pod.from_json(obj)

    spread, affine = pod("pod-podtopologyspread-", 0), pod("pod-interpodaffinity-", 3)
    green = pod("pod-unblocker-topology-", 0, "scheduler-perf-0")
    yellow, other_yellow = (pod("pod-unblocker-affinity-", i, "scheduler-perf-1") for i in (3, 4))
    affinity = InterPodAffinity(args={}, handle=FakeHandle())
    spreading = PodTopologySpread(args={"defaultingType": "List"}, handle=FakeHandle())
    assert spreading.is_schedulable_after_assigned_pod_change(spread, None, green) == QUEUE
    assert spreading.is_schedulable_after_assigned_pod_change(spread, None, yellow) == SKIP
    assert affinity.is_schedulable_after_assigned_pod_change(affine, None, green) == SKIP
    assert affinity.is_schedulable_after_assigned_pod_change(affine, None, other_yellow) == SKIP
    assert affinity.is_schedulable_after_assigned_pod_change(affine, None, yellow) == QUEUE
