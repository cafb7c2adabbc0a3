"""Gang scheduling with Coscheduling (scheduler-plugins' PodGroup CRD) on the real control
plane: all or nothing, every member says why, the whole group rejected on timeout, two gangs
never deadlock, fail-over while members wait at Permit, kube-scheduler's pods unaffected.

The CRD is the one `kubesched manifests --with-crds` prints; nodes are plain API objects.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.plugins.coscheduling import POD_GROUP_LABEL
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, unschedulable_message, wait_for
from tests.e2e.harness.pod_group_crd import kubesched_pod_group_crd_in_place

SCHEDULER = "gang-scheduler"
PG_PATH = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{ns}/podgroups"
ELECTION = (
    "--leader-elect-lease-duration=4s",
    "--leader-elect-renew-deadline=3s",
    "--leader-elect-retry-period=1s",
)


@pytest.fixture(scope="module")
def podgroup_crd(api: ApiClient) -> None:
    """kubesched's PodGroup CRD installed (and served) once for this module's tests, in place
    of scheduler-plugins' pinned one if a module before installed that."""
    kubesched_pod_group_crd_in_place(api)


def _config(tmp_path: Path, namespace: str, kubeconfig: Path) -> str:
    """A profile with Coscheduling at every point it implements (QueueSort replaces
    PrioritySort), its own Lease in the test's namespace."""
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(kubeconfig)},
        "leaderElection": {
            "leaderElect": True,
            "resourceNamespace": namespace,
            "resourceName": SCHEDULER,
        },
        "profiles": [
            {
                "schedulerName": SCHEDULER,
                "plugins": {
                    "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                    "queueSort": {"disabled": [{"name": "PrioritySort"}]},
                },
                "pluginConfig": [
                    {"name": "Coscheduling", "args": {"permitWaitingTimeSeconds": 30}}
                ],
            }
        ],
    }
    path = tmp_path / "gang.yaml"
    path.write_text(yaml.safe_dump(config))
    return f"--config={path}"


def _nodes(api: ApiClient, *names: str, cpu: str = "2") -> None:
    for name in names:
        api.create(make_node().name(name).capacity(cpu=cpu, pods="20").obj())


def _group(api: ApiClient, ns: str, name: str, min_member: int, **spec: Any) -> None:
    body = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": name},
        "spec": {"minMember": min_member, **spec},
    }
    api.request("POST", PG_PATH.format(ns=ns), body=body)


def _members(
    api: ApiClient, ns: str, group: str, count: int, *, scheduler: str = SCHEDULER, first: int = 0
) -> list[str]:
    names = [f"{group}-{i}" for i in range(first, first + count)]
    for name in names:
        pod = make_pod().name(name).scheduler(scheduler).label(POD_GROUP_LABEL, group)
        api.create(pod.req(cpu="1").obj(), namespace=ns)
    return names


def _bound(api: ApiClient, ns: str, group: str) -> int:
    pods = api.list("Pod", namespace=ns, label_selector=f"{POD_GROUP_LABEL}={group}")
    return sum(1 for pod in pods if is_bound(pod))


def _never_partial(api: ApiClient, ns: str, group: str, size: int, seconds: float) -> None:
    """For `seconds`, the group is bound entirely or not at all."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert _bound(api, ns, group) in (0, size), f"{group} partially bound"
        time.sleep(0.3)


def _why(api: ApiClient, ns: str, pod: str) -> str:
    """The pod's PodScheduled=False message, "" while it has none."""
    return unschedulable_message(api.get("Pod", pod, namespace=ns))


