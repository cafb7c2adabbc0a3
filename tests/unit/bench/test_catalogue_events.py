"""The test cases of `catalogue_events`: upstream's parameters, namespaces, ops (pods not
waited for, pods deleted in the background, churn of preemptors) and what their objects
ask of a scheduler."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from kubesched.bench.barrier import attempted
from kubesched.bench.catalogue import CASES, SIZES, catalogue_workload
from kubesched.bench.catalogue_events import EVENT_CASES, STARVATION_VICTIMS, THRESHOLDS
from kubesched.bench.churn import churn_object, run_churn
from kubesched.bench.templates import HOSTNAME
from kubesched.bench.templates_more import DAEMONSET_NODE
from kubesched.bench.workloads import Churn, Workload
from kubesched.model import Node, Pod

NAMES = [entry[0] for entry in EVENT_CASES]


def _pods(workload: Workload) -> dict[str, list[Pod]]:
    """Pods of each group, keyed `initial`, `unwaited`, `measured`."""
    groups = {
        "initial": workload.initial,
        "unwaited": workload.unwaited,
        "measured": (workload.measured,),
    }
    return {
        key: [Pod.from_json(body) for group in value for _path, body in group.pods("bench")]
        for key, value in groups.items()
    }


def test_every_case_is_registered_with_upstreams_threshold() -> None:
    assert set(NAMES) <= set(CASES)
    assert set(THRESHOLDS) == set(NAMES) - {"StarvationIndependent", "StarvationPodGroup"}
    assert THRESHOLDS["SchedulingWhileGated"] == ("1Node_10000GatedPods", 910)
    assert THRESHOLDS["PreemptionAsync"] == ("5000Nodes", 570)


@pytest.mark.parametrize(("name", "size"), list(itertools.product(NAMES, SIZES)))
def test_every_node_and_pod_parses_with_the_scheduler_name(name: str, size: str) -> None:
    workload = catalogue_workload(name, size)
    nodes = [Node.from_json(workload.node(i)) for i in range(min(workload.nodes, 20))]
    assert all(node.labels[HOSTNAME] == node.name for node in nodes)
    for group in (*workload.initial, *workload.unwaited, workload.measured):
        assert group.namespace in workload.all_namespaces()
        _path, body = next(group.pods("bench"))
        assert body["spec"]["schedulerName"] == "bench"
        Pod.from_json(body)


def test_while_gated_runs_on_one_node_with_gated_pods_and_background_deletions() -> None:
    tiny = catalogue_workload("SchedulingWhileGated", "5")
    assert (tiny.nodes, tiny.initial_pods, tiny.pods) == (1, 10, 10)
    assert Node.from_json(tiny.node(0)).name == DAEMONSET_NODE
    pods = _pods(tiny)
    assert len(pods["unwaited"]) == 10
    assert all(pod.scheduling_gates == ("test.k8s.io/hold",) for pod in pods["unwaited"])
    assert not any(pod.scheduling_gates for pod in pods["initial"] + pods["measured"])
    assert tiny.churn == Churn("delete", (), 1 / 50, "namespace-3")
    assert {g.namespace for g in tiny.initial} == {"namespace-3"}
    assert tiny.measured.namespace == "namespace-5"
    big = catalogue_workload("SchedulingWhileGated", "5000")
    assert (big.nodes, big.initial_pods, big.pods) == (1, 20000, 20000)
    assert big.unwaited[0].count == 10000


def test_deleted_pods_with_finalizers_are_deleted_at_100_a_second() -> None:
    workload = catalogue_workload("SchedulingDeletedPodsWithFinalizers", "5000")
    assert (workload.nodes, workload.pods) == (5000, 5000)
    (finalizers,) = workload.unwaited
    assert (finalizers.count, finalizers.namespace) == (5000, "namespace-1")
    _path, body = next(finalizers.pods("bench"))
    assert body["metadata"]["finalizers"] == ["test.k8s.io/finalizer"]
    assert workload.churn == Churn("delete", (), 1 / 100, "namespace-1")
    assert workload.measured.namespace == "namespace-3"


def test_extended_resource_pod_i_fits_only_node_i() -> None:
    workload = catalogue_workload("SchedulingWithExtendedResource", "5")
    assert workload.nodes == 11
    nodes = [Node.from_json(workload.node(i)) for i in range(workload.nodes)]
    assert not nodes[0].allocatable.scalar
    pods = _pods(workload)["measured"]
    assert len(pods) == 10
    for index, pod in enumerate(pods):
        assert pod.namespace == "test"
        (wanted,) = pod.requests.scalar
        holders = [node.name for node in nodes if node.allocatable.scalar.get(wanted)]
        assert holders == [f"scheduler-perf-extended-resource-{index}"]
    assert catalogue_workload("SchedulingWithExtendedResource", "5000").nodes == 5000


def test_gated_affinity_pods_select_every_measured_pod() -> None:
    workload = catalogue_workload("SchedulingGatedPodsWithPodAffinityImpactForThroughput", "5000")
    assert (workload.nodes, workload.pods, workload.unwaited[0].count) == (1, 20000, 10000)
    pods = _pods(catalogue_workload("SchedulingGatedPodsWithPodAffinityImpactForThroughput", "5"))
    gated, measured = pods["unwaited"][0], pods["measured"][0]
    assert gated.scheduling_gates == ("scheduling-gate-1",)
    assert gated.affinity is not None
    assert gated.affinity.pod_affinity is not None
    (term,) = gated.affinity.pod_affinity.required
    assert term.topology_key == HOSTNAME
    assert term.label_selector is not None
    assert term.label_selector["matchLabels"].items() <= measured.labels.items()
    assert gated.labels == measured.labels


def test_preemption_async_churns_preemptors_of_priority_9999999() -> None:
    workload = catalogue_workload("PreemptionAsync", "5000")
    assert (workload.nodes, workload.initial_pods, workload.pods) == (5000, 20000, 5000)
    assert not workload.ceiling
    ((klass, value),) = workload.priority_classes
    assert value == 9999999
    churn = workload.churn
    assert churn is not None
    assert (churn.mode, churn.interval, churn.namespace) == ("create", 0.2, "namespace-2")
    (template,) = churn.templates
    path, body = churn_object(template, 0, churn, "bench")
    assert path == "/api/v1/namespaces/namespace-2/pods"
    assert body["spec"]["priorityClassName"] == klass
    preemptor = Pod.from_json(body)
    assert preemptor.requests.milli_cpu == 3970
    assert body["spec"]["terminationGracePeriodSeconds"] == 0


class _FakeClient:
    """The two calls a `delete` churn makes: list a namespace's pods, delete one."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.deleted: list[str] = []

    async def get(self, path: str, *, timeout: float) -> dict[str, Any]:
        assert path == "/api/v1/namespaces/namespace-3/pods"
        return {"items": [{"metadata": {"name": name}} for name in self.names]}

    async def delete(self, path: str, *, timeout: float) -> dict[str, Any]:
        self.deleted.append(path.rsplit("/", 1)[-1])
        return {}


