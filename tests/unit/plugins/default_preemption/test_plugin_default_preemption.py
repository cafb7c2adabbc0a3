"""DefaultPreemption through a real Framework (the default plugins) and the fake Handle:
which node and victims it picks, the FailedScheduling text, its PreEnqueue gate, its args,
and filtering with nominated pods (the room preemption made is held for the preemptor)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from kubesched.framework import (
    POD_DISRUPTION_BUDGETS,
    ActionType,
    ClusterEvent,
    Code,
    CycleState,
    EventResource,
    NodeInfo,
    QueueingHint,
    Status,
)
from kubesched.model import Node, Pod
from kubesched.plugins.default_preemption.args import DefaultPreemptionArgs
from kubesched.plugins.default_preemption.evaluation import Evaluation
from kubesched.plugins.default_preemption.plugin import DefaultPreemption
from kubesched.runtime import FitError, FrameworkError, schedule_pod
from kubesched.testing import (
    FakeHandle,
    build_test_framework,
    make_node,
    make_pod,
)

HIGH = 1000


def node(name: str, cpu: str = "2", **labels: str) -> Node:
    builder = make_node().name(name).capacity(cpu=cpu)
    for key, value in labels.items():
        builder = builder.label(key, value)
    return builder.model()


def running(name: str, on: str, *, cpu: str = "1", priority: int = 0, **labels: str) -> Pod:
    builder = make_pod().name(name).namespace("ns").node(on).req(cpu=cpu).priority(priority)
    for key, value in labels.items():
        builder = builder.label(key, value)
    return builder.model()


def incoming(cpu: str = "2", priority: int = HIGH, **fields: Any) -> Pod:
    builder = make_pod().name("preemptor").namespace("ns").req(cpu=cpu).priority(priority)
    if "policy" in fields:
        builder = builder.preemption_policy(fields["policy"])
    if "zone" in fields:
        builder = builder.node_selector(zone=fields["zone"])
    return builder.model()


def protect(label: str, value: str) -> dict[str, Any]:
    """A PDB allowing no disruption (as the API server reports before the controller ran)."""
    return {
        "metadata": {"namespace": "ns", "name": "pdb"},
        "spec": {"selector": {"matchLabels": {label: value}}},
    }


def fit_error(handle: FakeHandle, pod: Pod) -> FitError:
    fw = build_test_framework(handle=handle)
    with pytest.raises(FitError) as info:
        schedule_pod(fw, CycleState(), pod, handle.list_node_infos())
    return info.value


@dataclass
class Case:
    name: str
    nodes: Sequence[Node]
    pods: Sequence[Pod]
    preemptor: Pod
    node: str
    victims: tuple[str, ...]
    pdbs: Sequence[dict[str, Any]] = ()


CASES = [
    Case(
        "fewest victims",
        [node("a"), node("b")],
        [running("a1", "a"), running("a2", "a"), running("b1", "b", cpu="2")],
        incoming(),
        "b",
        ("ns/b1",),
    ),
    Case(
        "lowest priority victims",
        [node("a", "1"), node("b", "1")],
        [running("a1", "a", priority=50), running("b1", "b", priority=10)],
        incoming(cpu="1"),
        "b",
        ("ns/b1",),
    ),
    Case(
        "a PDB-protected pod is not chosen while another candidate exists",
        [node("a", "1"), node("b", "1")],
        [running("db", "a", app="db"), running("web", "b", priority=10, app="web")],
        incoming(cpu="1"),
        "b",
        ("ns/web",),
        [protect("app", "db")],
    ),
    Case(
        "the PDB is violated when no other choice exists",
        [node("a", "1")],
        [running("db", "a", app="db")],
        incoming(cpu="1"),
        "a",
        ("ns/db",),
        [protect("app", "db")],
    ),
    Case(
        "reprieve: only what makes room is evicted, least important first",
        [node("a", "3")],
        [
            running("p7", "a", priority=7),
            running("p3", "a", priority=3),
            running("p5", "a", priority=5),
        ],
        incoming(cpu="1"),
        "a",
        ("ns/p3",),
    ),
    Case(
        "pods of other schedulers are victims like any other",
        [node("a", "1")],
        [running("theirs", "a")],
        incoming(cpu="1"),
        "a",
        ("ns/theirs",),
    ),
    Case(
        "a node the pod cannot use at all (affinity) is never a candidate",
        [node("x", "1", zone="x"), node("y", "1", zone="y")],
        [running("cheap", "x"), running("dear", "y", priority=500)],
        incoming(cpu="1", zone="y"),
        "y",
        ("ns/dear",),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_candidate_selection(case: Case) -> None:
    pdbs = [(POD_DISRUPTION_BUDGETS, pdb) for pdb in case.pdbs]
    handle = FakeHandle(nodes=case.nodes, pods=case.pods, objects=pdbs)
    error = fit_error(handle, case.preemptor)
    assert [p.keys for p in handle.preemptions] == [("ns/preemptor", case.node, case.victims)]
    assert error.nominated_node_name == case.node
    assert not error.keep_nomination
    assert str(error).endswith(
        f" preemption: found a potential placement for pod on node {case.node},"
        f" preempting {len(case.victims)} victims"
    )


def test_preemption_policy_never_preempts_nothing() -> None:
    handle = FakeHandle(nodes=[node("a", "1")], pods=[running("low", "a")])
    error = fit_error(handle, incoming(cpu="1", policy="Never"))
    assert handle.preemptions == []
    assert error.keep_nomination
    assert str(error) == (
        "0/1 nodes are available: 1 Insufficient cpu."
        " preemption: not eligible due to preemptionPolicy=Never."
    )


def test_equal_priority_is_never_preempted() -> None:
    handle = FakeHandle(nodes=[node("a", "1")], pods=[running("peer", "a", priority=HIGH)])
    error = fit_error(handle, incoming(cpu="1"))
    assert handle.preemptions == []
    assert error.nominated_node_name == ""
    assert not error.keep_nomination  # no candidate anywhere: the nomination is cleared
    assert str(error) == (
        "0/1 nodes are available: 1 Insufficient cpu."
        " preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )


def test_no_candidate_counts_each_nodes_reason() -> None:
    handle = FakeHandle(
        nodes=[node("a", "1"), node("b", "1"), node("tiny", "500m")],
        pods=[running("peer", "a", priority=HIGH), running("vip", "b", priority=2 * HIGH)],
    )
    error = fit_error(handle, incoming(cpu="1"))
    assert str(error).endswith(
        " preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling,"
        " 2 No preemption victims found for incoming pod."
    )


def test_waiting_for_a_terminating_victim_on_the_nominated_node() -> None:
    dying = make_pod().name("dying").namespace("ns").node("a").req(cpu="1").preempted().model()
    handle = FakeHandle(nodes=[node("a", "1")], pods=[dying])
    preemptor = make_pod().name("p").namespace("ns").req(cpu="1").priority(HIGH)
    error = fit_error(handle, preemptor.nominated_node("a").model())
    assert handle.preemptions == []
    assert error.keep_nomination
    assert str(error).endswith(
        " preemption: not eligible due to a terminating pod on the nominated node."
    )


def test_pre_enqueue_holds_a_preemptor_while_its_victims_are_evicted() -> None:
    handle = FakeHandle(nodes=[node("a")])
    plugin = DefaultPreemption(args={}, handle=handle)
    pod = incoming()
    assert plugin.pre_enqueue(pod) is None
    handle.preempting.add(pod.uid)
    status = plugin.pre_enqueue(pod)
    assert status is not None
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.message == "waiting for the preemption for this pod to be finished"


def test_events_to_register_is_upstreams_with_async_preemption() -> None:
    """Upstream's EventsToRegister with SchedulerAsyncPreemption (on by default): a bound
    pod's deletion, whose hint always skips (upstream has no test table for it)."""
    plugin = DefaultPreemption(args={}, handle=FakeHandle())
    (registration,) = plugin.events_to_register()
    assert registration.event == ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE)
    assert registration.hint == plugin.is_pod_schedulable_after_assigned_pod_deletion
    victim = running("low", "a")
    for preemptor in (incoming(), make_pod().name("other").model()):
        assert registration.hint(preemptor, victim, None) is QueueingHint.QUEUE_SKIP


