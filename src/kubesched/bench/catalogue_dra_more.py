"""The test cases of scheduler_perf's DRA subfolders (kubernetes/kubernetes
`test/integration/scheduler_perf/dra/<sub>/performance-config.yaml`, v1.37) that kubesched
supports, with upstream's feature gates on in every component (`bench.gates`):

    FirstAvailable              prioritizedlist: SchedulingWithResourceClaimTemplate whose
                                request's first subrequest asks for a class no device matches
    DeviceTaintToleration       devicetaints: a DeviceTaintRule taints every device; the
                                claims tolerate it
    ExtendedResource            extendedresource: pods request `example.com/gpu-<i % 25>`, an
                                extended resource that DeviceClass `test-class-<i>` provides
    ExtendedResourceScoring     extendedresource/scoring: every class provides `example.com/gpu`,
                                which every pod requests; NodeResourcesFit scores it
                                (LeastAllocated over cpu, memory and example.com/gpu)
    Partitionable               partitionabledevices: two devices a node sharing four
                                counters, a claim takes both (one pod a node)
    PartitionableBacktracking   eight devices sharing cpu and memory counters, a claim takes
                                seven; only devices 2-8 fit the memory
    ConsumableCapacity          consumablecapacity: four shareable devices of 10G bandwidth a
                                node, a claim takes 2500M of two distinct ones (eight pods a node)
    SharedPodGroupResourceClaim[Template]
                                workloadresourceclaims: the members of each PodGroup share its
                                claim (by name, or made from a template for the PodGroup)

Params are (nodesWithDRA, initClaims / initPods / podGroups, measurePods) as each case
reads them. Sizes: `5` is upstream's `fast` variant (one node with the driver, one without);
`500` its 500-node performance variant (`half_500nodes`, `Explicit_25classes_5000pods_500nodes`),
or, where it has none, its largest; `5000` its 1000-node one, or the 500-node one on 5000
nodes (noted). The steady-state variants keep 10 pods pending for 10 s, as upstream's.

Not here: SchedulingWithResourceClaimTemplateListAttributes (DRAListTypeAttributes) and
CompatibilityGroups (DRADeviceCompatibilityGroups) need alpha gates that kubesched's
allocator does not implement (upstream's experimental allocator variant does).

`THRESHOLDS`: upstream's `threshold` (pods/s, Average) where its performance variant has one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kubesched.bench import dra_templates as d
from kubesched.bench import dra_templates_more as m
from kubesched.bench.catalogue_dra import CLASSES, NO_5000, SLICES, STEADY_SECONDS
from kubesched.bench.catalogue_shapes import Params
from kubesched.bench.templates import node_default
from kubesched.bench.templates_podgroups import pod_group_path
from kubesched.bench.workloads import DraSetup, PodGroup, Workload

Objects = Iterator[tuple[str, dict[str, Any]]]
DRA = "DynamicResourceAllocation"
FAST_CLASSES = 10
"""ExtendedResource's classes in its fast variant."""
THRESHOLDS: dict[str, tuple[str, int]] = {
    "ExtendedResource": ("Explicit_25classes_5000pods_500nodes", 120),
    "ExtendedResourceScoring": ("5000pods_500nodes", 70),
}
SCORING_CONFIG = (
    {
        "name": "NodeResourcesFit",
        "args": {
            "scoringStrategy": {
                "type": "LeastAllocated",
                "resources": [
                    {"name": name, "weight": 1} for name in ("cpu", "memory", "example.com/gpu")
                ],
            }
        },
    },
)
"""`extendedresource/scoring/scheduler-config.yaml`'s pluginConfig."""


def _claims(namespace: str) -> str:
    return f"/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaims"


def _templates(namespace: str) -> str:
    return f"/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaimtemplates"


def _nodes(without: int) -> Callable[[int], dict[str, Any]]:
    """`without` node-default nodes, then the nodes of the test driver."""

    def factory(index: int) -> dict[str, Any]:
        if index < without:
            return node_default(f"scheduler-perf-{index}", {})
        return d.node_with_dra_test_driver(index - without)

    return factory


def _without(dra_nodes: int) -> int:
    """Upstream's `fast` variants (one node with the driver) have one node without it."""
    return 1 if dra_nodes == 1 else 0


def _workload(
    nodes: int,
    objects: Callable[[], Objects],
    measured: PodGroup,
    gates: tuple[str, ...],
    **more: Any,
) -> Workload:
    return Workload(
        name="",
        nodes=_without(nodes) + nodes,
        node_factory=_nodes(_without(nodes)),
        namespaces=("init", "test"),
        initial=more.pop("initial", ()),
        measured=measured,
        dra=DraSetup(objects, allocate=more.pop("allocate", "")),
        feature_gates=(DRA, *gates),
        **more,
    )


def _basic_slices(nodes: int) -> Objects:
    for index in range(nodes):
        yield SLICES, d.resourceslice_basic_devices(index, devices=10)


