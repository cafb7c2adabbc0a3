"""The server's view of its informers: /readyz and /livez turn red when an informer stops
or stalls; the cache-sync wait ends on `stop` and names what has not synced."""

from __future__ import annotations

import asyncio

import pytest

from kubesched.framework import NAMESPACES
from kubesched.kube.errors import ApiError
from kubesched.model import ApiObject
from kubesched.server.cachesync import CacheSyncError, wait_synced
from kubesched.server.informers import Informers, informer
from tests.unit.api_fakes import HANG, FakeApi


def page(rv: str) -> dict[str, object]:
    return {"kind": "List", "metadata": {"resourceVersion": rv}, "items": []}


def informers(api: FakeApi) -> Informers:
    def make(path: str) -> object:
        return informer(api, path, ApiObject.from_json, lambda ns: ns.name)

    return Informers(
        pods=make("/api/v1/pods"),  # type: ignore[arg-type]
        nodes=make("/api/v1/nodes"),  # type: ignore[arg-type]
        declared={NAMESPACES.event_resource: make(NAMESPACES.path)},  # type: ignore[dict-item]
    )


async def test_a_stopped_informer_turns_ready_and_live_red() -> None:
    api = FakeApi(lists=[[page("1")]], watches=[[HANG]] * 10)
    found = informers(api)
    tasks = {name: asyncio.create_task(r.run()) for name, r in found.named().items()}
    await found.wait_synced()
    assert found.ready()
    assert found.alive()
    tasks["nodes"].cancel()
    await asyncio.gather(tasks["nodes"], return_exceptions=True)
    assert not found.alive()
    assert not found.ready()
    for task in tasks.values():
        task.cancel()
    await asyncio.gather(*tasks.values(), return_exceptions=True)


async def test_sync_wait_ends_on_stop() -> None:
    forbidden = ApiError.from_status(403, {"reason": "Forbidden", "message": "no pods for you"})
    api = FakeApi(lists=[forbidden])
    found = informers(api)
    tasks = [asyncio.create_task(r.run()) for r in found.named().values()]
    stop = asyncio.Event()
    asyncio.get_running_loop().call_later(0.05, stop.set)
    assert await asyncio.wait_for(wait_synced(found, stop, timeout=60), 1) is False
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_sync_timeout_names_each_informer_and_its_error() -> None:
    forbidden = ApiError.from_status(403, {"reason": "Forbidden", "message": "no pods for you"})
    api = FakeApi(lists=[forbidden])
    found = informers(api)
    tasks = [asyncio.create_task(r.run()) for r in found.named().values()]
    await asyncio.sleep(0.05)
    with pytest.raises(CacheSyncError) as raised:
        await wait_synced(found, asyncio.Event(), timeout=0.1)
    message = str(raised.value)
    assert "/api/v1/pods (not synced: 403 Forbidden: no pods for you" in message
    assert "kubesched doctor" in message
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
