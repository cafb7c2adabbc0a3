"""Coscheduling's gang preemption (`gangPreemption: true`, kubesched's own: scheduler-plugins
has none) on the real control plane: a high-priority gang that fits only by evicting a
low-priority gang evicts all of the low gang (DisruptionTarget, deletion, `Preempted` events)
and binds all its members once the test, playing the kubelet, finishes the victims'
termination; a gang that cannot fit all its minMember members evicts nobody.

The profile: Coscheduling at every point, DefaultPreemption off at postFilter (Coscheduling
preempts for every pod of the profile).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.plugins.coscheduling import POD_GROUP_LABEL
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, assert_stays, is_bound, unschedulable_message, wait_for
from tests.e2e.harness.priority_classes import priority_classes
from tests.e2e.test_gang_coscheduling import ELECTION, PG_PATH, podgroup_crd

__all__ = ["podgroup_crd"]  # the fixture, shared with test_gang_coscheduling

SCHEDULER = "gang-preempting-scheduler"
LOW, HIGH = 10, 1000


@pytest.fixture
def classes(api: ApiClient) -> Iterator[tuple[str, ...]]:
    with priority_classes(api, "cosched", (("low", LOW), ("high", HIGH))) as names:
        yield names


@pytest.fixture
def started(kubesched: Any, tmp_path: Path, namespace: str, local_cluster: Any) -> str:
    """kubesched running the profile; its namespace."""
    _start(kubesched, tmp_path, namespace, local_cluster.kubeconfig_path)
    return namespace


def _start(kubesched: Any, tmp_path: Path, namespace: str, kubeconfig: Path) -> None:
    off = {"disabled": [{"name": "DefaultPreemption"}]}
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
                    "postFilter": off,
                },
                "pluginConfig": [{"name": "Coscheduling", "args": {"gangPreemption": True}}],
            }
        ],
    }
    path = tmp_path / "gang-preemption.yaml"
    path.write_text(yaml.safe_dump(config))
    kubesched(f"--config={path}", *ELECTION)


def _gang(api: ApiClient, ns: str, name: str, *, size: int, min_member: int, klass: str) -> None:
    group = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": name},
        "spec": {"minMember": min_member},
    }
    api.request("POST", PG_PATH.format(ns=ns), body=group)
    for i in range(size):
        body = make_pod().name(f"{name}-{i}").scheduler(SCHEDULER).label(POD_GROUP_LABEL, name)
        pod = body.req(cpu="2").obj()
        del pod["metadata"]["uid"]
        pod["spec"]["priorityClassName"] = klass
        api.create(pod, namespace=ns)


def _pods(api: ApiClient, ns: str, group: str) -> list[dict[str, Any]]:
    return api.list("Pod", namespace=ns, label_selector=f"{POD_GROUP_LABEL}={group}")


def _deleting(pods: list[dict[str, Any]]) -> list[str]:
    return sorted(p["metadata"]["name"] for p in pods if p["metadata"].get("deletionTimestamp"))


def _low_gang_running(api: ApiClient, ns: str, klass: str) -> None:
    for name in ("ga", "gb"):
        api.create(make_node().name(name).capacity(cpu="2", pods="20").obj())
    _gang(api, ns, "low", size=2, min_member=2, klass=klass)
    wait_for(
        lambda: _pods(api, ns, "low"),
        until=lambda pods: len(pods) == 2 and all(is_bound(p) for p in pods),
        message="the low gang bound",
    )


@pytest.mark.usefixtures("podgroup_crd")
def test_a_gang_evicts_a_lower_gang_whole_and_binds(
    api: ApiClient, started: str, classes: tuple[str, str]
) -> None:
    namespace, (low, high) = started, classes
    _low_gang_running(api, namespace, low)
    _gang(api, namespace, "high", size=2, min_member=2, klass=high)
    victims = wait_for(
        lambda: _pods(api, namespace, "low"),
        until=lambda pods: len(_deleting(pods)) == 2,
        message="both pods of the low gang evicted",
    )
    assert all(is_bound(p) for p in victims)  # terminating where they ran (no kubelet here)
    preempted = wait_for(
        lambda: api.events(namespace, reason="Preempted"),
        until=lambda found: {e.regarding_name for e in found} >= {"low-0", "low-1"},
        message="a Preempted event for each victim",
    )
    assert all("Preempted by pod" in e.note for e in preempted), [e.note for e in preempted]
    for pod in victims:  # the kubelet's part: the victims stop
        api.delete("Pod", pod["metadata"]["name"], namespace=namespace, grace_period=0)
    wait_for(
        lambda: _pods(api, namespace, "high"),
        until=lambda pods: len(pods) == 2 and all(is_bound(p) for p in pods),
        timeout=30,
        message="the whole high gang bound",
    )


@pytest.mark.usefixtures("podgroup_crd")
def test_a_gang_that_cannot_fit_evicts_nobody(
    api: ApiClient, started: str, classes: tuple[str, str]
) -> None:
    namespace, (low, high) = started, classes
    _low_gang_running(api, namespace, low)
    _gang(api, namespace, "big", size=3, min_member=3, klass=high)  # room for 2 at most
    members = [f"big-{i}" for i in range(3)]
    wait_for(
        lambda: [unschedulable_message(api.get("Pod", p, namespace=namespace)) for p in members],
        until=all,
        message="every member of the big gang says why it waits",
    )
    assert_stays(
        lambda: _pods(api, namespace, "low"),
        holds=lambda pods: not _deleting(pods) and all(is_bound(p) for p in pods),
        duration=3,
        message="the low gang untouched",
    )
    assert not api.events(namespace, reason="Preempted")
    assert not [p for p in _pods(api, namespace, "big") if is_bound(p)]
