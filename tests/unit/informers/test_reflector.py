"""Reflector: paged list, watch with resourceVersion resume, relist-with-diff on 410."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any

import pytest

from kubesched.informers import Reflector, ReflectorSettings
from kubesched.kube.errors import ApiError, ConnectionFailed, Gone, WatchIdle
from tests.unit.api_fakes import HANG, FakeApi, wait_for

FAST = ReflectorSettings(
    page_size=2,
    inactivity_timeout=0.5,
    min_watch_timeout=10,
    initial_backoff=0.001,
    max_backoff=0.004,
    request_timeout=0.5,
)


@dataclass(frozen=True)
class Obj:
    name: str
    rv: str
    data: str = ""


def decode(raw: dict[str, Any]) -> Obj:
    meta = raw["metadata"]
    if raw.get("bad"):
        raise ValueError("malformed")
    return Obj(meta["name"], meta["resourceVersion"], str(raw.get("data", "")))


def raw(name: str, rv: str, data: str = "") -> dict[str, Any]:
    return {"metadata": {"name": name, "resourceVersion": rv}, "data": data}


def page(items: list[Any], rv: str, cont: str = "") -> dict[str, Any]:
    meta = {"resourceVersion": rv}
    if cont:
        meta["continue"] = cont
    return {"kind": "List", "metadata": meta, "items": items}


def event(kind: str, obj: dict[str, Any]) -> dict[str, Any]:
    return {"type": kind, "object": obj}


def bookmark(rv: str) -> dict[str, Any]:
    return event("BOOKMARK", {"metadata": {"resourceVersion": rv}})


def expired(rv: str = "1") -> dict[str, Any]:
    return event(
        "ERROR",
        {
            "kind": "Status",
            "status": "Failure",
            "message": f"too old resource version: {rv}",
            "reason": "Expired",
            "code": 410,
        },
    )


class Recorder:
    def __init__(self) -> None:
        self.log: list[tuple[str, ...]] = []

    def on_add(self, obj: Obj) -> None:
        self.log.append(("add", obj.name, obj.rv))

    def on_update(self, old: Obj, new: Obj) -> None:
        self.log.append(("update", new.name, old.rv, new.rv))

    def on_delete(self, obj: Obj) -> None:
        self.log.append(("delete", obj.name, obj.rv))


def make(api: FakeApi, handler: Recorder, **kwargs: Any) -> Reflector[Obj]:
    return Reflector(
        api,
        path="/api/v1/things",
        decode=decode,
        key=lambda o: o.name,
        version=lambda o: o.rv,
        handler=handler,
        settings=FAST,
        **kwargs,
    )


@pytest.fixture
def handler() -> Recorder:
    return Recorder()


async def start(reflector: Reflector[Obj]) -> asyncio.Task[None]:
    return asyncio.create_task(reflector.run())


async def stop(task: asyncio.Task[None]) -> None:
    assert not task.done(), task.exception() if task.done() and not task.cancelled() else task
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_paged_list_fills_store_emits_adds_and_sets_synced(handler: Recorder) -> None:
    api = FakeApi(
        lists=[
            [
                page([raw("a", "1"), raw("b", "2")], "10", cont="c1"),
                page([raw("c", "3")], "11"),
            ]
        ]
    )
    reflector = make(api, handler, field_selector="status.phase!=Succeeded")
    assert not reflector.synced.is_set()
    task = await start(reflector)
    await asyncio.wait_for(reflector.synced.wait(), 1)
    await wait_for(lambda: api.watch_calls)
    await stop(task)

    assert set(reflector.store) == {"a", "b", "c"}
    assert handler.log == [("add", "a", "1"), ("add", "b", "2"), ("add", "c", "3")]
    first, second = api.gets()
    assert first.path == "/api/v1/things"
    assert first.params == {"fieldSelector": "status.phase!=Succeeded", "limit": "2"}
    assert second.params == {
        "fieldSelector": "status.phase!=Succeeded",
        "limit": "2",
        "continue": "c1",
    }
    assert reflector.resource_version == "11"
    assert reflector.relists == 1
    watch = api.watch_calls[0]
    assert watch["resourceVersion"] == "11"
    assert watch["allowWatchBookmarks"] == "true"
    assert watch["fieldSelector"] == "status.phase!=Succeeded"
    assert 10 <= int(watch["timeoutSeconds"]) < 20
    assert api.watch_inactivity == [FAST.inactivity_timeout]


async def test_watch_events_update_store_and_handler(handler: Recorder) -> None:
    api = FakeApi(
        lists=[[page([raw("a", "1")], "5")]],
        watches=[
            [
                event("ADDED", raw("b", "6")),
                event("MODIFIED", raw("a", "7", "new")),
                event("DELETED", raw("b", "8")),
                event("DELETED", raw("never-seen", "9")),
                bookmark("10"),
            ]
        ],
    )
    reflector = make(api, handler)
    task = await start(reflector)
    await wait_for(lambda: len(api.watch_calls) == 2)
    await stop(task)

    assert handler.log == [
        ("add", "a", "1"),
        ("add", "b", "6"),
        ("update", "a", "1", "7"),
        ("delete", "b", "6"),
        ("delete", "never-seen", "9"),
    ]
    assert reflector.store == {"a": Obj("a", "7", "new")}
    # The server ended the watch: it is resumed from the bookmark, without a relist.
    assert api.watch_calls[1]["resourceVersion"] == "10"
    assert reflector.relists == 1


async def test_connection_error_resumes_from_last_resource_version(handler: Recorder) -> None:
    api = FakeApi(
        lists=[[page([], "5")]],
        watches=[
            [event("ADDED", raw("a", "6")), bookmark("9"), ConnectionFailed("watch idle")],
            [event("MODIFIED", raw("a", "12")), ConnectionFailed("reset")],
            [ApiError.from_status(500, {"reason": "InternalError"})],
        ],
    )
    reflector = make(api, handler)
    task = await start(reflector)
    await wait_for(lambda: len(api.watch_calls) == 4)
    await stop(task)

    assert [w["resourceVersion"] for w in api.watch_calls] == ["5", "9", "12", "12"]
    assert len(api.gets()) == 1  # no relist for connection errors
    assert handler.log == [("add", "a", "6"), ("update", "a", "6", "12")]


async def test_an_idle_watch_is_renewed_quietly(
    handler: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    """No event for the inactivity timeout on a resource nobody changes: watched again from
    the same resourceVersion at once, logged at V(4) only, health unaffected."""
    api = FakeApi(
        lists=[[page([], "5")]],
        watches=[
            [WatchIdle("watch idle for 120s")],
            [WatchIdle("watch idle for 120s")],
            [event("ADDED", raw("a", "6")), HANG],
        ],
    )
    reflector = make(api, handler)
    with caplog.at_level(1, logger="kubesched.informers.reflector"):
        task = await start(reflector)
        await wait_for(lambda: handler.log == [("add", "a", "6")])
        health = reflector.health()
        await stop(task)

    assert [w["resourceVersion"] for w in api.watch_calls] == ["5", "5", "5"]
    assert health.error == ""
    assert not health.stalled
    renewals = [r for r in caplog.records if r.getMessage() == "renewing an idle watch"]
    assert len(renewals) == 2
    assert all(r.levelno < logging.INFO for r in renewals)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def relist_scenario(handler: Recorder, breaker: Any) -> tuple[FakeApi, Reflector[Obj]]:
    api = FakeApi(
        lists=[
            [page([raw("keep", "1"), raw("change", "2"), raw("vanish", "3")], "10")],
            [
                page([raw("keep", "1"), raw("change", "20", "x")], "30", cont="more"),
                page([raw("new", "25")], "30"),
            ],
        ],
        watches=[[bookmark("15"), breaker]],
    )
    reflector = make(api, handler)
    task = await start(reflector)
    await wait_for(lambda: len(api.watch_calls) == 2)
    await stop(task)
    return api, reflector


@pytest.mark.parametrize(
    "breaker",
    [expired("10"), Gone(410, "Expired", "too old resource version")],
    ids=["error-event-410", "gone-raised"],
)
async def test_410_relists_and_diffs(handler: Recorder, breaker: Any) -> None:
    api, reflector = await relist_scenario(handler, breaker)

    assert handler.log[3:] == [
        ("delete", "vanish", "3"),
        ("update", "change", "2", "20"),
        ("add", "new", "25"),
    ]
    assert reflector.store == {
        "keep": Obj("keep", "1"),
        "change": Obj("change", "20", "x"),
        "new": Obj("new", "25"),
    }
    assert reflector.relists == 2
    assert len(api.gets()) == 3
    # The relist starts from scratch (no stale continue token) and the watch from its RV.
    assert "continue" not in (api.gets()[1].params or {})
    assert api.watch_calls[1]["resourceVersion"] == "30"


async def test_other_error_event_backs_off_and_rewatches_without_relist(
    handler: Recorder,
) -> None:
    failure = event("ERROR", {"kind": "Status", "code": 500, "reason": "InternalError"})
    api = FakeApi(lists=[[page([], "5")]], watches=[[bookmark("7"), failure]])
    reflector = make(api, handler)
    task = await start(reflector)
    await wait_for(lambda: len(api.watch_calls) == 2)
    await stop(task)
    assert len(api.gets()) == 1
    assert api.watch_calls[1]["resourceVersion"] == "7"


async def test_malformed_objects_are_skipped(handler: Recorder) -> None:
    bad = {"metadata": {"name": "bad", "resourceVersion": "2"}, "bad": True}
    api = FakeApi(
        lists=[[page([raw("a", "1"), bad, {"no": "metadata"}, raw("b", "3")], "10")]],
        watches=[
            [
                event("ADDED", {**bad, "metadata": {"name": "bad", "resourceVersion": "11"}}),
                event("ADDED", raw("c", "12")),
            ]
        ],
    )
    reflector = make(api, handler)
    task = await start(reflector)
    await wait_for(lambda: len(api.watch_calls) == 2)
    await stop(task)
    assert set(reflector.store) == {"a", "b", "c"}
    assert [entry[1] for entry in handler.log] == ["a", "b", "c"]
    assert reflector.synced.is_set()


@pytest.mark.parametrize(
    "junk",
    ["a string", 42, ["a", "list"], {"metadata": "not a dict"}, {"metadata": None}],
    ids=["str", "int", "list", "metadata-str", "metadata-none"],
)
async def test_non_object_items_do_not_stop_the_reflector(handler: Recorder, junk: Any) -> None:
    api = FakeApi(
        lists=[[page([raw("a", "1"), junk], "10")]],
        watches=[[event("ADDED", junk), event("ADDED", raw("b", "12"))]],
    )
    reflector = make(api, handler)
    task = await start(reflector)
    await wait_for(lambda: len(api.watch_calls) == 2 or task.done())
    await stop(task)
    assert set(reflector.store) == {"a", "b"}


async def test_first_list_failure_is_retried_and_synced_after_success(
    handler: Recorder,
) -> None:
    api = FakeApi(
        lists=[
            ConnectionFailed("refused"),
            ApiError.from_status(403, {"reason": "Forbidden"}),
            [page([raw("a", "1")], "4")],
        ]
    )
    reflector = make(api, handler)
    task = await start(reflector)
    await asyncio.wait_for(reflector.synced.wait(), 1)
    await stop(task)
    assert len(api.gets()) == 3
    assert handler.log == [("add", "a", "1")]


async def test_synced_not_set_while_list_fails(handler: Recorder) -> None:
    api = FakeApi(lists=[ConnectionFailed("refused")])
    reflector = make(api, handler)
    task = await start(reflector)
    await wait_for(lambda: len(api.gets()) >= 3)
    await stop(task)
    assert not reflector.synced.is_set()
    assert not api.watch_calls


async def test_empty_page_list_syncs_empty_store(handler: Recorder) -> None:
    api = FakeApi(lists=[[{"metadata": {"resourceVersion": "3"}, "items": None}]])
    reflector = make(api, handler)
    task = await start(reflector)
    await asyncio.wait_for(reflector.synced.wait(), 1)
    await stop(task)
    assert reflector.store == {}
    assert reflector.resource_version == "3"


async def test_error_event_with_malformed_code_is_a_plain_failure(handler: Recorder) -> None:
    failure = event("ERROR", {"kind": "Status", "code": "teapot"})
    api = FakeApi(lists=[[page([], "5")]], watches=[[failure], [event("ADDED", raw("a", "6"))]])
    reflector = make(api, handler)
    task = await start(reflector)
    await wait_for(lambda: len(api.watch_calls) == 3)
    await stop(task)
    assert len(api.gets()) == 1
    assert handler.log == [("add", "a", "6")]


async def test_event_without_resource_version_keeps_the_last_one(handler: Recorder) -> None:
    api = FakeApi(
        lists=[[page([], "5")]],
        watches=[[bookmark("8"), event("ADDED", {"metadata": {"name": "x"}}), bookmark("")]],
    )
    reflector = make(api, handler)
    task = await start(reflector)
    await wait_for(lambda: len(api.watch_calls) == 2)
    await stop(task)
    assert api.watch_calls[1]["resourceVersion"] == "8"


async def test_failed_page_restarts_the_list_from_the_first_page(handler: Recorder) -> None:
    class FailingSecondPage(FakeApi):
        async def get(self, path, *, params=None, timeout=None):  # type: ignore[no-untyped-def]
            result = await super().get(path, params=params, timeout=timeout)
            if (params or {}).get("continue") and len(self.gets()) == 2:
                raise ConnectionFailed("reset")
            return result

    api = FailingSecondPage(
        lists=[
            [page([raw("a", "1")], "10", cont="c1"), page([raw("b", "2")], "10")],
            [page([raw("a", "1")], "12", cont="c2"), page([raw("b", "2")], "12")],
        ]
    )
    reflector = make(api, handler)
    task = await start(reflector)
    await asyncio.wait_for(reflector.synced.wait(), 1)
    await stop(task)
    assert [(c.params or {}).get("continue") for c in api.gets()] == [None, "c1", None, "c2"]
    assert handler.log == [("add", "a", "1"), ("add", "b", "2")]
    assert reflector.resource_version == "12"


async def test_restarted_reflector_resumes_its_watch_without_relisting(handler: Recorder) -> None:
    api = FakeApi(
        lists=[[page([raw("a", "1")], "10")]],
        watches=[[bookmark("14"), HANG], [expired("14")]],
    )
    reflector = make(api, handler)
    task = await start(reflector)
    await wait_for(lambda: reflector.resource_version == "14")
    await stop(task)

    task = await start(reflector)
    await wait_for(lambda: len(api.watch_calls) == 3)
    await stop(task)
    assert [w["resourceVersion"] for w in api.watch_calls] == ["10", "14", "10"]
    assert len(api.gets()) == 2  # the resumed watch hit 410: one relist, no more
    assert handler.log == [("add", "a", "1")]
    assert reflector.store == {"a": Obj("a", "1")}
