"""Parity with kube-scheduler v1.37.2 for pods resized in place (InPlacePodVerticalScaling).

Each case binds pods to a node and writes their status as the kubelet would after an
in-place resize (`containerStatuses[].allocatedResources` and `.resources.requests`,
`status.allocatedResources` / `status.resources` for pod-level resources, the
`PodResizePending` condition), then a pending pod that fits on that node or not depending on
how the resized pods are counted: the larger of spec and what the node admitted, the spec
left out when the resize is infeasible (`resource.PodRequests` with status resources). The
real kube-scheduler places its copy first (the table is checked against it), the copy is
deleted, then kubesched places its own; both must bind, or both must report the same
FailedScheduling message, preemption verdict included.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, wait_for
from tests.e2e.harness.kubesched import KubeschedProcess, start_kubesched
from tests.e2e.harness.parity import Outcome, traceback_free, wait_outcome

SCHEDULER = "resize-parity"
DEFAULT = "default-scheduler"
NODE_CPU = "4"
NO_ROOM = (
    "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
    "1 No preemption victims found for incoming pod."
)


@dataclass(frozen=True)
class Resized:
    """A bound pod: its spec's cpu requests and the status the kubelet reports."""

    cpu: str
    allocated: str = ""
    actuated: str = ""
    reason: str = ""
    """`PodResizePending` reason: "Deferred", "Infeasible" or "" (no condition)."""
    sidecar: tuple[str, str] = ("", "")
    """A sidecar's spec cpu and allocated cpu (its status in initContainerStatuses)."""
    pod_level: tuple[str, str] = ("", "")
    """Pod-level `spec.resources.requests.cpu` and `status.allocatedResources.cpu` (also
    `status.resources.requests.cpu`)."""


@dataclass(frozen=True)
class Case:
    id: str
    existing: Resized
    fits: bool
    pending_cpu: str = "2"
    extra: dict[str, Any] = field(default_factory=dict)


CASES = [
    # spec lowered to 1, the node still holds 3: by the spec the pod would fit
    Case("downsize-not-admitted", Resized("1", allocated="3", actuated="3"), fits=False),
    # allocated down to 1, the cgroups still at 3
    Case("downsize-not-actuated", Resized("1", allocated="1", actuated="3"), fits=False),
    # spec raised to 3, the node admitted 1 so far: the spec counts
    Case("upsize-in-progress", Resized("3", allocated="1", actuated="1"), fits=False),
    Case("upsize-deferred", Resized("3", allocated="1", actuated="1", reason="Deferred"), False),
    # an infeasible upsize: only what the node admitted counts; by the spec it would not fit
    Case("upsize-infeasible", Resized("3", allocated="1", actuated="1", reason="Infeasible"), True),
    Case("sidecar-upsized", Resized("500m", sidecar=("500m", "2500m")), fits=False),
    Case("pod-level-upsized", Resized("500m", pod_level=("1", "3")), fits=False),
    Case(
        "pod-level-infeasible",
        Resized("500m", pod_level=("3", "1"), reason="Infeasible"),
        fits=True,
    ),
]