def _measured(count: int) -> PodGroup:
    return PodGroup(d.pod_with_claim_template, count, "test", "test-dra-")


def first_available(params: Params) -> Workload:
    nodes, init_claims, measure = params

    def objects() -> Objects:
        yield from _basic_slices(nodes)
        yield CLASSES, d.deviceclass()
        yield CLASSES, m.deviceclass_no_devices()
        for index in range(init_claims):
            yield _claims("init"), d.resourceclaim(index, "init")
        yield _templates("test"), m.resourceclaimtemplate_first_available("test")

    allocate = "init" if init_claims else ""
    return _workload(nodes, objects, _measured(measure), ("DRAPrioritizedList",), allocate=allocate)


def device_taint_toleration(params: Params) -> Workload:
    nodes, init_pods, measure = params

    def objects() -> Objects:
        yield "/apis/resource.k8s.io/v1/devicetaintrules", m.devicetaintrule()
        yield from _basic_slices(nodes)
        yield CLASSES, d.deviceclass()
        for namespace in ("init", "test"):
            yield _templates(namespace), m.resourceclaimtemplate_toleration(namespace)

    initial = (PodGroup(d.pod_with_claim_template, init_pods, "init", "test-dra-"),)
    return _workload(nodes, objects, _measured(measure), ("DRADeviceTaints",), initial=initial)


def extended_resource(classes: int, *, explicit: bool) -> Callable[[Params], Workload]:
    """ExtendedResource with `classes` DeviceClasses (10 in the fast variant), each naming
    its extended resource (`explicit`: `example.com/gpu-<i>`) or not (the implicit
    `deviceclass.resource.kubernetes.io/test-class-<i>`)."""
    resource = "example.com/gpu" if explicit else "deviceclass.resource.kubernetes.io/test-class"

    def build(params: Params) -> Workload:
        nodes, init_pods, measure = params
        classes_here = FAST_CLASSES if nodes == 1 else classes
        template = m.pod_with_extended_resource(resource, classes_here)

        def objects() -> Objects:
            yield from _basic_slices(nodes)
            for index in range(classes_here):
                yield CLASSES, m.deviceclass_extended_resource(index, explicit=explicit)

        return _workload(
            nodes,
            objects,
            PodGroup(template, measure, "test", "test-dra-"),
            ("DRAExtendedResource",),
            initial=(PodGroup(template, init_pods, "init", "test-dra-"),),
        )

    return build


def extended_resource_scoring(params: Params) -> Workload:
    """ExtendedResourceScoring: the fast variant (3 nodes with the driver, 1 without, 2
    classes) below 10 nodes, else 20 classes (its 500-node variant)."""
    nodes, init_pods, measure = params
    fast = nodes < 10
    classes = 2 if fast else 20

    def objects() -> Objects:
        yield from _basic_slices(nodes)
        for index in range(classes):
            yield CLASSES, m.deviceclass_extended_resource_scoring(index)

    template = m.pod_with_extended_resource_scoring
    return Workload(
        name="",
        nodes=nodes + int(fast),
        node_factory=_nodes(int(fast)),
        namespaces=("init", "test"),
        initial=(PodGroup(template, init_pods, "init", "scoring-test-pod-"),),
        measured=PodGroup(template, measure, "test", "scoring-test-pod-"),
        dra=DraSetup(objects),
        feature_gates=(DRA, "DRAExtendedResource"),
        plugin_config=SCORING_CONFIG,
    )


def partitionable(*, backtracking: bool) -> Callable[[Params], Workload]:
    """Partitionable (two devices a claim) or PartitionableBacktracking (seven)."""
    count = 7 if backtracking else 2
    slices = m.resourceslices_backtracking if backtracking else m.resourceslices_partitionable

    def build(params: Params) -> Workload:
        nodes, init_claims, measure = params

        def objects() -> Objects:
            for index in range(nodes):
                for body in slices(index):
                    yield SLICES, body
            yield CLASSES, d.deviceclass()
            for index in range(init_claims):
                yield _claims("init"), m.resourceclaim_count(index, "init", count)
            yield _templates("test"), m.resourceclaimtemplate_count("test", count)

        return _workload(
            nodes,
            objects,
            _measured(measure),
            ("DRAPartitionableDevices",),
            allocate="init" if init_claims else "",
            steady=0.0 if nodes == 1 else STEADY_SECONDS,
        )

    return build


def consumable_capacity(params: Params) -> Workload:
    nodes, init_pods, measure = params

    def objects() -> Objects:
        for index in range(nodes):
            yield SLICES, m.resourceslice_consumablecapacity(index)
        yield CLASSES, m.deviceclass_consumablecapacity()
        for namespace in ("test", "init"):
            yield _templates(namespace), m.resourceclaimtemplate_consumablecapacity(namespace)

    return _workload(
        nodes,
        objects,
        _measured(measure),
        ("DRAConsumableCapacity",),
        initial=(PodGroup(d.pod_with_claim_template, init_pods, "init", "test-dra-"),),
        steady=0.0 if nodes == 1 else STEADY_SECONDS,
    )


