"""CapacityScheduling's `fairQueueing`: its args, each quota's dominant share, and the queue
fed by the plugin through the framework interface (A's 8 pods before B's 4, in process)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from kubesched.framework import CycleState
from kubesched.model import Pod, Resource
from kubesched.plugins import in_tree_registry
from kubesched.plugins.capacity_scheduling import ELASTIC_QUOTAS, CapacityScheduling
from kubesched.plugins.capacity_scheduling.args import CapacitySchedulingArgs
from kubesched.plugins.capacity_scheduling.dominant import dominant_share
from kubesched.plugins.helper.args import ArgsError
from kubesched.queue import SchedulingQueue
from kubesched.runtime import FitError, Framework, build_framework, schedule_pod
from kubesched.scheduler.fair_order import fair_order
from kubesched.testing import FakeHandle, make_node, make_pod

from .conftest import PROFILE, quota

INF = math.inf


@pytest.mark.parametrize(
    ("named", "guaranteed", "used", "share"),
    [
        (["cpu"], Resource(milli_cpu=4000), Resource(milli_cpu=1000), 0.25),
        (
            ["cpu", "memory"],
            Resource(milli_cpu=4000, memory=10),
            Resource(milli_cpu=1000, memory=5),
            0.5,
        ),
        (["cpu"], Resource(milli_cpu=4000), Resource(milli_cpu=6000, memory=99), 1.5),
        (["cpu", "nvidia.com/gpu"], Resource(milli_cpu=4000), Resource(milli_cpu=1000), 0.25),
        (["nvidia.com/gpu"], Resource(), Resource(scalar={"nvidia.com/gpu": 1}), INF),
        (["cpu"], Resource(), Resource(), 0.0),
        ([], Resource(), Resource(), 0.0),
        ([], Resource(), Resource(milli_cpu=1), INF),
    ],
)
def test_dominant_share(
    named: list[str], guaranteed: Resource, used: Resource, share: float
) -> None:
    assert dominant_share(named, guaranteed, used) == share


def test_args_default_off_and_written_only_when_on() -> None:
    assert CapacitySchedulingArgs.from_v1({}) == CapacitySchedulingArgs(fair_queueing=False)
    assert CapacitySchedulingArgs.default().to_v1() == {}
    on = CapacitySchedulingArgs.from_v1({"fairQueueing": True})
    assert on.fair_queueing
    assert on.to_v1() == {"fairQueueing": True}


def test_a_bad_value_names_the_fix() -> None:
    with pytest.raises(ArgsError) as info:
        CapacitySchedulingArgs.from_v1({"fairQueueing": "yes"})
    assert str(info.value) == (
        "CapacitySchedulingArgs.fairQueueing: expected true or false, got 'yes'; write "
        "fairQueueing: true to order the queue fairly across quotas, or leave it out"
    )
    with pytest.raises(ArgsError, match='unknown field "fairQueuing"'):
        CapacitySchedulingArgs.from_v1({"fairQueuing": True})


def _plugin(handle: FakeHandle, *, fair: bool) -> tuple[CapacityScheduling, Framework]:
    args = {"CapacityScheduling": {"fairQueueing": True}} if fair else {}
    profile = replace(PROFILE, plugin_config=args)
    framework = build_framework(profile=profile, registry=in_tree_registry(), handle=handle)
    (plugin,) = [p for p in framework.plugins.post_filter if p.name == "CapacityScheduling"]
    assert isinstance(plugin, CapacityScheduling)
    return plugin, framework


def _team_pod(namespace: str, index: int) -> Pod:
    name = f"{namespace}-{index}"
    builder = make_pod().name(name).uid(name).namespace(namespace).req(cpu="1")
    return builder.scheduler(PROFILE.scheduler_name).model()


TEAMS = [
    quota("team-a", min_={"cpu": "4"}, max_={"cpu": "8"}),
    quota("team-b", min_={"cpu": "4"}, max_={"cpu": "8"}),
    quota("no-min", min_={}, max_={"cpu": "8"}),
]


def test_groups_and_shares_follow_the_quota_book() -> None:
    nodes = [make_node().name("n1").capacity(cpu="8", pods="110").model()]
    handle = FakeHandle(nodes=nodes, objects=[(ELASTIC_QUOTAS, obj) for obj in TEAMS])
    off, _ = _plugin(handle, fair=False)
    assert off.fair_queueing() is None
    plugin, _ = _plugin(handle, fair=True)
    fairness = plugin.fair_queueing()
    assert fairness is not None
    assert fairness.fairness_group(_team_pod("team-a", 0)) == "team-a"
    assert fairness.fairness_group(_team_pod("elsewhere", 0)) is None
    assert (fairness.dominant_share("team-a"), fairness.dominant_share("no-min")) == (0.0, 0.0)
    for i in range(3):
        plugin.reserve(CycleState(), _team_pod("team-a", i), "n1")
    plugin.reserve(CycleState(), _team_pod("no-min", 0), "n1")
    assert fairness.dominant_share("team-a") == 0.75
    assert fairness.dominant_share("no-min") == INF
    plugin.unreserve(CycleState(), _team_pod("team-a", 0), "n1")
    assert fairness.dominant_share("team-a") == 0.5


async def _run(*, fair: bool) -> tuple[dict[str, int], int]:
    """Team a's 8 pods of 1 CPU queued before team b's 4, on 8 CPUs (quotas min 4 / max 8
    each): (bound per team, preemptions) once every pod was tried twice."""
    nodes = [make_node().name(n).capacity(cpu="4", pods="110").model() for n in ("n1", "n2")]
    handle = FakeHandle(nodes=nodes, objects=[(ELASTIC_QUOTAS, obj) for obj in TEAMS[:2]])
    _, framework = _plugin(handle, fair=fair)
    order = fair_order({PROFILE.scheduler_name: framework})
    assert (order is not None) == fair
    queue = SchedulingQueue(less=framework.queue_sort_less, fair=order)
    for pod in [
        *(_team_pod("team-a", i) for i in range(8)),
        *(_team_pod("team-b", i) for i in range(4)),
    ]:
        queue.add(pod)
    bound = {"team-a": 0, "team-b": 0}
    for _ in range(12):
        qpi = await queue.pop()
        assert qpi is not None
        try:
            result = schedule_pod(framework, CycleState(), qpi.pod, handle.list_node_infos())
        except FitError:
            queue.done(qpi.uid)
            continue
        placed = qpi.pod.on_node(result.suggested_host)
        handle.add_pod(placed)
        handle.listers.pods.on_add(placed)
        bound[qpi.pod.namespace] += 1
        queue.done(qpi.uid)
    return bound, len(handle.preempting)


async def test_fair_queueing_places_the_late_team_without_preemption() -> None:
    assert await _run(fair=True) == ({"team-a": 4, "team-b": 4}, 0)


async def test_without_it_the_first_team_borrows_and_the_late_one_preempts() -> None:
    bound, preemptions = await _run(fair=False)
    assert bound == {"team-a": 8, "team-b": 0}
    assert preemptions == 4


def test_explain_shows_the_quotas_dominant_share_when_on() -> None:
    nodes = [make_node().name("n1").capacity(cpu="8", pods="110").model()]
    handle = FakeHandle(nodes=nodes, objects=[(ELASTIC_QUOTAS, obj) for obj in TEAMS])
    for fair in (True, False):
        plugin, _ = _plugin(handle, fair=fair)
        plugin.reserve(CycleState(), _team_pod("team-a", 0), "n1")
        plugin.reserve(CycleState(), _team_pod("no-min", 0), "n1")
        found = plugin.explain_pod(_team_pod("team-a", 1), [])
        assert found is not None
        lines, data = found
        shown = [line for line in lines if "dominant share" in line]
        if not fair:
            assert (shown, "dominantShare" in data) == ([], False)
            continue
        expected = (
            "  fair queueing: the quota's dominant share is 0.25 (among pods of equal "
            "priority, the quota with the lowest is served first)"
        )
        assert shown == [expected]
        assert data["dominantShare"] == 0.25
        other = plugin.explain_pod(_team_pod("no-min", 1), [])
        assert other is not None
        assert other[1]["dominantShare"] == "+Inf"
