"""DynamicResources' extension points over a FakeHandle with ResourceClaims, DeviceClasses
and ResourceSlices in its listers (the end-to-end tests compare it with kube-scheduler)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubesched.framework import Code, CycleState, QueueingHint
from kubesched.framework.listers import ClusterListers
from kubesched.model import ApiObject, Pod
from kubesched.model.dra_claims import AllocationResult
from kubesched.plugins.dynamic_resources import DynamicResources
from kubesched.plugins.dynamic_resources.binding import FINALIZER
from kubesched.plugins.dynamic_resources.resources import ALL, CLAIMS, DEVICE_CLASSES, SLICES
from kubesched.runtime.dra_manager import DraManager
from kubesched.testing import FakeHandle, make_node

DRIVER = "gpu.example.com"


def device_class(name: str = "gpu", expression: str | None = None) -> ApiObject:
    selectors = [{"cel": {"expression": expression}}] if expression else []
    return ApiObject.from_json(
        {"metadata": {"name": name, "uid": f"uid-{name}"}, "spec": {"selectors": selectors}}
    )


def node_slice(node: str, devices: int, *, numa: bool = False) -> ApiObject:
    return ApiObject.from_json(
        {
            "metadata": {
                "name": f"{node}-gpus",
                "uid": f"uid-{node}-slice",
                "resourceVersion": "1",
            },
            "spec": {
                "driver": DRIVER,
                "nodeName": node,
                "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                "devices": [
                    {
                        "name": f"gpu-{i}",
                        "attributes": {"numa": {"int": i % 2}} if numa else {},
                    }
                    for i in range(devices)
                ],
            },
        }
    )


def claim(
    name: str, *, count: int = 1, first_available: list[dict[str, Any]] | None = None
) -> ApiObject:
    request: dict[str, Any] = {"name": "gpu"}
    if first_available is not None:
        request["firstAvailable"] = first_available
    else:
        request["exactly"] = {"deviceClassName": "gpu", "count": count}
    return ApiObject.from_json(
        {
            "metadata": {
                "name": name,
                "namespace": "default",
                "uid": f"uid-{name}",
                "resourceVersion": "10",
            },
            "spec": {"devices": {"requests": [request]}},
        }
    )


def pod(name: str, *claims: str, template: bool = False) -> Pod:
    model = _pod_json(name, claims, template=template)
    return Pod.from_json(model)


def _pod_json(name: str, claims: tuple[str, ...], *, template: bool) -> dict[str, Any]:
    key = "resourceClaimTemplateName" if template else "resourceClaimName"
    return {
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": {
            "containers": [{"name": "c", "image": "i"}],
            "resourceClaims": [{"name": f"c{i}", key: c} for i, c in enumerate(claims)],
        },
        "status": {"phase": "Pending"},
    }


def handle(*objects: tuple[Any, ApiObject]) -> FakeHandle:
    h = FakeHandle(nodes=[make_node().name(n).model() for n in ("n1", "n2")])
    h.listers = ClusterListers(ALL)
    for spec, obj in objects:
        h.listers.add(spec, obj)
    return h


def pending_of(pl: DynamicResources) -> dict[str, AllocationResult]:
    """The allocations PreBind has not written yet (the engine's manager keeps them)."""
    manager = pl.manager
    assert isinstance(manager, DraManager)
    return manager.pending


def plugin(h: FakeHandle) -> DynamicResources:
    return DynamicResources(args={}, handle=h)


def cycle(pl: DynamicResources, h: FakeHandle, p: Pod) -> tuple[CycleState, dict[str, Any]]:
    state = CycleState()
    status = pl.pre_filter(state, p, h.list_node_infos())
    if not status.is_success():
        return state, {"prefilter": status}
    return state, {info.name: pl.filter(state, p, info) for info in h.list_node_infos()}


def test_a_pod_without_claims_skips_the_plugin() -> None:
    h = handle()
    pl = plugin(h)
    p = Pod.from_json(_pod_json("p", (), template=False))
    assert pl.pre_enqueue(p) is None
    assert pl.pre_filter(CycleState(), p, h.list_node_infos()).code is Code.SKIP
    assert pl.sign_pod(p) == ()


def test_missing_claim_and_template_claim_not_created_yet() -> None:
    h = handle((DEVICE_CLASSES, device_class()))
    pl = plugin(h)
    status = pl.pre_enqueue(pod("p", "gpu-claim"))
    assert status is not None
    assert status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert status.message == 'could not find ResourceClaim "default/gpu-claim"'
    status = pl.pre_enqueue(pod("p", "tmpl", template=True))
    assert status is not None
    assert status.message == 'pod "default/p": ResourceClaim not created yet'
    assert pl.sign_pod(pod("p", "gpu-claim")) is None


def test_missing_device_class() -> None:
    h = handle((CLAIMS, claim("c")), (SLICES, node_slice("n1", 1)))
    _, result = cycle(plugin(h), h, pod("p", "c"))
    assert result["prefilter"].message == "request gpu: device class gpu does not exist"


def test_allocates_on_the_node_with_enough_devices_and_writes_it_in_prebind() -> None:
    h = handle(
        (DEVICE_CLASSES, device_class()),
        (CLAIMS, claim("c", count=2)),
        (SLICES, node_slice("n1", 1)),
        (SLICES, node_slice("n2", 2)),
    )
    pl = plugin(h)
    p = pod("p", "c")
    state, result = cycle(pl, h, p)
    assert result["n1"].code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE
    assert result["n1"].message == "cannot allocate all claims"
    assert result["n2"] is None
    assert pl.reserve(state, p, "n2") is None
    # Another pod wanting the same claim waits while the allocation is in flight.
    _, other = cycle(pl, h, pod("q", "c"))
    assert other["prefilter"].message == (
        "resource claim default/c is in the process of being allocated"
    )
    assert asyncio.run(pl.pre_bind(state, p, "n2")) is None
    written = h.listers.store(CLAIMS).get("c", "default")
    assert written is not None
    assert FINALIZER in written.finalizers
    results = written.status["allocation"]["devices"]["results"]
    assert [(r["pool"], r["device"]) for r in results] == [("n2", "gpu-0"), ("n2", "gpu-1")]
    assert written.status["reservedFor"] == [{"resource": "pods", "name": "p", "uid": "uid-p"}]
    assert not pending_of(pl)


def test_devices_in_use_are_not_allocated_twice() -> None:
    h = handle(
        (DEVICE_CLASSES, device_class()),
        (CLAIMS, claim("a")),
        (CLAIMS, claim("b")),
        (SLICES, node_slice("n1", 1)),
    )
    pl = plugin(h)
    first = pod("p1", "a")
    state, result = cycle(pl, h, first)
    assert result["n1"] is None
    assert pl.reserve(state, first, "n1") is None
    _, second = cycle(pl, h, pod("p2", "b"))
    assert second["n1"].message == "cannot allocate all claims"
    pl.unreserve(state, first, "n1")
    _, again = cycle(pl, h, pod("p2", "b"))
    assert again["n1"] is None


def test_an_allocated_claim_is_only_available_where_its_node_selector_matches() -> None:
    h = handle(
        (DEVICE_CLASSES, device_class()), (CLAIMS, claim("c")), (SLICES, node_slice("n1", 1))
    )
    pl = plugin(h)
    p = pod("p", "c")
    state, _ = cycle(pl, h, p)
    pl.reserve(state, p, "n1")
    asyncio.run(pl.pre_bind(state, p, "n1"))
    second = pod("p2", "c")
    state2, result = cycle(pl, h, second)
    assert result["n1"] is None
    assert result["n2"].message == "resourceclaim not available on the node"
    res, status = pl.post_filter(state2, second, None)  # type: ignore[arg-type]
    assert res is None
    assert status is not None
    # Reserved for another pod: nothing to deallocate.
    assert status.code is Code.UNSCHEDULABLE
    assert status.message == ""


def test_first_available_scores_the_earlier_subrequest_higher() -> None:
    subrequests = [
        {"name": "two", "deviceClassName": "gpu", "count": 2},
        {"name": "one", "deviceClassName": "gpu", "count": 1},
    ]
    h = handle(
        (DEVICE_CLASSES, device_class()),
        (CLAIMS, claim("c", first_available=subrequests)),
        (SLICES, node_slice("n1", 1)),
        (SLICES, node_slice("n2", 2)),
    )
    pl = plugin(h)
    p = pod("p", "c")
    state, result = cycle(pl, h, p)
    assert result == {"n1": None, "n2": None}
    assert pl.pre_score(state, p, h.list_node_infos()).is_success()
    scores = [pl.score(state, p, info) for info in h.list_node_infos()]
    assert scores == [7, 8]
    pl.normalize_score(state, p, scores)
    assert scores == [87, 100]


def test_a_cel_selector_picks_devices() -> None:
    h = handle(
        (DEVICE_CLASSES, device_class(expression=f'device.attributes["{DRIVER}"].numa == 1')),
        (CLAIMS, claim("c", count=2)),
        (SLICES, node_slice("n1", 4, numa=True)),
    )
    pl = plugin(h)
    p = pod("p", "c")
    state, result = cycle(pl, h, p)
    assert result["n1"] is None
    pl.reserve(state, p, "n1")
    allocation = pending_of(pl)["uid-c"]
    assert [r.device for r in allocation.results] == ["gpu-1", "gpu-3"]


@pytest.mark.parametrize(
    ("old_status", "new_status", "uses", "hint"),
    [
        pytest.param(None, {}, True, QueueingHint.QUEUE, id="own-claim-created"),
        pytest.param(None, {}, False, QueueingHint.QUEUE_SKIP, id="other-claim-created"),
        pytest.param({}, {}, True, QueueingHint.QUEUE_SKIP, id="status-unchanged"),
        pytest.param({"allocation": {}}, {}, False, QueueingHint.QUEUE, id="deallocated"),
        pytest.param({}, {"reservedFor": [{}]}, True, QueueingHint.QUEUE, id="status-changed"),
    ],
)
def test_claim_hint(
    old_status: dict[str, Any] | None, new_status: dict[str, Any], uses: bool, hint: QueueingHint
) -> None:
    h = handle((CLAIMS, claim("mine")))
    pl = plugin(h)
    name = "mine" if uses else "other"
    meta = {"name": name, "namespace": "default", "uid": f"uid-{name}"}
    new = ApiObject.from_json({"metadata": meta, "status": new_status})
    old = None
    if old_status is not None:
        old = ApiObject.from_json({"metadata": meta, "status": old_status})
    assert pl.is_schedulable_after_claim_change(pod("p", "mine"), old, new) is hint


def test_target_pod_hint_queues_once_the_template_claim_exists() -> None:
    h = handle((CLAIMS, claim("p-c0")))
    pl = plugin(h)
    before = _pod_json("p", ("tmpl",), template=True)
    after = _pod_json("p", ("tmpl",), template=True)
    after["status"]["resourceClaimStatuses"] = [{"name": "c0", "resourceClaimName": "p-c0"}]
    old, new = Pod.from_json(before), Pod.from_json(after)
    # The claim exists but its owner is not the pod.
    assert pl.is_schedulable_after_target_pod_update(old, old, new) is QueueingHint.QUEUE_SKIP
    assert pl.pre_enqueue(new) is not None


def extended_pod(name: str, gpus: int, *, init_gpus: int = 0) -> Pod:
    raw = _pod_json(name, (), template=False)
    raw["spec"].pop("resourceClaims")
    requests = {"cpu": "100m", "example.com/gpu": str(gpus)}
    raw["spec"]["containers"][0]["resources"] = {"requests": requests}
    if init_gpus:
        raw["spec"]["initContainers"] = [
            {
                "name": "init",
                "image": "i",
                "resources": {"requests": {"example.com/gpu": str(init_gpus)}},
            }
        ]
    return Pod.from_json(raw)


def extended_class() -> ApiObject:
    return ApiObject.from_json(
        {
            "metadata": {
                "name": "gpu",
                "uid": "uid-gpu",
                "creationTimestamp": "2026-01-01T00:00:00Z",
            },
            "spec": {"extendedResourceName": "example.com/gpu"},
        }
    )


def test_an_extended_resource_backed_by_a_class_is_allocated_as_devices() -> None:
    h = handle(
        (DEVICE_CLASSES, extended_class()),
        (SLICES, node_slice("n1", 2)),
        (SLICES, node_slice("n2", 1)),
    )
    pl = plugin(h)
    p = extended_pod("p", 2)
    state, result = cycle(pl, h, p)
    assert result["n1"] is None
    assert result["n2"].message == "cannot allocate all claims"
    assert pl.reserve(state, p, "n1") is None
    assert asyncio.run(pl.pre_bind(state, p, "n1")) is None
    assert len(h.created_objects) == 1
    made = h.listers.store(CLAIMS).get(h.created_objects[0].split("/")[1], "default")
    assert made is not None
    assert made.name.startswith("p-extended-resources-")
    assert made.annotations == {"resource.kubernetes.io/extended-resource-claim": "true"}
    requests = made.spec["devices"]["requests"]
    assert requests == [
        {
            "name": "container-0-request-1",
            "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 2},
        }
    ]
    devices = [r["device"] for r in made.status["allocation"]["devices"]["results"]]
    assert devices == ["gpu-0", "gpu-1"]
    pod_patch = next(patch for key, status, patch in h.object_patches if key == "default/p")
    assert pod_patch["status"]["extendedResourceClaimStatus"] == {
        "requestMappings": [
            {
                "containerName": "c",
                "resourceName": "example.com/gpu",
                "requestName": "container-0-request-1",
            }
        ],
        "resourceClaimName": made.name,
    }
    assert not pending_of(pl)


def test_an_init_container_reuses_the_devices_of_a_later_container() -> None:
    h = handle((DEVICE_CLASSES, extended_class()), (SLICES, node_slice("n1", 4)))
    pl = plugin(h)
    p = extended_pod("p", 2, init_gpus=1)
    state, result = cycle(pl, h, p)
    assert result["n1"] is None
    node_claim = state.read(pl_key()).node_claims["n1"]
    assert [(r.name, r.exactly.count) for r in node_claim.claim.requests if r.exactly] == [
        ("container-1-request-1", 2)
    ]
    assert [m["requestName"] for m in node_claim.mappings] == [
        "container-1-request-1",
        "container-1-request-1",
    ]


def test_a_node_offering_the_resource_itself_leaves_it_to_node_resources_fit() -> None:
    h = handle((DEVICE_CLASSES, extended_class()))
    h.add_node(make_node().name("n3").capacity(**{"example.com/gpu": "4"}).model())
    pl = plugin(h)
    p = extended_pod("p", 2)
    _, result = cycle(pl, h, p)
    assert result["n3"] is None
    assert result["n1"].message == "cannot allocate all claims"


def pl_key() -> Any:
    from kubesched.plugins.dynamic_resources.cycle import KEY as _KEY  # noqa: PLC0415

    return _KEY


def test_node_resources_fit_leaves_a_class_backed_resource_to_dra() -> None:
    from kubesched.plugins.node_resources import NodeResourcesFit  # noqa: PLC0415

    h = handle()
    fit = NodeResourcesFit(args={}, handle=h)
    p = extended_pod("p", 2)
    n1 = h.get_node_info("n1")
    assert n1 is not None
    status = fit.filter(CycleState(), p, n1)
    assert status is not None
    assert status.message == "Insufficient example.com/gpu"
    h.listers.add(DEVICE_CLASSES, extended_class())
    assert fit.filter(CycleState(), p, n1) is None


def test_explain_names_the_devices_a_feasible_node_would_give() -> None:
    h = handle(
        (DEVICE_CLASSES, device_class()), (CLAIMS, claim("c")), (SLICES, node_slice("n1", 2))
    )
    pl = plugin(h)
    state, result = cycle(pl, h, pod("p", "c"))
    assert result["n1"] is None
    assert pl.explain_node(state, "n1") == "devices c: gpu.example.com/n1/gpu-0"
    assert pl.explain_node(state, "n2") is None


def _allocated_claim(name: str, node_selector: dict[str, Any]) -> ApiObject:
    body = claim(name)
    allocation = {
        "devices": {
            "results": [{"request": "gpu", "driver": DRIVER, "pool": "n1", "device": "gpu-0"}]
        },
        "nodeSelector": node_selector,
    }
    return ApiObject.from_json(
        {
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            **body.body,
            "status": {"allocation": allocation},
        }
    )


def test_an_allocation_selecting_nodes_by_label_is_matched_per_node() -> None:
    selector = {
        "nodeSelectorTerms": [
            {
                "matchExpressions": [
                    {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n2"]}
                ]
            }
        ]
    }
    h = handle((DEVICE_CLASSES, device_class()), (CLAIMS, _allocated_claim("c", selector)))
    h.nodes = [make_node().name(n).label("kubernetes.io/hostname", n).model() for n in ("n1", "n2")]
    _, result = cycle(plugin(h), h, pod("p", "c"))
    assert result["n1"].message == "resourceclaim not available on the node"
    assert result["n2"] is None


def test_an_allocation_with_an_invalid_node_selector_fails_prefilter() -> None:
    selector = {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "Exists"}]}]
    }
    h = handle((DEVICE_CLASSES, device_class()), (CLAIMS, _allocated_claim("c", selector)))
    _, result = cycle(plugin(h), h, pod("p", "c"))
    status = result["prefilter"]
    assert status.code is Code.ERROR
    assert status.message.startswith("failed to parse node selector: ")
