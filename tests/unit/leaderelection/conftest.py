"""Test harness for leader election: a virtual-time event loop and an in-memory API server.

`VirtualTimeLoop` is an asyncio loop whose clock jumps straight to the next timer whenever
nothing is ready, so `asyncio.sleep`, `asyncio.timeout` and the elector's monotonic clock
(`LoopClock` reads the loop's time) are all simulated: a 60 s failover runs in a few ms.

`FakeLeaseStore` holds the Leases with resourceVersion semantics (409 Conflict on a stale
update, 409 AlreadyExists on a duplicate create, 404 NotFound); each replica talks to it
through its own `FakeKubeApi`, which can be partitioned (requests hang until their timeout),
slowed down, or made to fail its next requests.
"""

from __future__ import annotations

import asyncio
import copy
import random
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest

from kubesched.kube.errors import AlreadyExists, ApiError, Conflict, NotFound
from kubesched.leaderelection import (
    ElectionConfig,
    LeaderElector,
    LeaseLock,
    LoopClock,
)
from kubesched.leaderelection.candidate import Candidate

T = TypeVar("T")
WALL_BASE = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


class DeadlockError(RuntimeError):
    """Nothing is ready and no timer is scheduled: the simulation can never advance."""


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An event loop on simulated time: idle waits advance the clock instantly."""

    def __init__(self) -> None:
        super().__init__()
        self._now = 0.0
        real_select = self._selector.select  # type: ignore[attr-defined]

        def select(timeout: float | None = None) -> Any:
            events = real_select(0)
            if events:
                return events
            if timeout is None:
                raise DeadlockError("simulation deadlock: every task waits and no timer is set")
            self._now += timeout
            return events

        self._selector.select = select  # type: ignore[attr-defined]

    def time(self) -> float:
        return self._now


def run_virtual(coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` to completion on a fresh virtual-time loop, then clean up."""
    loop = VirtualTimeLoop()
    try:
        return loop.run_until_complete(coro)
    finally:
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()


def lease_obj(path: str) -> tuple[str, str]:
    parts = path.strip("/").split("/")
    return parts[4], parts[6]  # apis/coordination.k8s.io/v1/namespaces/{ns}/leases/{name}


class FakeLeaseStore:
    """The API server's storage of Leases, keyed by (namespace, name)."""

    def __init__(self) -> None:
        self.leases: dict[tuple[str, str], dict[str, Any]] = {}
        self._rv = 0
        self.writes: list[tuple[str, str]] = []  # (verb, holderIdentity) in commit order

    def next_rv(self) -> str:
        self._rv += 1
        return str(self._rv)

    def get(self, namespace: str, name: str) -> dict[str, Any]:
        lease = self.leases.get((namespace, name))
        if lease is None:
            raise NotFound(404, "NotFound", f'leases "{name}" not found')
        return copy.deepcopy(lease)

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        meta = body["metadata"]
        key = (meta["namespace"], meta["name"])
        if key in self.leases:
            raise AlreadyExists(409, "AlreadyExists", f'leases "{key[1]}" already exists')
        stored = copy.deepcopy(body)
        stored["metadata"] |= {"resourceVersion": self.next_rv(), "uid": f"uid-{key[1]}"}
        self.leases[key] = stored
        self.writes.append(("create", stored["spec"].get("holderIdentity", "")))
        return copy.deepcopy(stored)

    def update(self, namespace: str, name: str, body: dict[str, Any]) -> dict[str, Any]:
        current = self.get(namespace, name)
        sent_rv = body.get("metadata", {}).get("resourceVersion")
        if sent_rv != current["metadata"]["resourceVersion"]:
            raise Conflict(409, "Conflict", "the object has been modified")
        stored = copy.deepcopy(body)
        stored["metadata"]["resourceVersion"] = self.next_rv()
        self.leases[(namespace, name)] = stored
        self.writes.append(("update", stored["spec"].get("holderIdentity", "")))
        return copy.deepcopy(stored)

    def put_foreign(self, namespace: str, name: str, spec: dict[str, Any], **meta: Any) -> None:
        """Write a Lease as another component would (no kubesched annotation unless given)."""
        metadata = {"namespace": namespace, "name": name, **meta}
        metadata["resourceVersion"] = self.next_rv()
        self.leases[(namespace, name)] = {"metadata": metadata, "spec": spec}

    def holder(self, namespace: str = "ns", name: str = "lease") -> str:
        lease = self.leases.get((namespace, name))
        return "" if lease is None else lease["spec"].get("holderIdentity", "")

    def spec(self, namespace: str = "ns", name: str = "lease") -> dict[str, Any]:
        spec: dict[str, Any] = self.leases[(namespace, name)]["spec"]
        return spec