def test_every_post_filter_run_is_counted_as_an_attempt() -> None:
    """`scheduler_preemption_attempts_total` counts runs, with or without a candidate."""
    handle = FakeHandle(nodes=[node("a", "1")], pods=[running("low", "a")])
    runs: list[tuple[str, Code]] = []
    fw = build_test_framework(
        handle=handle, observe_post_filter=lambda plugin, code, _s: runs.append((plugin, code))
    )
    with pytest.raises(FitError):
        schedule_pod(fw, CycleState(), incoming(cpu="1"), handle.list_node_infos())
    with pytest.raises(FitError):
        schedule_pod(fw, CycleState(), incoming(cpu="8"), handle.list_node_infos())
    preemption = [code for plugin, code in runs if plugin == "DefaultPreemption"]
    assert preemption == [Code.SUCCESS, Code.UNSCHEDULABLE]
    assert len(handle.preemptions) == 1


def test_evaluate_is_a_dry_run_for_explain() -> None:
    handle = FakeHandle(nodes=[node("a", "1")], pods=[running("low", "a")])
    fw = build_test_framework(handle=handle)
    state = CycleState()
    with pytest.raises(FitError) as info:
        schedule_pod(fw, state, incoming(cpu="1"), handle.list_node_infos())
    (plugin,) = [pl for pl in fw.plugins.post_filter if pl.name == "DefaultPreemption"]
    assert isinstance(plugin, DefaultPreemption)
    handle.preemptions.clear()
    evaluation = plugin.evaluate(state, incoming(cpu="1"), info.value.diagnosis.node_to_status)
    assert isinstance(evaluation, Evaluation)
    assert evaluation.candidate is not None
    assert [pod.name for pod in evaluation.candidate.victims] == ["low"]
    assert handle.preemptions == []  # nothing was evicted


