"""Preemption and nominated pods, with the read-only Handle explain uses on a live cluster:
DefaultPreemption runs for real, its evictions are only recorded, and the FailedScheduling
text is the scheduler's (the scheduler side runs on an identical snapshot)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from kubesched.explain import ReadOnlyHandle, build_snapshot, explain_pod
from kubesched.explain.report import Explanation
from kubesched.framework import POD_DISRUPTION_BUDGETS, CycleState
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Node, Pod
from kubesched.runtime import FitError, schedule_pod
from kubesched.testing import build_test_framework, make_node, make_pod


def node(name: str) -> Node:
    return make_node().name(name).capacity(cpu="4", memory="8Gi").model()


def running(name: str, node_name: str, *, priority: int, cpu: str = "3", app: str = "") -> Pod:
    builder = make_pod().name(name).node(node_name).priority(priority).req(cpu=cpu)
    return (builder.label("app", app) if app else builder).model()


def preemptor(*, priority: int = 500, cpu: str = "2", never: bool = False) -> Pod:
    obj = make_pod().name("vip").priority(priority).req(cpu=cpu).obj()
    if never:
        obj["spec"]["preemptionPolicy"] = "Never"
    return Pod.from_json(obj)


def handle_for(
    nodes: Sequence[Node], pods: Sequence[Pod], pdbs: Sequence[dict[str, Any]] = ()
) -> ReadOnlyHandle:
    snapshot = build_snapshot(nodes, pods)
    pending = [p for p in pods if not p.node_name]
    listers = ClusterListers([POD_DISRUPTION_BUDGETS])
    for pdb in pdbs:
        listers.add(POD_DISRUPTION_BUDGETS, ApiObject.from_json(pdb))
    return ReadOnlyHandle(snapshot, nominated=pending, listers=listers)


def explain(
    nodes: Sequence[Node],
    pods: Sequence[Pod],
    pod: Pod,
    pdbs: Sequence[dict[str, Any]] = (),
) -> tuple[Explanation, ReadOnlyHandle]:
    handle = handle_for(nodes, pods, pdbs)
    fw = build_test_framework(handle=handle)  # type: ignore[arg-type]
    return explain_pod(fw, pod, handle.list_node_infos()), handle


def scheduler_message(nodes: Sequence[Node], pods: Sequence[Pod], pod: Pod) -> str:
    handle = handle_for(nodes, pods)
    fw = build_test_framework(handle=handle)  # type: ignore[arg-type]
    with pytest.raises(FitError) as raised:
        schedule_pod(fw, CycleState(), pod, handle.list_node_infos())
    return str(raised.value)


def test_preemption_names_the_node_and_the_victims_and_evicts_nothing() -> None:
    nodes = [node("n1"), node("n2")]
    pods = [running("low", "n1", priority=0), running("high", "n2", priority=1000)]
    ex, handle = explain(nodes, pods, preemptor())
    assert ex.nominated_node == "n1"
    assert [(v.pod, v.priority) for v in ex.victims] == [("default/low", 0)]
    assert ex.preemption == (
        "would evict 1 pod(s) from node n1: default/low (priority 0); the pod is nominated "
        "to n1 and scheduled there once they are gone"
    )
    assert ex.failed_scheduling == scheduler_message(nodes, pods, preemptor())
    assert ex.failed_scheduling.endswith(
        "preemption: found a potential placement for pod on node n1, preempting 1 victims"
    )
    assert [p.node_name for p in handle.preemptions] == ["n1"]  # recorded only
    n1 = handle.get_node_info("n1")
    assert n1 is not None
    assert [p.name for p in n1.pods.values()] == ["low"]


def test_a_pod_with_preemption_policy_never_preempts_nothing() -> None:
    nodes = [node("n1")]
    pods = [running("low", "n1", priority=0)]
    ex, handle = explain(nodes, pods, preemptor(never=True))
    assert ex.preemption == "would not help: not eligible due to preemptionPolicy=Never."
    assert ex.victims == ()
    assert handle.preemptions == []


def test_only_lower_priority_pods_are_victims() -> None:
    nodes = [node("n1")]
    pods = [running("peer", "n1", priority=500)]
    ex, _ = explain(nodes, pods, preemptor(priority=500))
    assert ex.victims == ()
    assert ex.preemption.startswith("would not help: 0/1 nodes are available: ")


def test_a_pdb_protected_pod_is_not_chosen_while_another_candidate_exists() -> None:
    nodes = [node("n1"), node("n2")]
    pods = [
        running("guarded", "n1", priority=0, app="guarded"),
        running("free", "n2", priority=0, app="free"),
    ]
    pdb = {
        "metadata": {"namespace": "default", "name": "guard"},
        "spec": {"selector": {"matchLabels": {"app": "guarded"}}},
        "status": {"disruptionsAllowed": 0},
    }
    for _ in range(5):  # the dry run starts at a random node: the PDB must decide
        ex, _ = explain(nodes, pods, preemptor(), pdbs=[pdb])
        assert ex.nominated_node == "n2"
        assert [v.pod for v in ex.victims] == ["default/free"]


def test_nominated_pods_of_higher_priority_hold_their_room() -> None:
    held = make_pod().name("held").priority(100).req(cpu="3").obj()
    held["status"]["nominatedNodeName"] = "n1"
    nodes = [node("n1")]
    pods = [Pod.from_json(held)]
    low = make_pod().name("low").priority(0).req(cpu="2").model()
    ex, _ = explain(nodes, pods, low)
    rejection = ex.verdicts[0].rejection
    assert rejection is not None
    assert rejection.message == "Insufficient cpu"
    assert ex.failed_scheduling == scheduler_message(nodes, pods, low)
    # A pod more important than the nominated one may take that room.
    ex, _ = explain(nodes, pods, make_pod().name("top").priority(200).req(cpu="2").model())
    assert ex.chosen == "n1"


def test_equally_ranked_candidates_are_all_named() -> None:
    """Two nodes with one priority-0 victim each rank the same (upstream picks either one);
    a node whose victim has a higher priority ranks lower."""
    nodes = [node("n1"), node("n2"), node("n3")]
    pods = [
        running("a", "n1", priority=0),
        running("b", "n2", priority=0),
        running("c", "n3", priority=100),
    ]
    ex, _ = explain(nodes, pods, preemptor())
    assert ex.preemption_choices == (("n1", ("default/a",)), ("n2", ("default/b",)))
    assert (ex.nominated_node, tuple(v.pod for v in ex.victims)) in ex.preemption_choices
