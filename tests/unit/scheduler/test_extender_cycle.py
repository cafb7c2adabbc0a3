"""A pod's cycle with extenders, over a real Framework, cache and queue, a fake API and an
extender on 127.0.0.1: filter, prioritize (weighted, scaled to MaxNodeScore), bind,
`ignorable`, `managedResources`, `nodeCacheCapable`, and the FailedScheduling texts."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from kubesched.apis.extenders import EXTENDER, Extender, ExtenderManagedResource
from kubesched.kube.extender_http import ExtenderClient
from kubesched.model import Pod
from kubesched.scheduler.extender_cycle import Extenders
from kubesched.scheduler.extenders import HttpExtender
from kubesched.scheduler.schedule_one import Scheduler
from kubesched.testing import make_node, make_pod
from tests.unit.api_fakes import settle
from tests.unit.scheduler.extender_fake import FakeExtender, running
from tests.unit.scheduler.test_scheduler_loop import PROFILE, Harness, nodes, pod


class ExtenderHarness(Harness):
    """The loop's harness with the scheduler rebuilt around `extenders`."""

    def __init__(self, extenders: Sequence[Extender], count: int = 3) -> None:
        super().__init__(nodes(count))
        built = [HttpExtender(e, ExtenderClient(e)) for e in extenders]
        self.extenders = Extenders(built, self.api)
        self.fw.consult_extenders(EXTENDER)
        self.scheduler = Scheduler(
            frameworks={PROFILE: self.fw},
            cache=self.cache,
            snapshot=self.snapshot,
            queue=self.queue,
            api=self.api,
            record_event=lambda **kw: self.events.append(kw),
            metrics=self.metrics,
            lookup_pod=self.store.get,
            extenders=self.extenders,
        )

    def add(self, pod: Pod) -> Pod:
        self.api.lists = [[{"kind": "Pod", "metadata": {"name": pod.name, "uid": pod.uid}}]]
        return super().add(pod)

    async def cycle(self) -> None:
        qpi = await self.queue.pop()
        assert qpi is not None
        tasks = await self.scheduler._schedule_with_extenders(
            qpi, self.queue.scheduling_cycle, self.extenders
        )
        for task in tasks:
            await self.scheduler.binder.submit(task)
        assert await self.scheduler.binder.wait_idle(1)
        await settle()

    def bound_to(self) -> list[str]:
        return [call.body["target"]["name"] for call in self.bindings() if call.body]

    def failure(self) -> str:
        (event,) = [e for e in self.events if e["reason"] == "FailedScheduling"]
        return str(event["note"])


@asynccontextmanager
async def harness(
    fake: FakeExtender, *, count: int = 3, **settings: object
) -> AsyncIterator[ExtenderHarness]:
    async with running(fake) as url:
        extender = Extender(url_prefix=url, **settings)  # type: ignore[arg-type]
        h = ExtenderHarness([extender], count)
        try:
            yield h
        finally:
            await h.extenders.close()


async def test_the_filter_verb_removes_nodes_and_the_pod_lands_on_the_rest() -> None:
    fake = FakeExtender(failed={"n1": "no gpu"}, unresolvable={"n2": "wrong zone"})
    async with harness(fake, filter_verb="filter", node_cache_capable=True) as h:
        h.add(pod())
        await h.cycle()
        assert h.bound_to() == ["n3"]
    (body,) = fake.bodies("filter")
    assert body["NodeNames"] == ["n1", "n2", "n3"]
    assert body["Nodes"] is None
    assert body["Pod"] == {"metadata": {"name": "p", "uid": body["Pod"]["metadata"]["uid"]}}