# --- args ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "percentage", "absolute"),
    [
        ({}, 10, 100),
        ({"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 5}, 0, 5),
        ({"minCandidateNodesPercentage": 100}, 100, 100),
        ({"minCandidateNodesAbsolute": 0}, 10, 0),
    ],
)
def test_args(args: dict[str, Any], percentage: int, absolute: int) -> None:
    parsed = DefaultPreemptionArgs.from_v1(args)
    assert parsed.min_candidate_nodes_percentage == percentage
    assert parsed.min_candidate_nodes_absolute == absolute


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            {"minCandidateNodesPercentage": 101},
            r"minCandidateNodesPercentage: Invalid value: 101: not in valid range \[0, 100\]",
        ),
        ({"minCandidateNodesAbsolute": -1}, "minCandidateNodesAbsolute: Invalid value: -1: not in"),
        (
            {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0},
            (
                "minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
                "minCandidateNodesAbsolute"
            ),
        ),
        ({"minCandidateNodes": 3}, 'unknown field "minCandidateNodes"'),
    ],
)
def test_bad_args_are_refused_when_the_profile_is_built(args: dict[str, Any], error: str) -> None:
    with pytest.raises(FrameworkError, match=error):
        build_test_framework(handle=FakeHandle(), plugin_config={"DefaultPreemption": args})


def test_fewer_candidates_wanted_stops_the_dry_run_early() -> None:
    nodes = [node(f"n{i}", "1") for i in range(5)]
    pods = [running(f"low{i}", f"n{i}", priority=i) for i in range(5)]
    handle = FakeHandle(nodes=nodes, pods=pods)
    fw = build_test_framework(
        handle=handle,
        plugin_config={
            "DefaultPreemption": {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 1}
        },
    )
    (plugin,) = [pl for pl in fw.plugins.post_filter if pl.name == "DefaultPreemption"]
    assert isinstance(plugin, DefaultPreemption)
    plugin._offset = lambda: 3  # the dry run starts at n3 and stops at the first candidate
    with pytest.raises(FitError):
        schedule_pod(fw, CycleState(), incoming(cpu="1"), handle.list_node_infos())
    assert [p.keys for p in handle.preemptions] == [("ns/preemptor", "n3", ("ns/low3",))]


# --- nominated pods hold their room -------------------------------------------------------


def nominated(name: str, priority: int, cpu: str = "1") -> Pod:
    return make_pod().name(name).namespace("ns").req(cpu=cpu).priority(priority).model()