@pytest.fixture(scope="module")
def resize_scheduler(
    local_cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[KubeschedProcess]:
    workdir: Path = tmp_path_factory.mktemp("resize")
    proc = start_kubesched(
        local_cluster.kubeconfig_path,
        f"--scheduler-name={SCHEDULER}",
        "--leader-elect=false",
        workdir=workdir,
        name="resize",
    )
    try:
        proc.wait_ready()
        yield proc
    finally:
        proc.stop()


@pytest.fixture(autouse=True)
def _report_log(request: pytest.FixtureRequest, resize_scheduler: KubeschedProcess) -> None:
    request.node.kubesched_processes = [resize_scheduler]


def bound_pod(spec: Resized, *, name: str, namespace: str, node: str) -> dict[str, Any]:
    builder = make_pod().name(name).namespace(namespace).node(node).req(cpu=spec.cpu)
    if spec.sidecar[0]:
        builder.init_container("side", requests={"cpu": spec.sidecar[0]}, sidecar=True)
    if spec.pod_level[0]:
        builder.pod_req(cpu=spec.pod_level[0])
    obj = builder.obj()
    obj.pop("status", None)
    return obj


def kubelet_status(spec: Resized, pod: dict[str, Any]) -> dict[str, Any]:
    """The status a kubelet writes for the resized pod (the status subresource)."""
    container = pod["spec"]["containers"][0]
    statuses = [_container_status(container, spec.allocated, spec.actuated)]
    status: dict[str, Any] = {
        "phase": "Running",
        "containerStatuses": statuses,
        "conditions": [{"type": "PodScheduled", "status": "True"}],
    }
    if spec.sidecar[0]:
        side = pod["spec"]["initContainers"][0]
        status["initContainerStatuses"] = [_container_status(side, spec.sidecar[1], "")]
    if spec.pod_level[0]:
        status["allocatedResources"] = {"cpu": spec.pod_level[1]}
        status["resources"] = {"requests": {"cpu": spec.pod_level[1]}}
    if spec.reason:
        status["conditions"].append(
            {"type": "PodResizePending", "status": "True", "reason": spec.reason}
        )
    return status


def _container_status(container: dict[str, Any], allocated: str, actuated: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": container["name"],
        "image": container["image"],
        "imageID": "",
        "ready": True,
        "restartCount": 0,
        "started": True,
        "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}},
    }
    if allocated:
        entry["allocatedResources"] = {"cpu": allocated}
    if actuated:
        entry["resources"] = {"requests": {"cpu": actuated}}
    return entry


def place(api: ApiClient, namespace: str, name: str, cpu: str, scheduler: str) -> Outcome:
    pod = make_pod().name(name).namespace(namespace).scheduler(scheduler).req(cpu=cpu).obj()
    api.create(pod)
    return wait_outcome(api, namespace, name, nodes=1)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_resized_pods_are_counted_as_kube_scheduler_counts_them(
    case: Case, api: ApiClient, namespace: str, resize_scheduler: KubeschedProcess
) -> None:
    node = f"resize-{case.id}"
    api.create(make_node().name(node).capacity(cpu=NODE_CPU, memory="8Gi").obj())
    existing = api.create(bound_pod(case.existing, name="resized", namespace=namespace, node=node))
    api.patch(
        "Pod",
        "resized",
        {"status": kubelet_status(case.existing, existing)},
        namespace=namespace,
        subresource="status",
    )

    kube = place(api, namespace, "by-kube-scheduler", case.pending_cpu, DEFAULT)
    api.delete("Pod", "by-kube-scheduler", namespace=namespace, grace_period=0)
    wait_for(
        lambda: api.get_or_none("Pod", "by-kube-scheduler", namespace=namespace) is None,
        timeout=10,
        message="kube-scheduler's pod is gone",
    )
    ours = place(api, namespace, "by-kubesched", case.pending_cpu, SCHEDULER)
    # The spec-based overcommit check after each test would flag the infeasible cases,
    # where the node holds less than the resized pod's spec says: remove the pods first.
    api.delete_all("Pod", namespace=namespace)

    expected = "bound" if case.fits else f"unschedulable: {NO_ROOM!r}"
    assert kube.bound == case.fits, f"kube-scheduler: {kube.describe()}, table: {expected}"
    if not case.fits:
        assert kube.full_message == NO_ROOM, f"kube-scheduler: {kube.full_message!r}"
    assert ours.bound == kube.bound, (
        f"kubesched: {ours.describe()}, kube-scheduler: {kube.describe()}"
    )
    assert ours.full_message == kube.full_message, (
        f"FailedScheduling differs:\n  kube-scheduler: {kube.full_message!r}\n"
        f"  kubesched:      {ours.full_message!r}"
    )
    assert traceback_free(resize_scheduler.log()), "kubesched logged a traceback"
