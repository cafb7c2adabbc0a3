"""A native gang queued as one unit (kube-scheduler v1.37.2, `GenericWorkload`), kubesched
against the gated kube-scheduler of `test_gang_native` on the same cluster.

A gang that does not fit is not parked until a cluster event: its members come back from
the cycle together and the group waits out its own backoff (1, 2, 4, 8 s ... ) before it is
tried again, whatever happens meanwhile. So within the same 14 seconds both schedulers try
the gang the same number of times (`scheduler_podgroup_schedule_attempts_total`), and a node
added meanwhile is used at the group's next attempt, by both.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from prometheus_client.parser import text_string_to_metric_families

from kubesched.localcluster import LocalCluster
from tests.e2e.harness import ApiClient, wait_for
from tests.e2e.test_gang_native import (
    ORACLE,
    OURS,
    _bound,
    _condition,
    _group,
    _members,
    _nodes,
    _seen_nodes,
    _wait_gangs_scheduled,
    both,
    oracle,
)
from tests.e2e.test_serving import https_get

__all__ = ["both", "oracle"]  # the fixtures, shared with test_gang_native

FAMILY = "scheduler_podgroup_schedule_attempts"


@pytest.fixture
def attempts(
    local_cluster: LocalCluster, oracle: int, request: pytest.FixtureRequest
) -> Callable[[], dict[str, float]]:
    """Each scheduler's unschedulable pod-group attempts (its profile's counter)."""

    def read() -> dict[str, float]:
        token = local_cluster.admin_token
        (ours_proc,) = request.node.kubesched_processes
        found = {}
        for scheduler, port in ((ORACLE, oracle), (OURS, ours_proc.port)):
            text = https_get(port, "/metrics", token)[1]
            found[scheduler] = sum(
                sample.value
                for family in text_string_to_metric_families(text)
                if family.name == FAMILY
                for sample in family.samples
                if sample.labels.get("profile") == scheduler
                and sample.labels.get("result") == "unschedulable"
            )
        return found

    return read


def test_a_gang_that_does_not_fit_is_retried_on_its_own_backoff(
    api: ApiClient, both: dict[str, str], attempts: Callable[[], dict[str, float]]
) -> None:
    for scheduler in both:
        _nodes(api, scheduler, 1)  # room for 2 of the 3 members (1 cpu each, 2 cpu)
    _seen_nodes(api, both, 2)
    for scheduler, ns in both.items():
        _group(api, ns, "unit", 3)
        _members(api, scheduler, ns, "unit", 3)
    first = {
        s: wait_for(lambda ns=ns: _condition(api, ns, "unit"), message=f"{s}'s condition")
        for s, ns in both.items()
    }
    ours = first[OURS]
    assert ours == first[ORACLE]
    assert ours is not None
    assert ours[:2] == ("False", "Unschedulable")
    # Tried at about 0, 2, 5 and 10 s (1, 2 and 4 s backoffs, each ending on a whole
    # second and left at the next one); the next try is at about 19 s.
    time.sleep(14)
    counts = attempts()
    assert counts[OURS] == counts[ORACLE] == 4, counts
    assert {s: _bound(api, ns) for s, ns in both.items()} == {ORACLE: 0, OURS: 0}
    for scheduler in both:
        _nodes(api, scheduler, 1, first=1)
    time.sleep(2)  # a node event does not move a backing-off gang, for either
    assert {s: _bound(api, ns) for s, ns in both.items()} == {ORACLE: 0, OURS: 0}
    _wait_gangs_scheduled(api, both, "unit", size=3, timeout=20)