async def test_every_node_refused_reads_as_kube_schedulers_message() -> None:
    fake = FakeExtender(failed={"n1": "no gpu", "n2": "no gpu"}, unresolvable={"n3": "zone"})
    async with harness(fake, filter_verb="filter", node_cache_capable=True) as h:
        p = h.add(pod())
        await h.cycle()
        assert h.failure() == (
            "0/3 nodes are available: 1 zone, 2 no gpu. preemption: 0/3 nodes are available: "
            "1 Preemption is not helpful for scheduling, 2 No preemption victims found for "
            "incoming pod."
        )
        qpi = next(q for qs in h.queue.pending_pods().values() for q in qs if q.uid == p.uid)
        assert qpi.unschedulable_plugins == {EXTENDER}


async def test_nodes_are_sent_whole_without_a_node_cache() -> None:
    fake = FakeExtender(failed={"n2": "busy"})
    async with harness(fake, filter_verb="filter") as h:
        h.add(pod())
        await h.cycle()
        assert h.bound_to()[0] in {"n1", "n3"}
    (body,) = fake.bodies("filter")
    assert body["NodeNames"] is None
    first = body["Nodes"]["items"][0]
    assert first["metadata"]["name"] == "n1"
    assert first["status"]["allocatable"]["cpu"] == "4000m"


async def test_prioritize_scores_are_weighted_and_scaled_into_the_totals() -> None:
    fake = FakeExtender(scores={"n2": 10, "n3": 5})
    settings: dict[str, Any] = {
        "prioritize_verb": "prioritize",
        "weight": 5,
        "node_cache_capable": True,
    }
    async with harness(fake, **settings) as h:
        for name in ("a", "b", "c"):
            h.add(pod(name))
            await h.cycle()
        # 10 * 5 * (100 / 10) = 500 outweighs every plugin's score: all go to n2.
        assert h.bound_to() == ["n2", "n2", "n2"]


async def test_a_failing_extender_fails_the_pod_with_its_error() -> None:
    fake = FakeExtender(status=500)
    async with harness(fake, filter_verb="filter") as h:
        h.add(pod())
        await h.cycle()
        assert h.bindings() == []
        url = h.extenders.all[0].client.url("filter")
        assert h.failure() == f"failed filter with extender at URL {url}, code 500"
        assert h.where(h.store["ns/p"]) == "backoff"


async def test_an_ignorable_failing_extender_is_skipped() -> None:
    fake = FakeExtender(status=500)
    settings: dict[str, Any] = {
        "filter_verb": "filter",
        "prioritize_verb": "prioritize",
        "weight": 1,
    }
    async with harness(fake, ignorable=True, **settings) as h:
        h.add(pod())
        await h.cycle()
        assert len(h.bound_to()) == 1


async def test_an_extender_managing_resources_sees_only_pods_requesting_them() -> None:
    fake = FakeExtender()
    managed = (ExtenderManagedResource("example.com/gpu"),)
    async with harness(fake, filter_verb="filter", managed_resources=managed) as h:
        h.cache.add_node(make_node().name("g1").capacity_named({"example.com/gpu": "2"}).model())
        h.add(pod("plain"))
        await h.cycle()
        assert fake.requests == []
        gpu = make_pod().name("gpu").namespace("ns").scheduler(PROFILE)
        h.add(gpu.req_named({"cpu": "1", "example.com/gpu": "1"}).model())
        await h.cycle()
        assert len(fake.bodies("filter")) == 1
        assert h.bound_to()[-1] == "g1"


async def test_a_binding_extender_binds_instead_of_the_plugins() -> None:
    fake = FakeExtender()
    async with harness(fake, bind_verb="bind") as h:
        p = h.add(pod())
        await h.cycle()
        assert h.bindings() == []  # no pods/binding POST from kubesched
        (body,) = fake.bodies("bind")
        assert body == {"PodName": "p", "PodNamespace": "ns", "PodUID": p.uid, "Node": body["Node"]}
        assert any(e["reason"] == "Scheduled" for e in h.events)


async def test_a_bind_error_fails_the_binding() -> None:
    fake = FakeExtender(bind_error="node is full")
    async with harness(fake, bind_verb="bind") as h:
        h.add(pod())
        await h.cycle()
        assert h.failure().endswith("node is full")