def test_delete_churn_deletes_each_listed_pod_once_then_ends() -> None:
    client = _FakeClient(["a", "b", "c"])
    churn = Churn("delete", (), 0.001, "namespace-3")
    asyncio.run(run_churn(client, churn, "bench"))  # type: ignore[arg-type]
    assert client.deleted == ["a", "b", "c"]


def test_starvation_cloggers_fit_nowhere_and_churn_wakes_them() -> None:
    workload = catalogue_workload("StarvationIndependent", "5")
    assert (workload.nodes, workload.pods, workload.unwaited[0].count) == (10, 50, 100)
    assert workload.attempted_barrier
    assert workload.measured.namespace == STARVATION_VICTIMS
    assert "starvation-victims" in workload.note
    churn = workload.churn
    assert churn is not None
    assert (churn.mode, churn.number, churn.interval) == ("recreate", 600, 1.0)
    _path, body = churn_object(churn.templates[0], 7, churn, "bench")
    churn_pod = Pod.from_json(body)
    clogger = _pods(workload)["unwaited"][0]
    assert clogger.affinity is not None
    assert clogger.affinity.pod_affinity is not None
    assert clogger.affinity.pod_anti_affinity is not None
    (anti,) = clogger.affinity.pod_anti_affinity.required
    target = {"key": "service", "operator": "In", "values": ["target"]}
    assert anti.label_selector == {"matchExpressions": [target]}
    assert churn_pod.labels == {"service": "target"}
    classes = dict(workload.priority_classes)
    assert classes[body["spec"]["priorityClassName"]] == 10000
    assert "priorityClassName" not in next(workload.measured.pods("bench"))[1]["spec"]
    big = catalogue_workload("StarvationIndependent", "5000")
    assert (big.nodes, big.unwaited[0].count, big.pods) == (10000, 10000, 500)


