"""scheduler_perf's `volumes/` test cases with PersistentVolumes (v1.37):
SchedulingInTreePVs, SchedulingMigratedInTreePVs, SchedulingCSIPVs and PreemptionPVs. Each
pod mounts its own claim `pvc-<i>`, pre-bound both ways to its own PersistentVolume
(`templates_volumes`); SchedulingCSIPVs' and SchedulingMigratedInTreePVs' nodes have a
CSINode and node allocatable for 39 `ebs.csi.aws.com` volumes each, and
SchedulingMigratedInTreePVs' CSINodes list `kubernetes.io/aws-ebs` as migrated: its in-tree
AWS EBS volumes count against the CSI driver's limit, as CSI volumes.

Entries are (name, sizes, build, notes) as `catalogue.Case` takes them. One difference from
upstream, noted in every variant: upstream creates each pod's claim and volume just before
the pod, inside the measured phase (four more API calls a pod, which bound its throughput);
here every claim, volume and CSINode is created before the contender starts
(`Workload.objects`), so that the measured phase is the schedulers' work with volumes.
Their statuses stay as the API server creates them (upstream also writes `Bound` into
them; the volume binding of both schedulers reads a claim's `volumeName` and its
`bind-completed` annotation, not its phase).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kubesched.bench import templates as t
from kubesched.bench import templates_volumes as v
from kubesched.bench.catalogue_shapes import Params, default_nodes
from kubesched.bench.workloads import PodGroup, Workload

Entry = tuple[str, dict[str, Params], Callable[[Params], Workload], dict[str, str]]

THRESHOLDS: dict[str, tuple[str, int]] = {
    "SchedulingInTreePVs": ("5000Nodes_2000Pods", 290),
    "SchedulingCSIPVs": ("5000Nodes_5000Pods", 100),
    "SchedulingMigratedInTreePVs": ("5000Nodes_5000Pods", 100),
}
"""Case -> (upstream's performance variant, its threshold in pods/s); PreemptionPVs has
none."""
NOTE = "claims and volumes created before the contender starts, not in the measured phase"


def _volumes(groups: tuple[PodGroup, ...], *, csi: bool) -> Iterator[tuple[str, dict[str, Any]]]:
    for group in groups:
        for index in range(group.count):
            yield v.claim(group.namespace, index)
            yield v.volume(group.namespace, index, csi=csi)


def _with_volumes(
    initial: t.PodTemplate,
    measured: t.PodTemplate,
    *,
    csi: bool,
    preemption: bool = False,
    migrated: bool = False,
) -> Callable[[Params], Workload]:
    """createNodes [with CSINodes], createPods (initial), createPods (measured), each pod
    with its claim and volume (PreemptionPVs: only the measured ones). `csi`: CSI volumes
    on nodes with CSINodes; `migrated`: in-tree volumes on such nodes, whose CSINodes list
    the AWS EBS plugin as migrated."""

    def build(params: Params) -> Workload:
        nodes, init, measure = params
        groups = (
            PodGroup(initial, init, "namespace-1", "init-"),
            PodGroup(measured, measure, "namespace-2", "pod-"),
        )
        with_volumes = groups[1:] if preemption else groups
        plugins = (v.AWS_EBS_PLUGIN,) if migrated else ()
        csinodes = (
            (v.csinode(f"scheduler-perf-{i}", plugins) for i in range(nodes))
            if csi or migrated
            else ()
        )
        return Workload(
            name="",
            nodes=nodes,
            node_factory=(
                (lambda i: v.csi_node(f"scheduler-perf-{i}"))
                if csi or migrated
                else default_nodes()
            ),
            initial=groups[:1],
            measured=groups[1],
            objects=(*csinodes, *_volumes(with_volumes, csi=csi)),
            ceiling=not preemption,
            priority_classes=((t.HIGH_PRIORITY_CLASS, 10),) if preemption else (),
        )

    return build


_PLAIN = v.with_claim(t.pod_default)
_SIZES_NOTES = {"5": NOTE, "500": NOTE, "5000": NOTE}
_NO_5000 = "upstream has no 500- or 5000-node variant: its 1000Nodes one"

VOLUME_CASES: tuple[Entry, ...] = (
    (
        "SchedulingInTreePVs",
        {"5": (5, 5, 10), "500": (500, 500, 1000), "5000": (5000, 1000, 2000)},
        _with_volumes(_PLAIN, _PLAIN, csi=False),
        _SIZES_NOTES,
    ),
    (
        "SchedulingMigratedInTreePVs",
        {"5": (5, 5, 10), "500": (500, 500, 1000), "5000": (5000, 5000, 5000)},
        _with_volumes(_PLAIN, _PLAIN, csi=False, migrated=True),
        _SIZES_NOTES,
    ),
    (
        "SchedulingCSIPVs",
        {"5": (5, 5, 10), "500": (500, 500, 1000), "5000": (5000, 5000, 5000)},
        _with_volumes(_PLAIN, _PLAIN, csi=True),
        _SIZES_NOTES,
    ),
    (
        "PreemptionPVs",
        {"5": (5, 20, 5), "500": (1000, 4000, 1000), "5000": (1000, 4000, 1000)},
        _with_volumes(
            t.pod_low_priority, v.with_claim(t.pod_high_priority), csi=False, preemption=True
        ),
        {"5": NOTE, "500": f"{_NO_5000}; {NOTE}", "5000": f"{_NO_5000}; {NOTE}"},
    ),
)