def _fill_with_victims(h: ExtenderHarness) -> None:
    """A low-priority pod filling each node's cpu (n1..n3), known to the API as well."""
    for index in (1, 2, 3):
        victim = make_pod().name(f"v{index}").namespace("ns").uid(f"v{index}").node(f"n{index}")
        h.cache.add_pod(victim.req(cpu="4").model())


def _preemptor() -> Pod:
    builder = make_pod().name("p").namespace("ns").scheduler(PROFILE).priority(100)
    return builder.req(cpu="2").model()


async def test_the_preempt_verb_narrows_the_preemption_candidates() -> None:
    fake = FakeExtender(preempt_on={"n2"})
    settings: dict[str, Any] = {"preempt_verb": "preempt", "node_cache_capable": True}
    async with harness(fake, **settings) as h:
        _fill_with_victims(h)
        h.add(_preemptor())
        await h.cycle()
        assert h.failure().endswith(
            "preemption: found a potential placement for pod on node n2, preempting 1 victims"
        )
    (body,) = fake.bodies("preempt")
    assert body["NodeNameToMetaVictims"] == {
        f"n{i}": {"Pods": [{"UID": f"v{i}"}], "NumPDBViolations": 0} for i in (1, 2, 3)
    }
    assert body["Pod"]["metadata"]["name"] == "p"


async def test_victims_the_snapshot_does_not_hold_fail_the_preemption() -> None:
    fake = FakeExtender(preempt_on={"n2"})
    async with harness(fake, preempt_verb="preempt", node_cache_capable=True) as h:
        _fill_with_victims(h)
        fake.preempt_on = {"n2", "gone"}
        h.add(_preemptor())
        await h.cycle()
        assert h.failure().endswith('preemption: nodeinfo not found for node name "gone"')


async def test_no_node_left_by_the_extender_means_no_preemption() -> None:
    fake = FakeExtender(preempt_on=set())
    async with harness(fake, preempt_verb="preempt") as h:
        _fill_with_victims(h)
        p = h.add(_preemptor())

        async def get(path: str, **_kwargs: object) -> dict[str, Any]:
            name = path.rsplit("/", 1)[-1]
            return {"metadata": {"name": name, "uid": p.uid if name == "p" else name}}

        h.api.get = get  # type: ignore[method-assign]
        await h.cycle()
        assert h.failure().endswith("preemption: no candidate node for preemption")
    (body,) = fake.bodies("preempt")
    assert body["NodeNameToMetaVictims"] is None
    sent = body["NodeNameToVictims"]
    assert {node: [v["metadata"]["name"] for v in sent[node]["Pods"]] for node in sent} == {
        "n1": ["v1"],
        "n2": ["v2"],
        "n3": ["v3"],
    }


async def test_a_nominated_node_the_extender_refuses_sends_the_pod_elsewhere() -> None:
    fake = FakeExtender(failed={"n1": "taken"})
    async with harness(fake, filter_verb="filter", node_cache_capable=True) as h:
        builder = make_pod().name("p").namespace("ns").scheduler(PROFILE).req(cpu="1")
        h.add(builder.nominated_node("n1").model())
        await h.cycle()
        assert h.bound_to()[0] in {"n2", "n3"}
    first, again = fake.bodies("filter")
    assert first["NodeNames"] == ["n1"]  # the nominated node alone, as upstream tries it
    assert sorted(again["NodeNames"]) == ["n1", "n2", "n3"]


async def test_a_node_the_extender_was_not_sent_is_an_error() -> None:
    fake = FakeExtender()

    def answer(body: dict[str, Any]) -> dict[str, Any]:
        return {"NodeNames": [*body["NodeNames"], "elsewhere"]}

    fake._filter = answer  # type: ignore[method-assign]
    async with harness(fake, filter_verb="filter", node_cache_capable=True) as h:
        h.add(pod())
        await h.cycle()
        assert h.failure() == (
            f'extender "{h.extenders.all[0].name}" claims a filtered node "elsewhere" which is '
            "not found in the input node list"
        )
