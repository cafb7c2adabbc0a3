"""LeaseRecord <-> Lease JSON, MicroTime and the kubesched annotation/label."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from kubesched.leaderelection import (
    LEASE_LABEL,
    LEASE_LABEL_SELECTOR,
    SCHEDULER_NAMES_ANNOTATION,
    LeaseRecord,
    lease_path,
)
from kubesched.leaderelection.record import format_micro_time, parse_micro_time

MOMENT = datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)


def test_micro_time_is_rfc3339_utc_with_six_digits() -> None:
    assert format_micro_time(MOMENT) == "2026-01-02T03:04:05.123456Z"
    assert format_micro_time(MOMENT.replace(microsecond=0)) == "2026-01-02T03:04:05.000000Z"
    plus_two = MOMENT.astimezone(timezone(timedelta(hours=2)))
    assert format_micro_time(plus_two) == "2026-01-02T03:04:05.123456Z"


def test_parse_accepts_what_other_writers_send() -> None:
    assert parse_micro_time("2026-01-02T03:04:05.123456Z") == MOMENT
    assert parse_micro_time("2026-01-02T03:04:05Z") == MOMENT.replace(microsecond=0)
    assert parse_micro_time("2026-01-02T05:04:05.123456+02:00") == MOMENT
    assert parse_micro_time(None) is None
    assert parse_micro_time("") is None
    assert parse_micro_time("yesterday") is None


@given(st.datetimes(timezones=st.just(UTC)))
def test_micro_time_round_trips(moment: datetime) -> None:
    assert parse_micro_time(format_micro_time(moment)) == moment


def full_record(
    *, holder_identity: str = "host_1", renew_time: datetime | None = MOMENT + timedelta(seconds=4)
) -> LeaseRecord:
    return LeaseRecord(
        holder_identity=holder_identity,
        lease_duration_seconds=15,
        acquire_time=MOMENT,
        renew_time=renew_time,
        lease_transitions=3,
        scheduler_names=("a", "b"),
    )


def test_new_lease_carries_spec_label_and_annotation() -> None:
    lease = full_record().new_lease(namespace="ns", name="l")
    assert lease["apiVersion"] == "coordination.k8s.io/v1"
    assert lease["kind"] == "Lease"
    assert lease["metadata"]["labels"] == {LEASE_LABEL: "scheduler"}
    assert lease["metadata"]["annotations"] == {SCHEDULER_NAMES_ANNOTATION: "a,b"}
    assert lease["spec"] == {
        "holderIdentity": "host_1",
        "leaseDurationSeconds": 15,
        "leaseTransitions": 3,
        "acquireTime": "2026-01-02T03:04:05.123456Z",
        "renewTime": "2026-01-02T03:04:09.123456Z",
    }
    assert LEASE_LABEL_SELECTOR == "kubesched.io/lease=scheduler"


def test_round_trip_through_json() -> None:
    record = full_record()
    assert LeaseRecord.from_lease(record.new_lease(namespace="ns", name="l")) == record


def test_apply_keeps_foreign_metadata_and_resource_version() -> None:
    lease: dict[str, Any] = {
        "metadata": {
            "name": "l",
            "namespace": "ns",
            "resourceVersion": "42",
            "uid": "u",
            "labels": {"team": "x"},
            "annotations": {"note": "keep"},
        },
        "spec": {"holderIdentity": "old", "preferredHolder": "dropped"},
    }
    updated = full_record().apply_to(lease)
    assert updated["metadata"]["resourceVersion"] == "42"
    assert updated["metadata"]["labels"] == {"team": "x", LEASE_LABEL: "scheduler"}
    assert updated["metadata"]["annotations"] == {"note": "keep", SCHEDULER_NAMES_ANNOTATION: "a,b"}
    assert updated["spec"]["holderIdentity"] == "host_1"
    assert lease["spec"]["holderIdentity"] == "old"  # the input is not modified


def test_a_lease_without_our_annotation_is_not_kubesched() -> None:
    record = LeaseRecord.from_lease(
        {"metadata": {}, "spec": {"holderIdentity": "kube-scheduler-host_x"}}
    )
    assert record.scheduler_names is None
    assert not record.is_kubesched
    assert record.held


def test_missing_spec_fields_default() -> None:
    record = LeaseRecord.from_lease(
        {"metadata": {"annotations": {SCHEDULER_NAMES_ANNOTATION: " a , ,b"}}}
    )
    assert record == LeaseRecord(scheduler_names=("a", "b"))
    assert not record.held


def test_is_live_by_wall_clock() -> None:
    record = full_record()
    renewed = MOMENT + timedelta(seconds=4)
    assert record.is_live(now=renewed + timedelta(seconds=14.9))
    assert not record.is_live(now=renewed + timedelta(seconds=15))
    assert not full_record(holder_identity="").is_live(now=renewed)
    assert not full_record(renew_time=None).is_live(now=renewed)


def test_paths() -> None:
    assert lease_path("ns", "l") == "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l"