@pytest.mark.parametrize(
    ("priority", "fits"),
    [(HIGH - 1, False), (HIGH, False), (HIGH + 1, True)],
    ids=["lower priority yields", "equal priority yields", "higher priority takes the room"],
)
def test_room_of_a_nominated_pod_is_held_for_it(priority: int, fits: bool) -> None:
    handle = FakeHandle(nodes=[node("held", "1")])
    handle.nominate(nominated("preemptor", HIGH), "held")
    fw = build_test_framework(handle=handle)
    pod = make_pod().name("late").namespace("ns").req(cpu="1").priority(priority).model()
    if fits:
        result = schedule_pod(fw, CycleState(), pod, handle.list_node_infos())
        assert result.suggested_host == "held"
        return
    with pytest.raises(FitError) as info:
        schedule_pod(fw, CycleState(), pod, handle.list_node_infos())
    assert str(info.value).startswith("0/1 nodes are available: 1 Insufficient cpu.")


def test_the_nominated_pod_itself_is_not_counted_twice() -> None:
    handle = FakeHandle(nodes=[node("held", "1")])
    preemptor = nominated("preemptor", HIGH)
    handle.nominate(preemptor, "held")
    fw = build_test_framework(handle=handle)
    assert schedule_pod(fw, CycleState(), preemptor, handle.list_node_infos()).suggested_host == (
        "held"
    )


class Counting:
    """A PreFilter plugin with the AddPod/RemovePod extensions: counts what it is told."""

    name = "Counting"

    def __init__(self, *, args: Any, handle: Any) -> None:
        self.added: list[str] = []
        self.removed: list[str] = []

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> None:
        return None

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status | None:
        assert pod_to_add.uid in node_info.pods  # the node copy already has it
        self.added.append(pod_to_add.name)
        return None

    def remove_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_remove: Pod, node_info: NodeInfo
    ) -> Status | None:
        assert pod_to_remove.uid not in node_info.pods
        self.removed.append(pod_to_remove.name)
        return None


def counting_framework(handle: FakeHandle) -> tuple[Any, Counting]:
    fw = build_test_framework(
        handle=handle, plugins=[Counting], enabled={"preFilter": ["Counting"]}
    )
    plugin = next(pl for pl in fw.plugins.pre_filter if pl.name == "Counting")
    assert isinstance(plugin, Counting)
    return fw, plugin


def test_prefilter_extensions_see_nominated_pods_and_preemption_victims() -> None:
    handle = FakeHandle(nodes=[node("a", "2")], pods=[running("low", "a")])
    handle.nominate(nominated("first", HIGH + 1), "a")
    fw, counting = counting_framework(handle)
    with pytest.raises(FitError):
        schedule_pod(fw, CycleState(), incoming(cpu="1"), handle.list_node_infos())
    assert "first" in counting.added  # filtering counted the nominated pod
    # The dry run removed the victim, added it back (reprieve) and removed it again: with
    # "first" (nominated, higher priority) counted there is no room for it.
    assert counting.removed == ["low", "low"]
    assert [p.keys for p in handle.preemptions] == [("ns/preemptor", "a", ("ns/low",))]


class Failing(Counting):
    name = "Failing"

    def add_pod(
        self, state: CycleState, pod_to_schedule: Pod, pod_to_add: Pod, node_info: NodeInfo
    ) -> Status | None:
        return Status(Code.UNSCHEDULABLE, "cannot count it")


def test_a_failing_extension_is_an_error_naming_the_plugin() -> None:
    handle = FakeHandle(nodes=[node("a", "2")])
    handle.nominate(nominated("first", HIGH), "a")
    fw = build_test_framework(handle=handle, plugins=[Failing], enabled={"preFilter": ["Failing"]})
    state, pod = CycleState(), incoming(cpu="1")
    assert fw.run_pre_filter(state, pod, handle.list_node_infos()).status.is_success()
    status = fw.run_filter_with_nominated_pods(state, pod, handle.list_node_infos()[0])
    assert status.code is Code.ERROR
    assert status.message == 'running AddPod on PreFilter plugin "Failing": cannot count it'
