"""The verification flow of the guides (configure-multiple-schedulers,
custom-scheduler-leader-election), against the real kube-scheduler.

Three pods: `no-annotation` (no schedulerName), `annotation-default-scheduler`
(`default-scheduler`) and `annotation-second-scheduler` (the second scheduler's name). They
are submitted before the second scheduler runs: the first two are placed by kube-scheduler,
the third (and its siblings) stays Pending, untouched, until kubesched starts with the
documents' flags or config file; then all are placed, and each pod's `Scheduled` event names
the scheduler that placed it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import (
    TEST_LABEL,
    ApiClient,
    ApiError,
    assert_stays,
    condition,
    is_bound,
    is_pending_unbound,
    wait_for,
)
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.harness.parity import pod_events, traceback_free, wait_scheduled_by, write_config

DEFAULT = "default-scheduler"
# More pods for the second scheduler, besides pod3 of "Configure Multiple Schedulers".
SIBLINGS = 3


@dataclass(frozen=True)
class Variant:
    id: str
    scheduler: str
    lease_namespace: str
    lease_name: str
    args: tuple[str, ...] = ()
    config: dict[str, Any] | None = None
    """A KubeSchedulerConfiguration's leaderElection + profiles, written to --config."""
    notices: tuple[str, ...] = ()
    """Canonical flag names the one-line alias notices must name."""


VARIANTS = [
    Variant(
        "second-doc-lock-object-flags",
        scheduler="my-scheduler",
        lease_namespace="kube-system",
        lease_name="my-scheduler",
        args=(
            "--leader-elect=true",
            "--scheduler-name=my-scheduler",
            "--lock-object-name=my-scheduler",
            "--lock-object-namespace=kube-system",
        ),
        notices=("--leader-elect-resource-name", "--leader-elect-resource-namespace"),
    ),
    Variant(
        "second-doc-verbatim-placeholders",
        scheduler="my-scheduler",
        lease_namespace="lock-object-namespace",
        lease_name="lock-object-name",
        args=(
            "--scheduler-name=my-scheduler",
            "--leader-elect=true",
            "--lock-object-namespace=lock-object-namespace",
            "--lock-object-name=lock-object-name",
        ),
        notices=("--leader-elect-resource-name", "--leader-elect-resource-namespace"),
    ),
    Variant(
        "first-doc-leader-election-flags",
        scheduler="my-custom-scheduler",
        lease_namespace="custom-scheduler-ns",
        lease_name="my-custom-scheduler",
        args=(
            "--leader-elect=true",
            "--leader-election-lease-duration=15s",
            "--leader-election-renew-deadline=10s",
            "--leader-election-retry-period=2s",
            "--leader-election-resource-name=my-custom-scheduler",
            "--leader-election-resource-namespace=custom-scheduler-ns",
            "--scheduler-name=my-custom-scheduler",
        ),
        notices=(
            "--leader-elect-lease-duration",
            "--leader-elect-renew-deadline",
            "--leader-elect-retry-period",
            "--leader-elect-resource-name",
            "--leader-elect-resource-namespace",
        ),
    ),
    Variant(
        "kube-scheduler-current-flags",
        scheduler="my-scheduler",
        lease_namespace="kube-system",
        lease_name="my-scheduler",
        args=(
            "--leader-elect=true",
            "--leader-elect-lease-duration=15s",
            "--leader-elect-renew-deadline=10s",
            "--leader-elect-retry-period=2s",
            "--leader-elect-resource-lock=leases",
            "--leader-elect-resource-name=my-scheduler",
            "--leader-elect-resource-namespace=kube-system",
            "--scheduler-name=my-scheduler",
        ),
    ),
    Variant(
        "config-file",
        scheduler="my-scheduler",
        lease_namespace="custom-scheduler-ns",
        lease_name="my-custom-scheduler",
        config={
            "leaderElection": {
                "leaderElect": True,
                "resourceNamespace": "custom-scheduler-ns",
                "resourceName": "my-custom-scheduler",
            },
            "profiles": [{"schedulerName": "my-scheduler"}],
        },
    ),
]


def ensure_namespace(api: ApiClient, name: str) -> None:
    """Create a namespace the documents name (removed after the test by the harness)."""
    if name in ("kube-system", "default"):
        return
    body = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": name, "labels": {TEST_LABEL: "true"}},
    }
    try:
        api.create(body)
    except ApiError as error:
        if error.status != 409:
            raise


def documents_pods(namespace: str, scheduler: str) -> list[dict[str, Any]]:
    """pod1.yaml, pod2.yaml and pod3.yaml of configure-multiple-schedulers, plus siblings."""
    pods = [
        make_pod().name("no-annotation").label("name", "multischeduler-example"),
        make_pod()
        .name("annotation-default-scheduler")
        .label("name", "multischeduler-example")
        .scheduler(DEFAULT),
        make_pod()
        .name("annotation-second-scheduler")
        .label("name", "multischeduler-example")
        .scheduler(scheduler),
    ]
    pods += [
        make_pod().name(f"annotation-second-scheduler-{i}").scheduler(scheduler)
        for i in range(SIBLINGS)
    ]
    built = []
    for pod in pods:
        obj = pod.namespace(namespace).obj()
        if not obj["spec"].get("schedulerName"):
            obj["spec"].pop("schedulerName", None)
        built.append(obj)
    return built


