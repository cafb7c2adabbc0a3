"""Bad ElasticQuotas get a Warning Event on the quota itself, once per problem while it
lasts (`problems.py`): a `min` above `max` (MinExceedsMax) and a bad quota tree
(QuotaTreeInvalid); a standby replica records nothing and the leader records what it found."""

from __future__ import annotations

from typing import Any

from kubesched.framework import EventObject
from kubesched.model import ApiObject
from kubesched.plugins.capacity_scheduling import ELASTIC_QUOTAS
from kubesched.plugins.capacity_scheduling.problems import QuotaProblems
from kubesched.plugins.capacity_scheduling.tree import IS_PARENT_LABEL, PARENT_LABEL
from kubesched.testing import FakeHandle, RecordedObjectEvent, make_node, make_pod

from .conftest import Cluster

MIN_OVER_MAX_NOTE = (
    "ElasticQuota min exceeds its max in cpu: its pods are held to max; lower min or raise max"
)


def elastic_quota(
    namespace: str,
    *,
    min_: dict[str, str],
    max_: dict[str, str],
    rv: str = "1",
    labels: dict[str, str] | None = None,
) -> dict[str, Any]:
    return {
        "metadata": {
            "namespace": namespace,
            "name": f"eq-{namespace}",
            "uid": f"uid-{namespace}",
            "resourceVersion": rv,
            "labels": labels or {},
        },
        "spec": {"min": min_, "max": max_},
    }


def change(cluster: Cluster, old: dict[str, Any], new: dict[str, Any]) -> None:
    """An ElasticQuota update as the informer delivers it (the lister's listeners hear it)."""
    store = cluster.handle.listers.store(ELASTIC_QUOTAS)
    store.on_update(ApiObject.from_json(old), ApiObject.from_json(new))


def events(handle: FakeHandle) -> list[tuple[str, str, str]]:
    return [(e.regarding.name, e.reason, e.note) for e in handle.object_events]


def node() -> Any:
    return make_node().name("n1").capacity(cpu="8", memory="8Gi", pods="110").model()


def test_a_quota_whose_min_exceeds_its_max_gets_one_warning_event_on_itself() -> None:
    cluster = Cluster([node()], [elastic_quota("t1", min_={"cpu": "4"}, max_={"cpu": "2"})])
    assert cluster.handle.object_events == [
        RecordedObjectEvent(
            EventObject("scheduling.x-k8s.io/v1alpha1", "ElasticQuota", "t1", "eq-t1", "uid-t1"),
            event_type="Warning",
            reason="MinExceedsMax",
            action="ReadElasticQuota",
            note=MIN_OVER_MAX_NOTE,
        )
    ]


def test_the_same_problem_is_recorded_once_a_changed_or_renewed_one_again() -> None:
    first = elastic_quota("t1", min_={"cpu": "4"}, max_={"cpu": "2"})
    cluster = Cluster([node()], [first])
    same = elastic_quota("t1", min_={"cpu": "4"}, max_={"cpu": "3"}, rv="2")
    change(cluster, first, same)
    assert len(cluster.handle.object_events) == 1, "a new resourceVersion, the same problem"
    other = elastic_quota("t1", min_={"cpu": "4", "memory": "2Gi"}, max_={"memory": "1Gi"}, rv="3")
    change(cluster, same, other)
    fixed = elastic_quota("t1", min_={"cpu": "1"}, max_={"cpu": "2"}, rv="4")
    change(cluster, other, fixed)
    change(cluster, fixed, first)
    notes = [note for _, _, note in events(cluster.handle)]
    assert notes == [
        MIN_OVER_MAX_NOTE,
        MIN_OVER_MAX_NOTE.replace("in cpu", "in cpu,memory"),
        MIN_OVER_MAX_NOTE,
    ]
    assert cluster.plugin.problems.current() == [("t1/eq-t1", "MinExceedsMax", MIN_OVER_MAX_NOTE)]