class FakeKubeApi:
    """One replica's connection to the fake API server (implements KubeApi for Leases)."""

    def __init__(self, store: FakeLeaseStore) -> None:
        self.store = store
        self._reachable = asyncio.Event()
        self._reachable.set()
        self.latency = 0.0
        self.failures: list[ApiError] = []
        self.put_failures: list[ApiError] = []
        self.calls: list[tuple[str, str]] = []
        self.timeouts: list[float | None] = []
        self.hang_next = 0

    @property
    def partitioned(self) -> bool:
        """While True, requests hang (until their timeout) as if the network dropped them."""
        return not self._reachable.is_set()

    @partitioned.setter
    def partitioned(self, value: bool) -> None:
        if value:
            self._reachable.clear()
        else:
            self._reachable.set()

    async def _enter(self, verb: str, path: str, timeout: float | None) -> None:
        self.calls.append((verb, path))
        self.timeouts.append(timeout)
        if self.hang_next > 0:
            self.hang_next -= 1
            await asyncio.sleep(10_000)
        await self._reachable.wait()
        if self.latency:
            await asyncio.sleep(self.latency)
        if self.failures:
            raise self.failures.pop(0)

    async def _leave(self, result: Any) -> Any:
        """The answer travels back: it is lost (hangs) if the link drops meanwhile."""
        if self.latency:
            await asyncio.sleep(self.latency)
        await self._reachable.wait()
        return result

    async def get(self, path: str, *, params: Any = None, timeout: float | None = None) -> Any:
        await self._enter("get", path, timeout)
        return await self._leave(self.store.get(*lease_obj(path)))

    async def post(self, path: str, body: Any, *, timeout: float | None = None) -> Any:
        await self._enter("post", path, timeout)
        return await self._leave(self.store.create(body))

    async def put(self, path: str, body: Any, *, timeout: float | None = None) -> Any:
        await self._enter("put", path, timeout)
        if self.put_failures:
            raise self.put_failures.pop(0)
        return await self._leave(self.store.update(*lease_obj(path), body))

    async def patch(self, path: str, body: Any, **_: Any) -> Any:
        raise NotImplementedError

    async def delete(self, path: str, **_: Any) -> Any:
        await self._enter("delete", path, None)
        return self.store.leases.pop(lease_obj(path))


def wall_clock(skew: float = 0.0) -> LoopClock:
    """A LoopClock whose wall time is WALL_BASE + loop time + `skew` seconds."""

    def wall() -> datetime:
        return WALL_BASE + timedelta(seconds=asyncio.get_running_loop().time() + skew)

    return LoopClock(wall=wall)


class FakeMetrics:
    def __init__(self) -> None:
        self.leading: list[bool] = []
        self.slowpath = 0

    def set_leading(self, leading: bool) -> None:
        self.leading.append(leading)

    def slowpath_exercised(self) -> None:
        self.slowpath += 1


class Harness:
    """Builds replicas (api + lock + elector) on one fake store."""

    def __init__(self) -> None:
        self.store = FakeLeaseStore()
        self.apis: dict[str, FakeKubeApi] = {}
        self.events: list[tuple[str, str, str]] = []  # (identity, reason, message)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return run_virtual(coro)

    async def wait_until(
        self, predicate: Callable[[], bool], *, timeout: float = 120.0, step: float = 0.01
    ) -> float:
        """Poll `predicate` every `step` (virtual) seconds; return the loop time it held."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            if loop.time() > deadline:
                raise AssertionError(f"condition not met within {timeout}s")
            await asyncio.sleep(step)
        return loop.time()

    def api(self, identity: str) -> FakeKubeApi:
        return self.apis.setdefault(identity, FakeKubeApi(self.store))

    def lock(
        self, identity: str, *, names: tuple[str, ...] = ("my-scheduler",), timeout: float = 5.0
    ) -> LeaseLock:
        return LeaseLock(
            self.api(identity),
            namespace="ns",
            name="lease",
            identity=identity,
            scheduler_names=names,
            request_timeout=timeout,
        )

    def candidate(self, identity: str, *, metrics: Any = None) -> Candidate:
        config = ElectionConfig()
        return Candidate(self.lock(identity), config=config, clock=wall_clock(), metrics=metrics)

    def foreign(self, holder: str, **spec: Any) -> None:
        """Write ns/lease as a non-kubesched holder, renewed "now" (wall time WALL_BASE)."""
        values = {
            "holderIdentity": holder,
            "leaseDurationSeconds": 15,
            "renewTime": "2026-01-02T03:04:05.000000Z",
            "leaseTransitions": 4,
        }
        self.store.put_foreign("ns", "lease", values | spec)

    def elector(
        self,
        identity: str,
        *,
        config: ElectionConfig | None = None,
        seed: int = 0,
        skew: float = 0.0,
        **kwargs: Any,
    ) -> LeaderElector:
        config = config or ElectionConfig()
        kwargs.setdefault("event_sink", lambda r, m: self.events.append((identity, r, m)))
        return LeaderElector(
            self.lock(identity, timeout=config.request_timeout),
            config=config,
            clock=wall_clock(skew),
            rng=random.Random(seed),
            **kwargs,
        )


@pytest.fixture
def h() -> Harness:
    return Harness()


@pytest.fixture
def fake_metrics() -> FakeMetrics:
    return FakeMetrics()


@pytest.fixture
def harness_factory() -> type[Harness]:
    """For property tests that need a fresh harness per example."""
    return Harness