def test_starvation_pod_group_puts_every_clogger_in_one_gang_of_their_priority() -> None:
    alone = catalogue_workload("StarvationIndependent", "500")
    workload = catalogue_workload("StarvationPodGroup", "500")
    assert (workload.nodes, workload.unwaited[0].count, workload.pods) == (10000, 10000, 500)
    assert (workload.churn, workload.measured.namespace) == (alone.churn, STARVATION_VICTIMS)
    assert workload.attempted_barrier
    assert workload.feature_gates == ("GenericWorkload",)
    ((path, group),) = workload.objects
    assert path == "/apis/scheduling.k8s.io/v1beta1/namespaces/starvation-0/podgroups"
    assert group["metadata"] == {"name": "podgroup-0", "namespace": "starvation-0"}
    assert group["spec"] == {
        "schedulingPolicy": {"gang": {"minCount": 10000}},
        "priorityClassName": "bench-priority-1000",
    }
    tiny = catalogue_workload("StarvationPodGroup", "5")
    cloggers = _pods(tiny)["unwaited"]
    assert len(cloggers) == 100
    assert {c.pod_group_name for c in cloggers} == {"podgroup-0"}
    assert (
        cloggers[0].affinity
        == _pods(catalogue_workload("StarvationIndependent", "5"))["unwaited"][0].affinity
    )
    (_path, body) = next(tiny.unwaited[0].pods("bench"))
    assert body["spec"]["priorityClassName"] == group["spec"]["priorityClassName"]
    assert "SchedulerError" in tiny.note
    assert tiny.objects[0][1]["spec"]["schedulingPolicy"] == {"gang": {"minCount": 100}}


def test_recreate_churn_makes_number_objects_of_each_template_a_tick() -> None:
    churn = Churn("recreate", ("pod:starvation",), 0.001, "starvation-0", number=3)
    client = _RecordingClient(until=6)

    async def two_ticks() -> None:
        task = asyncio.create_task(run_churn(client, churn, "bench"))  # type: ignore[arg-type]
        await client.enough.wait()
        task.cancel()

    asyncio.run(two_ticks())
    assert client.created[:6] == [f"churn-starvation-{i}" for i in range(6)]
    assert client.deleted[:3] == [f"churn-starvation-{i}" for i in range(3)]


class _RecordingClient:
    """Records the churn's creations and deletions; `enough` is set after `until`
    creations."""

    def __init__(self, until: int) -> None:
        self.created: list[str] = []
        self.deleted: list[str] = []
        self.until = until
        self.enough = asyncio.Event()

    async def post(self, path: str, body: dict[str, Any], *, timeout: float) -> dict[str, Any]:
        self.created.append(body["metadata"]["name"])
        if len(self.created) >= self.until:
            self.enough.set()
        return body

    async def delete(
        self, path: str, *, body: dict[str, Any] | None = None, timeout: float
    ) -> dict[str, Any]:
        self.deleted.append(path.rsplit("/", 1)[-1])
        return {}


def test_a_pod_is_attempted_once_bound_or_reported_unschedulable_or_gated() -> None:
    def status(reason: str, value: str = "False") -> dict[str, Any]:
        condition = {"type": "PodScheduled", "status": value, "reason": reason}
        return {"spec": {}, "status": {"conditions": [condition]}}

    assert attempted({"spec": {"nodeName": "n1"}})
    assert attempted(status("Unschedulable"))
    assert attempted(status("SchedulingGated"))
    assert not attempted({"spec": {}, "status": {}})
    assert not attempted(status("SchedulerError"))
    assert not attempted(status("Unschedulable", "True"))
