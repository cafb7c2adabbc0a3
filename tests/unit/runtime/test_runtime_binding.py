from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubesched.framework import SUCCESS, Code, CycleState, Status
from kubesched.framework.waiting import go_duration
from kubesched.plugins import DefaultBinder
from kubesched.runtime import Framework
from kubesched.runtime.framework import PluginLists
from kubesched.testing import FakeHandle, make_pod
from tests.unit.runtime.fw_fakes import FakeReserve

POD = make_pod().name("p").uid("uid-p").model()


def framework(handle: FakeHandle | None = None, **lists: Any) -> Framework:
    return Framework(
        profile_name="p",
        plugins=PluginLists(**lists),
        score_weights={},
        percentage_of_nodes_to_score=None,
        handle=handle or FakeHandle(),
    )


class Permit:
    def __init__(self, name: str, status: Status | None, timeout: float = 0.0) -> None:
        self.name = name
        self.status = status
        self.timeout = timeout

    def permit(self, *_: Any) -> tuple[Status | None, float]:
        return self.status, self.timeout


class Binder:
    def __init__(self, name: str, result: Status | Exception | None, log: list[str]) -> None:
        self.name = name
        self.result = result
        self.log = log

    async def bind(self, _state: Any, pod: Any, node: str) -> Status | None:
        self.log.append(f"{self.name} {node}")
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def test_reserve_stops_at_failure_and_unreserve_runs_in_reverse() -> None:
    log: list[str] = []
    plugins = [
        FakeReserve("A", log),
        FakeReserve("B", log, result=Status(Code.UNSCHEDULABLE, "full")),
        FakeReserve("C", log),
    ]
    fw = framework(reserve=plugins)
    status = fw.run_reserve(CycleState(), POD, "n1")
    assert (status.code, status.plugin) == (Code.UNSCHEDULABLE, "B")
    fw.run_unreserve(CycleState(), POD, "n1")
    assert log == [
        "reserve A n1",
        "reserve B n1",
        "unreserve C n1",
        "unreserve B n1",
        "unreserve A n1",
    ]


def test_unreserve_survives_a_raising_plugin() -> None:
    class Bad(FakeReserve):
        def unreserve(self, *_: Any) -> None:
            raise RuntimeError("boom")

    log: list[str] = []
    fw = framework(reserve=[FakeReserve("A", log), Bad("B", log)])
    fw.run_unreserve(CycleState(), POD, "n1")
    assert log == ["unreserve A n1"]


@pytest.mark.parametrize(
    ("plugins", "code", "plugin"),
    [
        pytest.param([Permit("A", None)], Code.SUCCESS, "", id="allow"),
        pytest.param(
            [Permit("A", Status(Code.WAIT), 5), Permit("B", Status(Code.UNSCHEDULABLE, "no"))],
            Code.UNSCHEDULABLE,
            "B",
            id="reject-wins",
        ),
        pytest.param([Permit("A", Status(Code.ERROR, "x"))], Code.ERROR, "A", id="error"),
    ],
)
def test_permit(plugins: list[Permit], code: Code, plugin: str) -> None:
    status = framework(permit=plugins).run_permit(CycleState(), POD, "n1")
    assert (status.code, status.plugin) == (code, plugin)


async def test_permit_wait_then_allow() -> None:
    handle = FakeHandle()
    fw = framework(
        handle, permit=[Permit("A", Status(Code.WAIT), 10), Permit("B", Status(Code.WAIT), 10)]
    )
    status = fw.run_permit(CycleState(), POD, "n1")
    assert status.code is Code.WAIT
    assert status.message == "one or more plugins asked to wait and no plugin rejected pod 'p'"
    waiting = handle.waiting_pods.get("uid-p")
    assert waiting is not None
    assert sorted(waiting.pending_plugins) == ["A", "B"]
    waiter = asyncio.ensure_future(fw.wait_on_permit(POD))
    waiting.allow("A")
    await asyncio.sleep(0)
    assert not waiter.done()
    waiting.allow("B")
    assert await waiter is SUCCESS
    assert handle.waiting_pods.get("uid-p") is None


async def test_permit_wait_times_out_as_a_rejection() -> None:
    fw = framework(permit=[Permit("Slow", Status(Code.WAIT), 0.01)])
    assert fw.run_permit(CycleState(), POD, "n1").code is Code.WAIT
    status = await fw.wait_on_permit(POD)
    assert (status.code, status.plugin) == (Code.UNSCHEDULABLE, "Slow")
    assert status.message == "rejected due to timeout after waiting 10ms at plugin Slow"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.5, "500ms"), (10, "10s"), (90, "1m30s"), (3600, "1h0m0s"), (1.5, "1.5s")],
)
def test_go_duration(seconds: float, text: str) -> None:
    assert go_duration(seconds) == text


async def test_bind_first_non_skip_wins() -> None:
    log: list[str] = []
    fw = framework(
        bind=[
            Binder("Skipper", Status(Code.SKIP), log),
            Binder("Real", None, log),
            Binder("Never", None, log),
        ]
    )
    assert await fw.run_bind(CycleState(), POD, "n1") is SUCCESS
    assert log == ["Skipper n1", "Real n1"]


async def test_bind_errors_and_all_skip() -> None:
    log: list[str] = []
    error = RuntimeError("409 Conflict")
    status = await framework(bind=[Binder("B", error, log)]).run_bind(CycleState(), POD, "n1")
    assert status.code is Code.ERROR
    assert status.error is error
    assert status.message == 'plugin "B" raised RuntimeError at Bind: 409 Conflict'
    status = await framework(bind=[Binder("S", Status(Code.SKIP), log)]).run_bind(
        CycleState(), POD, "n1"
    )
    assert status.code is Code.SKIP


async def test_pre_bind_accepts_sync_and_async_plugins() -> None:
    class SyncPre:
        name = "SyncPre"

        def pre_bind(self, *_: Any) -> None:
            return None

    class AsyncPre:
        name = "AsyncPre"

        async def pre_bind(self, *_: Any) -> Status:
            return Status(Code.UNSCHEDULABLE, "volume not ready")

    status = await framework(pre_bind=[SyncPre(), AsyncPre()]).run_pre_bind(CycleState(), POD, "n1")
    assert (status.code, status.plugin, status.message) == (
        Code.UNSCHEDULABLE,
        "AsyncPre",
        "volume not ready",
    )


def test_post_bind_errors_are_swallowed() -> None:
    class Bad:
        name = "Bad"

        def post_bind(self, *_: Any) -> None:
            raise RuntimeError("x")

    framework(post_bind=[Bad()]).run_post_bind(CycleState(), POD, "n1")


async def test_default_binder_binds_through_the_handle() -> None:
    handle = FakeHandle()
    fw = framework(handle, bind=[DefaultBinder(args={}, handle=handle)])
    assert await fw.run_bind(CycleState(), POD, "n1") is SUCCESS
    assert handle.binds == [("default/p", "n1")]
