"""Evicting for a pod group (`Preemptions.start_group`, upstream `actuatePodGroupPreemption`)
against an in-memory API: the DisruptionTarget condition and `Preempted` event name the
group, its UID is held while evicting (DefaultPreemption's PreEnqueue holds its members),
and the held members are activated at the end."""

from __future__ import annotations

import asyncio
from typing import Any

from kubesched.apis.resources import SCHEDULING_PODGROUPS
from kubesched.framework import Code, WaitingPods
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, SchedulingPodGroup
from kubesched.plugins.default_preemption.plugin import WAITING_GROUP, DefaultPreemption
from kubesched.queue import Nominator
from kubesched.scheduler.event_recorder import EventRecorder
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.scheduler.preemption import Preemptions
from kubesched.testing import FakeHandle, make_pod


class Api:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, Any]] = []

    async def patch(self, path: str, body: Any, **_: Any) -> dict[str, Any]:
        self.calls.append(("PATCH", path, body))
        return {}

    async def delete(self, path: str, *, body: Any = None, **_: Any) -> dict[str, Any]:
        self.calls.append(("DELETE", path, body))
        return {}

    async def post(self, path: str, body: Any, **_: Any) -> dict[str, Any]:
        self.calls.append(("POST", path, body))
        return body if isinstance(body, dict) else {}


def _group() -> SchedulingPodGroup:
    body = {
        "metadata": {"namespace": "ns", "name": "pg", "uid": "pg-uid"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, "priority": 100},
    }
    return SchedulingPodGroup.of(ApiObject.from_json(body))


async def test_a_groups_victims_get_the_groups_texts_and_its_members_wait_for_a_deletion() -> None:
    api = Api()
    recorder = EventRecorder(api)  # type: ignore[arg-type]
    activated: list[str] = []

    def activate_held(uid: str, *, gated_by: str, force: bool = False) -> None:
        del gated_by, force
        activated.append(uid)

    metrics = SchedulerMetrics()
    preemptions = Preemptions(
        api=api,  # type: ignore[arg-type]
        recorder=recorder,
        waiting_pods=WaitingPods(),
        nominator=Nominator(),
        activate_held=activate_held,
        metrics=metrics,
    )
    members = [
        make_pod().name(f"w{i}").namespace("ns").uid(f"w{i}").scheduler("gang").model()
        for i in range(2)
    ]
    victim = make_pod().name("v").namespace("ns").uid("v").node("n0").model()
    preemptions.start_group(profile="gang", group=_group(), members=members, victims=[victim])
    assert preemptions.is_preempting("pg-uid")
    await preemptions.wait_idle()
    assert not preemptions.is_preempting("pg-uid")
    # As upstream's executor: the victim's deletion event moves the group, not the end of
    # the evictions (only a failed eviction, or one done in memory, activates it).
    assert activated == []
    patch = next(body for method, _, body in api.calls if method == "PATCH")
    condition = patch["status"]["conditions"][0]
    assert condition["message"] == "gang: preempting to accommodate a higher priority podgroup"
    assert [method for method, _, _ in api.calls] == ["PATCH", "DELETE"]
    await recorder.drain(timeout=1)
    events = [body for method, path, body in api.calls if path.endswith("/events")]
    assert [e["note"] for e in events] == ["Preempted by podgroup pg-uid on node cluster"]
    assert events[0]["related"]["kind"] == "PodGroup"
    # a group's victims are not a pod's: upstream observes another histogram
    assert metrics.registry.get_sample_value("scheduler_preemption_victims_count") == 0


def test_pre_enqueue_holds_a_member_while_its_group_preempts() -> None:
    handle = FakeHandle(listers=ClusterListers([SCHEDULING_PODGROUPS]))
    handle.listers.add(SCHEDULING_PODGROUPS, _group().obj)
    plugin = DefaultPreemption(args={}, handle=handle)
    member = make_pod().name("w0").namespace("ns").uid("w0").pod_group("pg").model()
    assert plugin.pre_enqueue(member) is None
    handle.preempting.add("pg-uid")
    status = plugin.pre_enqueue(member)
    assert status is not None
    assert (status.code, status.message) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, WAITING_GROUP)
    handle.preempting.add("w0")  # a member never preempts on its own with the gate on
    handle.preempting.discard("pg-uid")
    assert plugin.pre_enqueue(member) is None


