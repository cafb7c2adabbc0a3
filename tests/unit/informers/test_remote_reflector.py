"""The informer process's two halves without the process: a StreamingReflector's deltas,
framed and loaded, applied by a RemoteReflector, give the handler and the store exactly what
an in-process Reflector gives on the same API server script; a restarted child's relist
reconciles; health tells whether a child runs."""

from __future__ import annotations

import asyncio
from typing import Any

from kubesched.informers import Reflector
from kubesched.informers.deltas import HEALTH, DeltaReader, encode
from kubesched.informers.remote import DOWN_TOLERANCE_SECONDS, SILENT_AFTER_SECONDS, RemoteReflector
from kubesched.informers.stream import StreamingReflector
from kubesched.kube.errors import ConnectionFailed
from tests.unit.api_fakes import FakeApi, wait_for
from tests.unit.informers.test_reflector import (
    FAST,
    Obj,
    Recorder,
    bookmark,
    decode,
    event,
    expired,
    page,
    raw,
)


def script() -> FakeApi:
    """A list, watch events (one malformed), a broken watch, a 410 and a relist that finds
    one object gone and one changed."""
    bad = {"metadata": {"name": "bad", "resourceVersion": "7"}, "bad": True}
    return FakeApi(
        lists=[
            [page([raw("a", "1"), raw("b", "2")], "10", cont="c"), page([raw("c", "3")], "10")],
            [page([raw("a", "1"), raw("c", "30", "changed"), raw("d", "31")], "40")],
        ],
        watches=[
            [
                event("ADDED", raw("e", "11")),
                event("ADDED", bad),
                event("MODIFIED", raw("a", "12", "x")),
                bookmark("13"),
                ConnectionFailed("reset"),
            ],
            [event("DELETED", raw("b", "14")), expired("14")],
        ],
    )


class State:
    """A fake process: running or down for some seconds."""

    def __init__(self) -> None:
        self.down = 0.0
        self.attached = 0

    def down_for(self) -> float:
        return self.down

    def down_reason(self) -> str:
        return "signal 9"

    async def attach(self) -> None:
        self.attached += 1

    def detach(self) -> None:
        self.attached -= 1


def remote(handler: Recorder, clock: Any = None) -> RemoteReflector[Obj]:
    options = {"clock": clock} if clock is not None else {}
    reflector: RemoteReflector[Obj] = RemoteReflector(
        path="/api/v1/things",
        key=lambda o: o.name,
        version=lambda o: o.rv,
        handler=handler,
        **options,
    )
    reflector.attach(State())
    return reflector


async def run_in_process(api: FakeApi) -> tuple[Recorder, Reflector[Obj]]:
    handler = Recorder()
    reflector = Reflector(
        api,
        path="/api/v1/things",
        decode=decode,
        key=lambda o: o.name,
        version=lambda o: o.rv,
        handler=handler,
        settings=FAST,
    )
    task = asyncio.create_task(reflector.run())
    await wait_for(lambda: len(api.watch_calls) == 3)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return handler, reflector


async def run_through_deltas(api: FakeApi) -> tuple[Recorder, RemoteReflector[Obj]]:
    handler = Recorder()
    target = remote(handler)
    reader = DeltaReader()

    def emit(op: str, payload: Any) -> None:
        for deltas in reader.feed(encode([(0, op, payload)])):
            for _, kind, body in deltas:
                target.apply(kind, body)

    child: StreamingReflector[Obj] = StreamingReflector(
        api,
        path="/api/v1/things",
        decode=decode,
        key=lambda o: o.name,
        version=lambda o: o.rv,
        settings=FAST,
        emit=emit,
    )
    task = asyncio.create_task(child.run())
    await wait_for(lambda: len(api.watch_calls) == 3)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert child.store == {}  # the child keeps nothing
    return handler, target


async def test_deltas_give_what_the_in_process_reflector_gives() -> None:
    expected_handler, expected = await run_in_process(script())
    handler, got = await run_through_deltas(script())
    assert handler.log == expected_handler.log
    assert got.store == expected.store
    assert set(got.store) == {"a", "c", "d"}  # e and b deleted by watch or relist
    assert got.resource_version == expected.resource_version == "40"
    assert got.relists == expected.relists == 2
    assert got.synced.is_set()


def test_a_restarted_childs_list_reconciles_and_a_dead_childs_half_list_is_dropped() -> None:
    handler = Recorder()
    target = remote(handler)
    for op, payload in [("S", None), ("L", [Obj("a", "1"), Obj("b", "2")]), ("E", "5")]:
        target.apply(op, payload)
    target.apply("ADDED", Obj("c", "6"))
    # The child dies in the middle of its next list: that half list must not count.
    target.apply("S", None)
    target.apply("L", [Obj("a", "1")])
    target.child_gone()
    handler.log.clear()
    # The new child lists: b was deleted and a changed while none ran.
    for op, payload in [("S", None), ("L", [Obj("a", "9"), Obj("c", "6")]), ("E", "20")]:
        target.apply(op, payload)
    assert handler.log == [("delete", "b", "2"), ("update", "a", "1", "9")]
    assert set(target.store) == {"a", "c"}
    assert target.relists == 2


async def test_health_says_whether_a_child_runs() -> None:
    now = [100.0]
    target = remote(Recorder(), clock=lambda: now[0])
    state = State()
    target.attach(state)
    task = asyncio.create_task(target.run())
    await wait_for(lambda: state.attached == 1)
    for op, payload in [("S", None), ("E", "5"), (HEALTH, (True, False, "", 0.0))]:
        target.apply(op, payload)
    assert target.health().ready

    state.down = 2.0  # killed, being restarted: synced, still alive, the error says why
    health = target.health()
    assert health.ready
    assert "not running (signal 9)" in health.error
    state.down = DOWN_TOLERANCE_SECONDS + 1  # no child for too long: /livez fails
    assert not target.health().alive

    state.down = 0.0
    target.apply(HEALTH, (True, False, "403 Forbidden", 3.0))  # the child's own error
    assert target.health().error == "403 Forbidden"
    assert target.health().alive
    now[0] += SILENT_AFTER_SECONDS + 1  # a child that sends nothing is stuck
    assert not target.health().alive
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert state.attached == 0
    assert target.health().dead
