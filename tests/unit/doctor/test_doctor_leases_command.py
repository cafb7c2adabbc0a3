"""`kubesched leases`: which Leases it finds, and how it shows them."""

from __future__ import annotations

import json

from kubesched.doctor import list_scheduler_leases, served_by_live
from kubesched.doctor.leasetable import leases_json, leases_table
from tests.unit.doctor.doctor_fakes import NOW, FakeCluster, lease


def cluster() -> FakeCluster:
    fake = FakeCluster()
    fake.add(lease("kube-system", "kube-scheduler", holder="master_abc", transitions=2))
    fake.add(
        lease(
            "custom-scheduler-ns",
            "my-custom-scheduler",
            holder="pod-a",
            names="my-custom-scheduler",
        )
    )
    fake.add(lease("other", "old", holder="pod-z", renewed_ago=3600, names="old-scheduler"))
    fake.add(lease("kube-node-lease", "node-1", holder="node-1"))  # not a scheduler Lease
    return fake


async def test_it_lists_the_default_lease_and_labelled_ones() -> None:
    leases = await list_scheduler_leases(cluster())
    assert [lease.key for lease in leases] == [
        "custom-scheduler-ns/my-custom-scheduler",
        "kube-system/kube-scheduler",
        "other/old",
    ]


async def test_namespace_filter() -> None:
    fake = cluster()
    leases = await list_scheduler_leases(fake, namespace="custom-scheduler-ns")
    assert [lease.key for lease in leases] == ["custom-scheduler-ns/my-custom-scheduler"]
    assert all("kube-system" not in path for path, _ in fake.gets)


async def test_served_names_of_live_leases() -> None:
    leases = await list_scheduler_leases(cluster())
    assert served_by_live(leases, NOW) == {
        "my-custom-scheduler": ["custom-scheduler-ns/my-custom-scheduler"],
        "default-scheduler": ["kube-system/kube-scheduler"],
    }


async def test_table() -> None:
    text = leases_table(await list_scheduler_leases(cluster()), NOW)
    lines = text.splitlines()
    assert lines[0].split() == [
        "LEASE", "HOLDER", "SCHEDULERS", "RENEWED", "EXPIRES", "TRANSITIONS", "STATE"
    ]  # fmt: skip
    row = next(line for line in lines if line.startswith("kube-system/kube-scheduler"))
    assert "default-scheduler (kube-scheduler)" in row
    assert row.split()[-2:] == ["2", "live"]
    stale = next(line for line in lines if line.startswith("other/old"))
    assert "1h0m ago" in stale
    assert "expired 59m45s ago" in stale
    assert stale.endswith("stale")


async def test_json() -> None:
    document = json.loads(leases_json(await list_scheduler_leases(cluster()), NOW))
    row = next(r for r in document["leases"] if r["name"] == "my-custom-scheduler")
    assert row["namespace"] == "custom-scheduler-ns"
    assert row["holder"] == "pod-a"
    assert row["schedulerNames"] == ["my-custom-scheduler"]
    assert row["kubesched"] is True
    assert row["state"] == "live"
    assert row["renewedSecondsAgo"] == 1.0
    assert row["expiresInSeconds"] == 14.0


def test_empty() -> None:
    assert leases_table([], NOW) == "No scheduler Leases found."
