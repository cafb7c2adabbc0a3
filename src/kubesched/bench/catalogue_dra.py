"""scheduler_perf's DRA test cases (kubernetes/kubernetes
`test/integration/scheduler_perf/dra/performance-config.yaml`, v1.37) as benchmark
workloads, built from `dra_templates`.

    SchedulingWithResourceClaimTemplate   10 GPUs per node, one claim per pod from a
                                          ResourceClaimTemplate; initClaims allocated
                                          directly first, then the measured pods at once
    .../empty, half, full, selector_empty, match_empty
                                          its steady-state variants (10 s, 10 pods kept
                                          pending): no devices in use, half, all but 10;
                                          a CEL selector; five requests with matchAttribute
    SchedulingWithResourceClaim           2 GPUs per node, claims with fixed names, each
                                          shared by five pods

Params are (nodesWithDRA, initClaims or initPods, measurePods). Upstream names the
steady-state variants `SchedulingWithResourceClaimTemplate/<variant>_500nodes` (they were
`SteadyStateClusterResourceClaimTemplate` before v1.34); here the variant is part of the
case name and `--size` picks the node count. Upstream has no 5000-node variant of any of
these: size `5000` runs 5000 nodes with the 500-node variant's claims and pods (noted).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kubesched.bench import dra_templates as d
from kubesched.bench import templates as t
from kubesched.bench.workloads import DraSetup, PodGroup, Workload

Params = tuple[int, int, int]
STEADY_SECONDS = 10.0
SLICES = "/apis/resource.k8s.io/v1/resourceslices"
CLASSES = "/apis/resource.k8s.io/v1/deviceclasses"
NO_5000 = (
    "upstream has no 5000-node variant: 5000 nodes with its 500-node variant's claims and pods"
)


def _claims(namespace: str) -> str:
    return f"/apis/resource.k8s.io/v1/namespaces/{namespace}/resourceclaims"


def _nodes(without: int) -> Callable[[int], dict[str, Any]]:
    """`without` node-default nodes, then the nodes of the test driver."""

    def factory(index: int) -> dict[str, Any]:
        if index < without:
            return t.node_default(f"scheduler-perf-{index}", {})
        return d.node_with_dra_test_driver(index - without)

    return factory


def _without(dra_nodes: int) -> int:
    """Nodes without the driver: upstream's `fast` variants (the only ones with a single
    node of the driver) have one, the others none."""
    return 1 if dra_nodes == 1 else 0


def _slices(nodes: int, devices: int, pci_roots: int) -> Iterator[tuple[str, dict[str, Any]]]:
    for index in range(nodes):
        yield SLICES, d.resourceslice_basic_devices(index, devices=devices, pci_roots=pci_roots)
    yield CLASSES, d.deviceclass()


def claim_template_case(
    *,
    steady: float = 0.0,
    requests: int = 1,
    selectors: tuple[str, ...] = (),
    match_attribute: str = "",
) -> Callable[[Params], Workload]:
    """SchedulingWithResourceClaimTemplate with one variant's template parameters."""

    def build(params: Params) -> Workload:
        nodes, init_claims, measure = params
        pci_roots = 2

        def objects() -> Iterator[tuple[str, dict[str, Any]]]:
            yield from _slices(nodes, 10, pci_roots)
            for index in range(init_claims):
                yield _claims("init"), d.resourceclaim(index, "init")
            template = d.resourceclaimtemplate(
                "test", requests=requests, selectors=selectors, match_attribute=match_attribute
            )
            yield "/apis/resource.k8s.io/v1/namespaces/test/resourceclaimtemplates", template

        return Workload(
            name="",
            nodes=_without(nodes) + nodes,
            node_factory=_nodes(_without(nodes)),
            namespaces=("init", "test"),
            initial=(),
            measured=PodGroup(d.pod_with_claim_template, measure, "test", "test-dra-"),
            dra=DraSetup(objects, allocate="init" if init_claims else ""),
            steady=steady,
        )

    return build


def claim_ref_case() -> Callable[[Params], Workload]:
    """SchedulingWithResourceClaim: initPods and measurePods, a claim per five pods."""

    def build(params: Params) -> Workload:
        nodes, init_pods, measure = params

        def objects() -> Iterator[tuple[str, dict[str, Any]]]:
            yield from _slices(nodes, 2, 2)
            for namespace, pods in (("init", init_pods), ("test", measure)):
                for index in range(pods // 5):
                    yield _claims(namespace), d.resourceclaim(index, namespace)

        return Workload(
            name="",
            nodes=_without(nodes) + nodes,
            node_factory=_nodes(_without(nodes)),
            namespaces=("init", "test"),
            initial=(PodGroup(d.pod_with_claim_ref, init_pods, "init", "test-dra-"),),
            measured=PodGroup(d.pod_with_claim_ref, measure, "test", "test-dra-"),
            dra=DraSetup(objects),
        )

    return build


_TEMPLATE = "SchedulingWithResourceClaimTemplate"
_FAST = "upstream's fast variant (1 node with the driver, 1 without)"
_MATCH = {"requests": 5, "match_attribute": d.PCI_ROOT}
_STEADY: tuple[tuple[str, int, int, dict[str, Any]], ...] = (
    # (variant, initClaims at 100 nodes, at 500 nodes, template parameters)
    ("empty", 0, 0, {}),
    ("half", 500, 2500, {}),
    ("full", 990, 4990, {}),
    ("selector_empty", 0, 0, {"selectors": (d.SELECTOR,)}),
    ("match_empty", 0, 0, _MATCH),
)
SMALLEST_STEADY = "upstream's smallest steady variant is 500 nodes: 100 nodes, as empty_100nodes"


def _steady_sizes(at_100: int, at_500: int) -> dict[str, Params]:
    return {"5": (100, at_100, 10), "500": (500, at_500, 10), "5000": (5000, at_500, 10)}


def _steady_notes(variant: str) -> dict[str, str]:
    small = (
        f"upstream's {variant}_100nodes"
        if variant in ("empty", "half", "full")
        else SMALLEST_STEADY
    )
    return {"5": small, "500": f"upstream's {variant}_500nodes", "5000": NO_5000}


DRA_CASES: tuple[
    tuple[str, dict[str, Params], Callable[[Params], Workload], dict[str, str]], ...
] = (
    (
        _TEMPLATE,
        {"5": (1, 0, 10), "500": (500, 2500, 2500), "5000": (5000, 2500, 2500)},
        claim_template_case(),
        {"5": _FAST, "500": "upstream's 5000pods_500nodes", "5000": NO_5000},
    ),
    *(
        (
            f"{_TEMPLATE}/{variant}",
            _steady_sizes(at_100, at_500),
            claim_template_case(steady=STEADY_SECONDS, **options),
            _steady_notes(variant),
        )
        for variant, at_100, at_500, options in _STEADY
    ),
    (
        "SchedulingWithResourceClaim",
        {"5": (1, 0, 10), "500": (500, 2500, 2500), "5000": (5000, 2500, 2500)},
        claim_ref_case(),
        {"5": _FAST, "500": "upstream's 5000pods_500nodes", "5000": NO_5000},
    ),
)
"""(name, sizes, build, notes) of every DRA test case (`catalogue.Case`)."""
