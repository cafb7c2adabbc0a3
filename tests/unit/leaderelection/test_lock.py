"""LeaseLock against the in-memory API: paths, optimistic concurrency, timeouts."""

from __future__ import annotations

import asyncio
import re

import pytest

from kubesched.kube.errors import AlreadyExists, Conflict, ConnectionFailed, NotFound
from kubesched.leaderelection import LeaseRecord, new_identity
from kubesched.leaderelection.lock import LockNotInitializedError
from tests.unit.leaderelection.conftest import Harness


def test_identity_is_hostname_underscore_uuid4() -> None:
    identity = new_identity("node-1")
    assert re.fullmatch(
        r"node-1_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", identity
    )
    assert new_identity("node-1") != identity
    assert new_identity()


def test_get_missing_raises_not_found(h: Harness) -> None:
    lock = h.lock("a")

    async def main() -> None:
        with pytest.raises(NotFound):
            await lock.get()

    h.run(main())
    assert h.api("a").calls == [("get", "/apis/coordination.k8s.io/v1/namespaces/ns/leases/lease")]


def test_create_then_update_with_resource_version(h: Harness) -> None:
    lock = h.lock("a")

    async def main() -> None:
        created = await lock.create(lock.our_record(holder_identity="a", lease_duration_seconds=15))
        assert created.holder_identity == "a"
        assert created.scheduler_names == ("my-scheduler",)
        assert lock.resource_version == "1"
        updated = await lock.update(lock.our_record(holder_identity="a", lease_transitions=1))
        assert updated.lease_transitions == 1
        assert lock.resource_version == "2"
        assert lock.lease_ref() == {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "namespace": "ns",
            "name": "lease",
            "uid": "uid-lease",
        }

    h.run(main())
    assert h.api("a").calls[0] == ("post", "/apis/coordination.k8s.io/v1/namespaces/ns/leases")
    assert h.api("a").timeouts == [5.0, 5.0]
    assert lock.describe() == "ns/lease"


def test_stale_update_conflicts_and_duplicate_create_already_exists(h: Harness) -> None:
    a, b = h.lock("a"), h.lock("b")

    async def main() -> None:
        await a.create(a.our_record(holder_identity="a"))
        with pytest.raises(AlreadyExists):
            await b.create(b.our_record(holder_identity="b"))
        await b.get()
        await a.update(a.our_record(holder_identity="a", lease_transitions=0))
        with pytest.raises(Conflict):
            await b.update(b.our_record(holder_identity="b"))

    h.run(main())
    assert h.store.holder() == "a"


def test_update_before_reading_is_a_programming_error(h: Harness) -> None:
    lock = h.lock("a")

    async def main() -> None:
        with pytest.raises(LockNotInitializedError):
            await lock.update(LeaseRecord())

    h.run(main())


def test_a_request_that_hangs_times_out_as_connection_failed(h: Harness) -> None:
    lock = h.lock("a", timeout=1.5)
    h.api("a").hang_next = 1

    async def main() -> float:
        loop = asyncio.get_running_loop()
        with pytest.raises(ConnectionFailed, match=r"no answer within 1.5s"):
            await lock.get()
        return loop.time()

    assert h.run(main()) == pytest.approx(1.5)