def test_a_deleted_quota_takes_its_problem_with_it() -> None:
    bad = elastic_quota("t1", min_={"cpu": "4"}, max_={"cpu": "2"})
    cluster = Cluster([node()], [bad])
    cluster.handle.listers.store(ELASTIC_QUOTAS).on_delete(ApiObject.from_json(bad))
    assert cluster.plugin.problems.current() == []
    cluster.handle.listers.store(ELASTIC_QUOTAS).on_add(ApiObject.from_json(bad))
    assert len(cluster.handle.object_events) == 2, "made again: recorded again"


def test_a_bad_tree_gets_one_event_per_quota_and_problem_across_cycles() -> None:
    orphan = elastic_quota(
        "a", min_={"cpu": "1"}, max_={"cpu": "4"}, labels={PARENT_LABEL: "eq-nowhere"}
    )
    not_parent = elastic_quota("p", min_={"cpu": "1"}, max_={"cpu": "4"})
    child = elastic_quota("c", min_={"cpu": "1"}, max_={"cpu": "4"}, labels={PARENT_LABEL: "eq-p"})
    cluster = Cluster([node()], [orphan, not_parent, child])
    for i in range(3):
        pod = make_pod().name(f"p{i}").uid(f"p{i}").namespace("a").req(cpu="1").model()
        cluster.handle.listers.pods.on_add(pod)
        cluster.schedule(pod)
    assert sorted(events(cluster.handle)) == [
        (
            "eq-a",
            "QuotaTreeInvalid",
            (
                "ElasticQuota tree: parent eq-nowhere does not exist: read as top-level;"
                f" create ElasticQuota eq-nowhere or fix the {PARENT_LABEL} label"
            ),
        ),
        (
            "eq-c",
            "QuotaTreeInvalid",
            (
                "ElasticQuota tree: parent p/eq-p is not a parent quota: read as top-level;"
                f' label p/eq-p {IS_PARENT_LABEL}="true"'
            ),
        ),
    ]
    assert all(e.event_type == "Warning" for e in cluster.handle.object_events)


def test_a_standby_records_nothing_and_records_it_on_its_first_cycle_as_leader() -> None:
    handle = FakeHandle(leading=False)
    problems = QuotaProblems(handle)
    quota = ApiObject.from_json(elastic_quota("t1", min_={"cpu": "4"}, max_={"cpu": "2"}))
    assert problems.update("MinExceedsMax", [(quota, "note")], among=(quota.key,))
    assert handle.object_events == []
    problems.flush()
    assert handle.object_events == []
    handle.leading = True
    problems.flush()
    problems.flush()
    assert [e.reason for e in handle.object_events] == ["MinExceedsMax"]


def test_tree_problems_are_forgotten_when_no_quota_uses_a_tree_any_more() -> None:
    orphan = elastic_quota(
        "a", min_={"cpu": "4"}, max_={"cpu": "4"}, labels={PARENT_LABEL: "eq-nowhere"}
    )
    cluster = Cluster([node()], [orphan])
    first = make_pod().name("p0").uid("p0").namespace("a").req(cpu="1").model()
    cluster.handle.listers.pods.on_add(first)
    cluster.schedule(first)
    assert [reason for _, reason, _ in cluster.plugin.problems.current()] == ["QuotaTreeInvalid"]
    plain = elastic_quota("a", min_={"cpu": "4"}, max_={"cpu": "4"}, rv="2")
    change(cluster, orphan, plain)
    second = make_pod().name("p1").uid("p1").namespace("a").req(cpu="1").model()
    cluster.handle.listers.pods.on_add(second)
    cluster.schedule(second)
    assert cluster.plugin.problems.current() == []
    change(cluster, plain, {**orphan, "metadata": {**orphan["metadata"], "resourceVersion": "3"}})
    third = make_pod().name("p2").uid("p2").namespace("a").req(cpu="1").model()
    cluster.handle.listers.pods.on_add(third)
    cluster.schedule(third)
    assert [e.reason for e in cluster.handle.object_events] == ["QuotaTreeInvalid"] * 2