def shared_podgroup_claim(*, template: bool) -> Callable[[Params], Workload]:
    """SharedPodGroupResourceClaim (`template` False: claims `test-claim-<g>`) or
    ...Template (each PodGroup's claim made from `test-claim-template`)."""

    def build(params: Params) -> Workload:
        nodes, groups, measure = params

        def objects() -> Objects:
            for index in range(groups):
                yield SLICES, m.resourceslice_podgroup(index)
            yield CLASSES, d.deviceclass()
            if template:
                for namespace in ("init", "test"):
                    yield _templates(namespace), d.resourceclaimtemplate(namespace)
            else:
                for index in range(groups):
                    yield _claims("test"), d.resourceclaim(index, "test")

        podgroups = tuple(
            (pod_group_path("test"), m.podgroup_with_claim(i, "test", template=template))
            for i in range(groups)
        )
        pods = PodGroup(m.pod_in_podgroup(groups, template=template), measure, "test", "test-dra-")
        return Workload(
            name="",
            nodes=nodes,
            node_factory=_nodes(0),
            namespaces=("init", "test"),
            initial=(),
            measured=pods,
            dra=DraSetup(objects),
            objects=podgroups,
            feature_gates=(DRA, "DRAWorkloadResourceClaims", "GenericWorkload"),
        )

    return build


_FAST = "upstream's fast variant (1 node with the driver, 1 without)"
_ONLY_FAST = "upstream has only its fast variant (1 node with the driver, 1 without)"
_FAST_SIZES: dict[str, Params] = {"5": (1, 0, 10), "500": (1, 0, 10), "5000": (1, 0, 10)}
_FAST_NOTES = {"5": _FAST, "500": _ONLY_FAST, "5000": _ONLY_FAST}


def _steady_sizes(half_500: int, half_1000: int) -> dict[str, Params]:
    """fast, half_500nodes, half_1000nodes."""
    return {"5": (1, 0, 1), "500": (500, half_500, 10), "5000": (1000, half_1000, 10)}


_STEADY_NOTES = {
    "5": _FAST,
    "500": "upstream's half_500nodes (steady state)",
    "5000": "upstream has no 5000-node variant: its half_1000nodes (steady state)",
}
_PODGROUP_SIZES: dict[str, Params] = {
    "5": (1, 10, 10),
    "500": (50, 100, 5000),
    "5000": (50, 100, 5000),
}
_PODGROUP_NOTES = {
    "5": "upstream's fast variant (1 node, 10 PodGroups of one pod)",
    "500": "upstream has no 500-node variant: its 100podgroups_5000pods (50 nodes)",
    "5000": "upstream has no 5000-node variant: its 100podgroups_5000pods (50 nodes)",
}

DRA_MORE_CASES: tuple[
    tuple[str, dict[str, Params], Callable[[Params], Workload], dict[str, str]], ...
] = (
    ("FirstAvailable", _FAST_SIZES, first_available, _FAST_NOTES),
    ("DeviceTaintToleration", _FAST_SIZES, device_taint_toleration, _FAST_NOTES),
    (
        "ExtendedResource",
        {"5": (1, 0, 10), "500": (500, 2500, 2500), "5000": (5000, 2500, 2500)},
        extended_resource(25, explicit=True),
        {
            "5": f"{_FAST}, 10 classes",
            "500": "upstream's Explicit_25classes_5000pods_500nodes",
            "5000": NO_5000,
        },
    ),
    (
        "ExtendedResourceScoring",
        {"5": (3, 0, 10), "500": (500, 0, 5000), "5000": (5000, 0, 5000)},
        extended_resource_scoring,
        {
            "5": "upstream's fast variant (3 nodes with the driver, 1 without, 2 classes)",
            "500": "upstream's 5000pods_500nodes (20 classes)",
            "5000": NO_5000,
        },
    ),
    ("Partitionable", _steady_sizes(250, 500), partitionable(backtracking=False), _STEADY_NOTES),
    (
        "PartitionableBacktracking",
        _steady_sizes(250, 500),
        partitionable(backtracking=True),
        _STEADY_NOTES,
    ),
    ("ConsumableCapacity", _steady_sizes(2000, 4000), consumable_capacity, _STEADY_NOTES),
    (
        "SharedPodGroupResourceClaim",
        _PODGROUP_SIZES,
        shared_podgroup_claim(template=False),
        _PODGROUP_NOTES,
    ),
    (
        "SharedPodGroupResourceClaimTemplate",
        _PODGROUP_SIZES,
        shared_podgroup_claim(template=True),
        _PODGROUP_NOTES,
    ),
)
"""(name, sizes, build, notes) as `catalogue.Case` takes them."""