@pytest.mark.usefixtures("podgroup_crd")
def test_a_gang_that_does_not_fit_binds_none_until_nodes_are_added(
    kubesched: Any, api: ApiClient, namespace: str, tmp_path: Path, local_cluster: Any
) -> None:
    _nodes(api, "g8-a", "g8-b", "g8-c")
    kubesched(_config(tmp_path, namespace, local_cluster.kubeconfig_path), *ELECTION)
    _group(api, namespace, "train", 8)
    members = _members(api, namespace, "train", 8)
    plain = make_pod().name("plain").obj()  # for kube-scheduler (requests nothing)
    api.create(plain, namespace=namespace)
    for pod in members:
        wait_for(lambda pod=pod: _why(api, namespace, pod), timeout=20, message=f"{pod} says why")
    wait_for(
        lambda: api.events(namespace, reason="FailedScheduling"),
        until=lambda found: (
            {e.regarding_name for e in found} >= set(members)
            and any("gets rejected due to Pod" in e.note for e in found)
        ),
        message="a FailedScheduling event for every member, one the group's rejection",
    )
    _never_partial(api, namespace, "train", 8, seconds=2)
    assert is_bound(api.get("Pod", "plain", namespace=namespace))  # kube-scheduler unaffected
    _nodes(api, "g8-d")
    # As with scheduler-plugins' registrations (a pod added, the PodGroup added or updated;
    # no node events), members that Coscheduling rejected (at Permit, with the rest of the
    # group) are retried on a change to their group, not on the new node; a member that
    # failed on cpu is retried on the node. Which of the two the last failure was is a
    # matter of timing, so the group is touched too.
    api.request(
        "PATCH",
        PG_PATH.format(ns=namespace) + "/train",
        body={"metadata": {"annotations": {"example.com/room": "added"}}},
        content_type="application/merge-patch+json",
    )
    wait_for(
        lambda: [(p, _why(api, namespace, p)) for p in members],
        until=lambda _: _bound(api, namespace, "train") == 8,
        timeout=20,
        message="all 8 bound",
    )
    status = wait_for(
        lambda: api.request("GET", PG_PATH.format(ns=namespace) + "/train")["status"],
        until=lambda s: s.get("phase") == "Scheduled" and s.get("scheduled") == 8,
        message="PodGroup status Scheduled, 8 scheduled",
    )
    assert status["scheduleStartTime"]


@pytest.mark.usefixtures("podgroup_crd")
def test_a_gang_one_member_short_keeps_the_others_waiting_at_permit(
    kubesched: Any, api: ApiClient, namespace: str, tmp_path: Path, local_cluster: Any
) -> None:
    """podGroupRejectPercentage (default 10): with 1 of 10 members unassigned, PostFilter
    does not reject the nine waiting at Permit; a node added lets the tenth in and all bind."""
    _nodes(api, "g10-a", "g10-b", "g10-c", cpu="3")  # room for 9 of 10
    kubesched(_config(tmp_path, namespace, local_cluster.kubeconfig_path), *ELECTION)
    _group(api, namespace, "big", 10)
    members = _members(api, namespace, "big", 10)
    # Members tried before all ten exist fail PreFilter and are rejected as usual; the one
    # that fits nowhere once nine wait at Permit reports only the nodes' reasons.
    (why,) = wait_for(
        lambda: [m for p in members if "Insufficient cpu" in (m := _why(api, namespace, p))],
        timeout=20,
        message="the member that fits nowhere says why",
    )
    assert "gets rejected" not in why, why
    _never_partial(api, namespace, "big", 10, seconds=2)
    notes = [e.note for e in api.events(namespace, reason="FailedScheduling")]
    assert not [n for n in notes if "optimistic rejection in PostFilter" in n], notes
    _nodes(api, "g10-d", cpu="1")
    wait_for(
        lambda: _bound(api, namespace, "big"),
        until=lambda bound: bound == 10,
        timeout=20,
        message="all 10 bound without a new round at Permit",
    )