def lease_holder(api: ApiClient, namespace: str, name: str) -> str:
    lease = api.get_or_none("Lease", name, namespace=namespace)
    return str(((lease or {}).get("spec") or {}).get("holderIdentity") or "")


def assert_untouched_before_start(
    api: ApiClient, namespace: str, pods: dict[str, dict[str, Any]], names: list[str]
) -> None:
    """The pods stay Pending, with no PodScheduled condition and no scheduling events."""

    def untouched(_: object = None) -> bool:
        for name in names:
            pod = api.get("Pod", name, namespace=namespace)
            if not is_pending_unbound(pod) or condition(pod, "PodScheduled") is not None:
                return False
        return True

    assert_stays(untouched, holds=bool, duration=2, message="pods stay Pending, untouched")
    for name in names:
        for reason in ("Scheduled", "FailedScheduling"):
            new, core = pod_events(api, namespace, pods[name], reason)
            assert not new, f"{name} has {reason} events before its scheduler runs: {new}"
            assert not core, f"{name} has {reason} core events before its scheduler runs: {core}"


def wait_bound(api: ApiClient, namespace: str, names: list[str], who: str) -> None:
    for name in names:
        wait_for(
            lambda name=name: api.get("Pod", name, namespace=namespace),
            until=is_bound,
            timeout=15,
            message=f"{who} binds {name}",
        )


def assert_scheduled_events(
    api: ApiClient, namespace: str, pods: dict[str, dict[str, Any]], expected: dict[str, str]
) -> None:
    """Each pod's Scheduled event (both event APIs) names the expected scheduler."""
    for name, pod in pods.items():
        schedulers = wait_scheduled_by(api, namespace, pod)
        assert schedulers == {expected[name]}, (
            f"{name}: Scheduled event names {schedulers}, expected {expected[name]!r}"
        )
        new, _core = pod_events(api, namespace, pod, "Scheduled")
        node = api.get("Pod", name, namespace=namespace)["spec"]["nodeName"]
        assert new[0].note == f"Successfully assigned {namespace}/{name} to {node}"
        assert new[0].action == "Binding"
        assert new[0].type == "Normal"


@pytest.mark.parametrize("variant", VARIANTS, ids=[v.id for v in VARIANTS])
def test_three_pods_each_placed_by_its_scheduler(
    variant: Variant,
    *,
    kubesched: StartKubesched,
    api: ApiClient,
    namespace: str,
    local_cluster: LocalCluster,
    tmp_path: Path,
) -> None:
    ensure_namespace(api, variant.lease_namespace)
    api.delete("Lease", variant.lease_name, namespace=variant.lease_namespace)
    default_holder = lease_holder(api, "kube-system", "kube-scheduler")
    assert default_holder, "kube-scheduler holds kube-system/kube-scheduler"
    api.create(make_node().name("docs-node-1").obj())
    api.create(make_node().name("docs-node-2").obj())

    # The pods are submitted before the second scheduler runs.
    pods = {
        p["metadata"]["name"]: api.create(p) for p in documents_pods(namespace, variant.scheduler)
    }
    by_default = ["no-annotation", "annotation-default-scheduler"]
    by_second = [name for name in pods if name not in by_default]
    assert pods["no-annotation"]["spec"]["schedulerName"] == DEFAULT  # defaulted by the API
    wait_bound(api, namespace, by_default, "kube-scheduler")
    assert_untouched_before_start(api, namespace, pods, by_second)

    args = variant.args
    if variant.config is not None:
        config = write_config(
            tmp_path / "my-scheduler-config.yaml",
            kubeconfig=local_cluster.kubeconfig_path,
            profiles=variant.config["profiles"],
            leader_election=variant.config["leaderElection"],
        )
        args = (f"--config={config}",)
    proc = kubesched(*args)

    wait_bound(api, namespace, by_second, variant.scheduler)
    expected = {name: DEFAULT if name in by_default else variant.scheduler for name in pods}
    assert_scheduled_events(api, namespace, pods, expected)

    # Its own Lease, next to kube-scheduler's, which it left alone.
    holder = lease_holder(api, variant.lease_namespace, variant.lease_name)
    assert holder, f"kubesched holds {variant.lease_namespace}/{variant.lease_name}"
    assert holder != default_holder
    assert lease_holder(api, "kube-system", "kube-scheduler") == default_holder

    log = proc.log()
    assert "attempting to acquire leader lease kube-system/kube-scheduler" not in log
    for canonical in variant.notices:
        assert canonical in log, f"no notice naming the canonical flag {canonical}:\n{log}"
    assert traceback_free(log), f"traceback in kubesched's log:\n{log}"

    # A clean hand-over on shutdown: exit 0 and the Lease released.
    assert proc.stop() == 0
    assert lease_holder(api, variant.lease_namespace, variant.lease_name) == ""
    api.delete("Lease", variant.lease_name, namespace=variant.lease_namespace)