class SlowApi(Api):
    """Each DELETE waits until its pod is released; the pods the cache still holds are
    `present` (a deletion event is handled before the DELETE call returns)."""

    def __init__(self, present: dict[str, Any]) -> None:
        super().__init__()
        self.present = present
        self.released: dict[str, asyncio.Event] = {}

    def release(self, *names: str) -> None:
        for name in names:
            self.released.setdefault(name, asyncio.Event()).set()

    def deleted(self) -> list[str]:
        return [path.rsplit("/", 1)[-1] for method, path, _ in self.calls if method == "DELETE"]

    async def delete(self, path: str, *, body: Any = None, **_: Any) -> dict[str, Any]:
        self.calls.append(("DELETE", path, body))
        name = path.rsplit("/", 1)[-1]
        self.present.pop(name, None)
        await self.released.setdefault(name, asyncio.Event()).wait()
        return {}


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def test_a_group_is_let_in_once_its_last_victim_is_gone_before_the_run_returns() -> None:
    """Upstream `lastVictimsPendingPreemption`: every victim but the last is evicted first;
    once the last one is gone from the cache, PreEnqueue no longer holds the group, so the
    last deletion event (which may come before the DELETE call returns) moves it. Without
    this, a group whose victims vanished at once (grace period 0) stayed held forever."""
    victims = [
        make_pod().name(f"v{i}").namespace("ns").uid(f"v{i}").node("n0").model() for i in range(3)
    ]
    present: dict[str, Any] = {victim.uid: victim for victim in victims}
    api = SlowApi(present)
    preemptions = Preemptions(
        api=api,  # type: ignore[arg-type]
        recorder=EventRecorder(api),  # type: ignore[arg-type]
        waiting_pods=WaitingPods(),
        nominator=Nominator(),
        pod_of=present.get,
    )
    member = make_pod().name("w0").namespace("ns").uid("w0").model()
    preemptions.start_group(profile="gang", group=_group(), members=[member], victims=victims)
    await _settle()
    assert api.deleted() == ["v0", "v1"]  # the last waits for the others
    assert preemptions.is_preempting("pg-uid")
    api.release("v0", "v1")
    await _settle()
    assert api.deleted() == ["v0", "v1", "v2"]
    assert "v2" not in present
    assert not preemptions.is_preempting("pg-uid")  # its DELETE has not returned yet
    api.release("v2")
    await preemptions.wait_idle()
    assert not preemptions.is_preempting("pg-uid")


async def test_without_the_cache_a_preemptor_is_held_until_its_run_ends() -> None:
    api = SlowApi({})
    preemptions = Preemptions(
        api=api,  # type: ignore[arg-type]
        recorder=EventRecorder(api),  # type: ignore[arg-type]
        waiting_pods=WaitingPods(),
        nominator=Nominator(),
    )
    victim = make_pod().name("v0").namespace("ns").uid("v0").node("n0").model()
    preemptions.start_group(profile="gang", group=_group(), members=[], victims=[victim])
    await _settle()
    assert api.deleted() == ["v0"]
    assert preemptions.is_preempting("pg-uid")
    api.release("v0")
    await preemptions.wait_idle()
    assert not preemptions.is_preempting("pg-uid")


class CountingApi(Api):
    """Deletions that take a while, counting how many are in flight at once."""

    def __init__(self) -> None:
        super().__init__()
        self.in_flight = self.most_in_flight = 0

    async def delete(self, path: str, *, body: Any = None, **kwargs: Any) -> dict[str, Any]:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        await asyncio.sleep(0.001)
        self.in_flight -= 1
        return await super().delete(path, body=body, **kwargs)


async def test_a_hundred_victims_are_evicted_sixteen_at_a_time() -> None:
    api = CountingApi()
    preemptions = Preemptions(
        api=api,  # type: ignore[arg-type]
        recorder=EventRecorder(api),  # type: ignore[arg-type]
        waiting_pods=WaitingPods(),
        nominator=Nominator(),
    )
    members = [make_pod().name("w").namespace("ns").uid("w").scheduler("gang").model()]
    victims = [
        make_pod().name(f"v{i}").namespace("ns").uid(f"v{i}").node(f"n{i}").model()
        for i in range(100)
    ]
    preemptions.start_group(profile="gang", group=_group(), members=members, victims=victims)
    await preemptions.wait_idle()
    deleted = {path for method, path, _ in api.calls if method == "DELETE"}
    assert len(deleted) == 100
    assert api.most_in_flight == 16  # upstream's parallelism
