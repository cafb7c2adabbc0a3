"""Reflector health: every error is retried, and health() tells synced, failing, stalled and
stopped apart (what /readyz, /livez and the cache-sync wait report)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from kubesched.informers import Reflector
from kubesched.kube.errors import ApiError
from tests.unit.api_fakes import HANG, FakeApi, wait_for
from tests.unit.informers.test_reflector import FAST, Obj, Recorder, decode, event, page, raw


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(api: FakeApi, handler: Recorder, clock: Clock | None = None) -> Reflector[Obj]:
    return Reflector(
        api,
        path="/api/v1/things",
        decode=decode,
        key=lambda o: o.name,
        version=lambda o: o.rv,
        handler=handler,
        settings=FAST,
        clock=clock or Clock(),
    )


async def test_any_exception_in_the_watch_is_retried_not_fatal() -> None:
    handler = Recorder()
    api = FakeApi(
        lists=[[page([], "5")]],
        watches=[
            [event("ADDED", raw("a", "6")), ValueError("Chunk too big")],
            [RuntimeError("decoder broke")],
            [event("ADDED", raw("b", "7")), HANG],
        ],
    )
    reflector = make(api, handler)
    task = asyncio.create_task(reflector.run())
    await wait_for(lambda: "b" in reflector.store)
    assert not task.done()
    assert [w["resourceVersion"] for w in api.watch_calls] == ["5", "6", "6"]
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_a_handler_that_raises_does_not_kill_the_informer() -> None:
    class Exploding(Recorder):
        def on_add(self, obj: Obj) -> None:
            if obj.name == "boom":
                raise KeyError("bug in a handler")
            super().on_add(obj)

    handler = Exploding()
    api = FakeApi(
        lists=[[page([], "5")]],
        watches=[[event("ADDED", raw("boom", "6"))], [event("ADDED", raw("ok", "7")), HANG]],
    )
    reflector = make(api, handler)
    task = asyncio.create_task(reflector.run())
    await wait_for(lambda: ("add", "ok", "7") in handler.log)
    assert not task.done()
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_failing_list_is_reported_with_the_error_and_the_fix(
    caplog: pytest.LogCaptureFixture,
) -> None:
    forbidden = ApiError.from_status(
        403, {"reason": "Forbidden", "message": 'cannot list resource "things"'}
    )
    api = FakeApi(lists=[forbidden, forbidden, [page([raw("a", "1")], "5")]], watches=[[HANG]])
    reflector = make(api, Recorder())
    caplog.set_level(logging.INFO)
    task = asyncio.create_task(reflector.run())
    await wait_for(lambda: reflector.health().error != "")
    health = reflector.health()
    assert not health.synced
    assert health.alive
    assert not health.ready
    assert "403 Forbidden" in health.describe()
    assert "not synced" in health.describe()
    await asyncio.wait_for(reflector.synced.wait(), 1)
    assert reflector.health().ready
    assert reflector.health().error == ""
    assert "grant list and watch on things" in caplog.text
    assert "kubesched doctor" in caplog.text
    assert '"list/watch recovered"' in caplog.text
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_no_progress_for_longer_than_the_timeouts_is_stalled() -> None:
    clock = Clock()
    api = FakeApi(lists=[[page([], "5")]], watches=[[HANG]])
    reflector = make(api, Recorder(), clock)
    task = asyncio.create_task(reflector.run())
    await asyncio.wait_for(reflector.synced.wait(), 1)
    assert reflector.health().ready
    clock.now += FAST.stall_after + 1
    health = reflector.health()
    assert health.stalled
    assert not health.alive
    assert not health.ready
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_a_reflector_whose_task_ended_is_dead() -> None:
    api = FakeApi(lists=[[page([], "5")]], watches=[[HANG]])
    reflector = make(api, Recorder())
    assert reflector.health().alive  # not started yet: nothing wrong
    task = asyncio.create_task(reflector.run())
    await asyncio.wait_for(reflector.synced.wait(), 1)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    health = reflector.health()
    assert health.dead
    assert not health.alive
    assert "stopped" in health.describe()