@pytest.mark.usefixtures("podgroup_crd")
def test_a_timeout_rejects_the_whole_group_and_frees_its_room(
    kubesched: Any, api: ApiClient, namespace: str, tmp_path: Path, local_cluster: Any
) -> None:
    _nodes(api, "to-a", cpu="2")
    kubesched(_config(tmp_path, namespace, local_cluster.kubeconfig_path), *ELECTION)
    _group(api, namespace, "late", 3, scheduleTimeoutSeconds=3)
    waiting = _members(api, namespace, "late", 2)
    _members(api, namespace, "late", 1, scheduler="nobody", first=2)  # never arrives
    message = "rejected due to timeout after waiting 3s at plugin Coscheduling"
    # The member whose wait times out first rejects the other in its Unreserve (as
    # scheduler-plugins' Coscheduling does), so the other may show that reason instead.
    wait_for(
        lambda: [_why(api, namespace, pod) for pod in waiting],
        until=lambda whys: (
            any(message in why for why in whys)
            and all(message in why or "rejection in Unreserve" in why for why in whys)
        ),
        timeout=15,
        message="both members rejected: one by its timeout",
    )
    assert _bound(api, namespace, "late") == 0
    for pod in waiting:  # the members leave; their room was freed in the cache
        api.delete("Pod", pod, namespace=namespace)
    solo = make_pod().name("solo").scheduler(SCHEDULER).req(cpu="2").obj()
    api.create(solo, namespace=namespace)
    wait_for(lambda: api.get("Pod", "solo", namespace=namespace), until=is_bound, timeout=15)


@pytest.mark.usefixtures("podgroup_crd")
def test_two_gangs_competing_never_deadlock(
    kubesched: Any, api: ApiClient, namespace: str, tmp_path: Path, local_cluster: Any
) -> None:
    _nodes(api, "cg-a", "cg-b")
    kubesched(_config(tmp_path, namespace, local_cluster.kubeconfig_path), *ELECTION)
    _group(api, namespace, "first", 3)
    _group(api, namespace, "second", 3)
    _members(api, namespace, "first", 3)
    _members(api, namespace, "second", 3)
    done = wait_for(
        lambda: (_bound(api, namespace, "first"), _bound(api, namespace, "second")),
        until=lambda counts: 3 in counts,
        timeout=20,
        message="one gang complete",
    )
    waiting = "second" if done[0] == 3 else "first"
    _never_partial(api, namespace, waiting, 3, seconds=3)
    assert _bound(api, namespace, waiting) == 0


@pytest.mark.usefixtures("podgroup_crd")
def test_the_new_leader_places_the_whole_gang_after_a_crash_at_permit(
    kubesched: Any, api: ApiClient, namespace: str, tmp_path: Path, local_cluster: Any
) -> None:
    _nodes(api, "fo-a", "fo-b")
    config = _config(tmp_path, namespace, local_cluster.kubeconfig_path)
    leader = kubesched(config, *ELECTION, name="leader")
    _group(api, namespace, "job", 4)
    _members(api, namespace, "job", 3)
    _members(api, namespace, "job", 1, scheduler="nobody", first=3)
    time.sleep(3)  # the three reach Permit within a few cycles and wait for the fourth
    standby = kubesched(config, *ELECTION, name="standby")
    assert _bound(api, namespace, "job") == 0  # three members wait at Permit
    leader.kill()
    api.delete("Pod", "job-3", namespace=namespace)
    wait_for(
        lambda: api.get_or_none("Pod", "job-3", namespace=namespace), until=lambda p: p is None
    )
    _members(api, namespace, "job", 1, first=3)
    deadline = time.monotonic() + 25
    while _bound(api, namespace, "job") == 0:
        assert time.monotonic() < deadline, standby.tail()
        time.sleep(0.3)
    # An allowed gang's members bind with one request each, a moment apart: once the first
    # is bound, the rest follow within the binding cycles, never left partial.
    wait_for(
        lambda: _bound(api, namespace, "job"),
        until=lambda bound: bound == 4,
        timeout=5,
        message="the whole gang bound once its first member was",
    )
