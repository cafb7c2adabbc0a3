"""The collision guard: refuse kube-scheduler's Lease and Leases held by strangers."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from kubesched.kube.errors import Forbidden
from kubesched.leaderelection import (
    SCHEDULER_NAMES_ANNOTATION,
    LeaseCollisionError,
    check_lease_collision,
)
from kubesched.leaderelection.record import LeaseRecord
from tests.unit.leaderelection.conftest import Harness

WALL_BASE = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
SYMPTOM = '"attempting to acquire leader lease kube-system/kube-scheduler..."'
NOW = WALL_BASE + timedelta(seconds=3)  # the leases below were renewed at WALL_BASE


def check(
    h: Harness,
    namespace: str = "ns",
    name: str = "lease",
    names: tuple[str, ...] = ("my-scheduler",),
    now: datetime = NOW,
) -> LeaseRecord | None:
    return h.run(
        check_lease_collision(
            h.api("me"), namespace=namespace, name=name, scheduler_names=names, now=now
        )
    )


def hold(
    h: Harness,
    holder: str,
    *,
    namespace: str = "ns",
    name: str = "lease",
    names: str | None = None,
    renewed: str = "2026-01-02T03:04:05Z",
) -> None:
    meta = {} if names is None else {"annotations": {SCHEDULER_NAMES_ANNOTATION: names}}
    spec = {"holderIdentity": holder, "leaseDurationSeconds": 15, "renewTime": renewed}
    h.store.put_foreign(namespace, name, spec, **meta)


def assert_explains(message: str) -> None:
    assert "\n" not in message
    assert "leaderElection.resourceName (--leader-elect-resource-name)" in message
    assert "The default kube-scheduler holds the Lease kube-system/kube-scheduler" in message
    assert SYMPTOM in message


def test_kube_schedulers_lease_is_refused_to_a_second_scheduler(h: Harness) -> None:
    with pytest.raises(LeaseCollisionError) as info:
        check(h, namespace="kube-system", name="kube-scheduler")
    message = str(info.value)
    assert_explains(message)
    assert message.startswith(
        "Refusing to start: leader election is configured with the Lease "
        "kube-system/kube-scheduler, which belongs to the default scheduler, but this "
        "kubesched serves my-scheduler, not default-scheduler"
    )
    assert 'to a unique name such as "my-scheduler"' in message
    assert "--leader-elect-resource-namespace" in message
    assert h.api("me").calls == []  # refused without asking the API server


def test_replacing_a_live_default_scheduler_is_refused(h: Harness) -> None:
    hold(h, "master-1_1234", namespace="kube-system", name="kube-scheduler")
    with pytest.raises(LeaseCollisionError) as info:
        check(h, namespace="kube-system", name="kube-scheduler", names=("default-scheduler",))
    message = str(info.value)
    assert_explains(message)
    assert "held by master-1_1234 (renewed 3.0s ago)" in message
    assert "stop the default scheduler first" in message
    assert "kube-scheduler.yaml" in message


@pytest.mark.parametrize("state", ["absent", "expired", "released", "our replica"])
def test_replacing_the_default_scheduler_is_allowed_when_it_is_gone(h: Harness, state: str) -> None:
    ns, name = "kube-system", "kube-scheduler"
    if state == "expired":
        hold(h, "master-1_1234", renewed="2026-01-02T03:03:00Z", namespace=ns, name=name)
    elif state == "released":
        hold(h, "", namespace=ns, name=name)
    elif state == "our replica":
        hold(h, "kubesched-0_99", names="default-scheduler", namespace=ns, name=name)
    record = check(h, names=("default-scheduler",), namespace=ns, name=name)
    assert (record is None) == (state == "absent")


def test_a_lease_held_by_another_component_is_refused(h: Harness) -> None:
    hold(h, "some-controller_77")
    with pytest.raises(LeaseCollisionError) as info:
        check(h)
    message = str(info.value)
    assert_explains(message)
    assert "The Lease ns/lease is held by some-controller_77" in message
    assert "not kubesched" in message


def test_a_lease_held_by_another_kubesched_deployment_is_refused(h: Harness) -> None:
    hold(h, "gpu-0_1", names="gpu-scheduler,batch-scheduler")
    with pytest.raises(LeaseCollisionError) as info:
        check(h, names=("my-scheduler",))
    message = str(info.value)
    assert_explains(message)
    assert "a kubesched serving gpu-scheduler,batch-scheduler" in message
    assert "this one serves my-scheduler" in message


def test_a_replica_of_the_same_scheduler_is_a_peer(h: Harness) -> None:
    hold(h, "kubesched-0_1", names="my-scheduler")
    record = check(h)
    assert record is not None
    assert record.holder_identity == "kubesched-0_1"


def test_overlapping_names_are_allowed_with_a_warning(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    hold(h, "kubesched-0_1", names="my-scheduler")
    check(h, names=("my-scheduler", "new-profile"))
    assert "lease holder serves other scheduler names" in caplog.text


def test_a_stale_foreign_holder_is_no_collision(h: Harness) -> None:
    hold(h, "some-controller_77")
    assert check(h, now=WALL_BASE + timedelta(seconds=15)) is not None


def test_an_unreadable_lease_is_left_to_the_elector(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    h.api("me").failures.append(Forbidden(403, "Forbidden", "cannot get leases"))
    assert check(h) is None
    assert "could not read lease to check collisions" in caplog.text
