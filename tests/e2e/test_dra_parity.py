"""Pods with ResourceClaims, decided by kube-scheduler v1.37.2 and by kubesched on the same
cluster: each scenario runs past kube-scheduler, its claims are then freed (as the
resourceclaim controller frees a deleted pod's claims), and the same scenario runs past
kubesched. Both must place the pod on the same node with the same devices, or refuse it with
the same FailedScheduling text.

The devices are published here as a DRA driver would (ResourceSlices for kwok nodes);
kwok runs the pods, so nothing prepares the devices."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kubesched.testing import make_pod
from tests.e2e.harness import ApiClient, ApiError, wait_for
from tests.e2e.harness.parity import Outcome, wait_outcome
from tests.e2e.harness.workload_fixtures import WORKLOAD_SCHEDULER
from tests.e2e.harness.workloads import delete_workloads, deployment, kwok_node, unique

DEFAULT = "default-scheduler"
DRIVER = "gpu.example.com"
RESOURCE = "resource.k8s.io/v1"
SETTLE_SECONDS = 1.0

Scenario = Callable[[str], tuple[dict[str, Any], list[str]]]
"""tag -> (the pod's JSON without a scheduler, the names of the claims it made)."""


class Published:
    """The cluster-scoped DRA objects a test made (deleted after it)."""

    def __init__(self, api: ApiClient) -> None:
        self.api = api
        self.created: list[str] = []

    def create(self, obj: dict[str, Any], plural: str, namespace: str = "") -> None:
        scope = f"/namespaces/{namespace}" if namespace else ""
        self.api.request("POST", f"/apis/{RESOURCE}{scope}/{plural}", body=obj)
        if not namespace:
            self.created.append(f"/apis/{RESOURCE}/{plural}/{obj['metadata']['name']}")

    def delete_all(self) -> None:
        for path in reversed(self.created):
            try:
                self.api.request("DELETE", path)
            except ApiError as error:
                if error.status != 404:
                    raise

    def device_class(self, name: str, expression: str | None = None) -> None:
        selectors = [{"cel": {"expression": expression}}] if expression else []
        body = {"apiVersion": RESOURCE, "kind": "DeviceClass", "metadata": {"name": name}}
        self.create(body | {"spec": {"selectors": selectors}}, "deviceclasses")

    def gpus(self, node: str, count: int, *, taint: dict[str, Any] | None = None) -> None:
        """A ResourceSlice with `count` GPUs on `node` (attributes numa = i % 2, model)."""
        devices = []
        for i in range(count):
            device: dict[str, Any] = {
                "name": f"gpu-{i}",
                "attributes": {"numa": {"int": i % 2}, "model": {"string": "a100"}},
                "capacity": {"memory": {"value": "40Gi"}},
            }
            if taint is not None and i == 0:
                device["taints"] = [taint]
            devices.append(device)
        body = {
            "apiVersion": RESOURCE,
            "kind": "ResourceSlice",
            "metadata": {"name": f"{node}-gpus"},
            "spec": {
                "driver": DRIVER,
                "nodeName": node,
                "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                "devices": devices,
            },
        }
        self.create(body, "resourceslices")


@pytest.fixture
def ns(workload_namespace: str) -> str:
    return workload_namespace


@pytest.fixture
def dra(api: ApiClient) -> Iterator[Published]:
    published = Published(api)
    yield published
    published.delete_all()


def claim(dra: Published, namespace: str, name: str, devices: dict[str, Any]) -> str:
    body = {
        "apiVersion": RESOURCE,
        "kind": "ResourceClaim",
        "metadata": {"name": name},
        "spec": {"devices": devices},
    }
    dra.create(body, "resourceclaims", namespace)
    return name


def exactly(request: str, cls: str, **fields: Any) -> dict[str, Any]:
    return {"name": request, "exactly": {"deviceClassName": cls, **fields}}


def pod_with(namespace: str, name: str, *claims: str) -> dict[str, Any]:
    pod = make_pod().name(name).namespace(namespace).obj()
    pod["spec"]["resourceClaims"] = [
        {"name": f"c{i}", "resourceClaimName": c} for i, c in enumerate(claims)
    ]
    return pod


def free(api: ApiClient, namespace: str, name: str) -> None:
    """Deallocate and delete a claim as the resourceclaim controller does once its pod is gone."""
    path = f"/apis/{RESOURCE}/namespaces/{namespace}/resourceclaims/{name}"
    status = {"status": {"allocation": None, "reservedFor": None}}
    api.request("PATCH", path + "/status", body=status, content_type="application/merge-patch+json")
    api.request(
        "PATCH",
        path,
        body={"metadata": {"finalizers": None}},
        content_type="application/merge-patch+json",
    )
    api.request("DELETE", path)


def allocation(api: ApiClient, namespace: str, name: str) -> list[tuple[str, str, str]]:
    claim = api.request("GET", f"/apis/{RESOURCE}/namespaces/{namespace}/resourceclaims/{name}")
    results = ((claim.get("status") or {}).get("allocation") or {}).get("devices", {})
    return [(r["request"], r["pool"], r["device"]) for r in results.get("results") or ()]


def decide_both(
    api: ApiClient, namespace: str, scenario: Scenario, *, nodes: int
) -> tuple[tuple[Outcome, list[Any]], tuple[Outcome, list[Any]]]:
    """For each scheduler: run the scenario, note the outcome and the claims' allocations,
    then delete the pod and free its claims."""
    outcomes = []
    for scheduler in (DEFAULT, WORKLOAD_SCHEDULER):
        pod, claims = scenario(unique("s"))
        pod["spec"]["schedulerName"] = scheduler
        time.sleep(SETTLE_SECONDS)
        api.create(pod)
        name = pod["metadata"]["name"]
        outcome = wait_outcome(api, namespace, name, nodes=nodes, timeout=30)
        generated = generated_claims(api, namespace, name) if not claims and outcome.node else []
        claims = claims or generated
        if outcome.node:
            wait_for(
                lambda cs=claims: [allocation(api, namespace, c) for c in cs],
                until=all,
                timeout=10,
                message="the claims' allocations are written",
            )
        devices = [allocation(api, namespace, c) for c in claims]
        outcomes.append((outcome, devices))
        api.delete("Pod", name, namespace=namespace, grace_period=0)
        wait_for(
            lambda n=name: api.get_or_none("Pod", n, namespace=namespace),
            until=lambda p: p is None,
            timeout=30,
            message=f"pod {name} is gone",
        )
        for c in claims:
            if c in generated:  # the resourceclaim controller frees and deletes it

                def deleted(items: list[dict[str, Any]], claim: str = c) -> bool:
                    return all(i["metadata"]["name"] != claim for i in items)

                wait_for(
                    lambda c=c: api.request(
                        "GET", f"/apis/{RESOURCE}/namespaces/{namespace}/resourceclaims"
                    ).get("items"),
                    until=deleted,
                    timeout=30,
                    message=f"the generated claim {c} is deleted with its pod",
                )
            else:
                free(api, namespace, c)
    return outcomes[0], outcomes[1]


def generated_claims(api: ApiClient, namespace: str, pod: str) -> list[str]:
    """The claims the resourceclaim controller made from the pod's templates, or the one
    the scheduler made for its extended resources."""

    def made(obj: dict[str, Any]) -> list[str]:
        status = obj["status"]
        names = [e["resourceClaimName"] for e in status.get("resourceClaimStatuses") or ()]
        extended = (status.get("extendedResourceClaimStatus") or {}).get("resourceClaimName")
        return [*names, *([extended] if extended else [])]

    return wait_for(
        lambda: made(api.get("Pod", pod, namespace=namespace)),
        until=bool,
        timeout=30,
        message=f"pod {pod}'s claims are made",
    )


def same(kube: tuple[Outcome, list[Any]], ours: tuple[Outcome, list[Any]]) -> None:
    (k, k_devices), (o, o_devices) = kube, ours
    assert (o.node, o.full_message, o_devices) == (k.node, k.full_message, k_devices), (
        f"kube-scheduler: {k.describe()} {k_devices}; kubesched: {o.describe()} {o_devices}"
    )


def two_nodes(
    api: ApiClient, dra: Published, small: int, large: int, *, roomier: str = "large"
) -> tuple[str, str]:
    """Two kwok nodes with `small` and `large` GPUs; the `roomier` one has more CPU, so that
    the nodes' scores never tie (kube-scheduler breaks ties at random)."""
    a, b = unique("gpu-a"), unique("gpu-b")
    for node, count, which in ((a, small, "small"), (b, large, "large")):
        api.create(kwok_node(node, cpu="16" if which == roomier else "8"))
        dra.gpus(node, count)
    return a, b


def test_a_claim_for_two_gpus_goes_where_two_are_free(
    ns: str, api: ApiClient, dra: Published
) -> None:
    _, large = two_nodes(api, dra, 1, 2)
    cls = unique("gpu")
    dra.device_class(cls, f'device.driver == "{DRIVER}"')

    def scenario(tag: str) -> tuple[dict[str, Any], list[str]]:
        c = claim(dra, ns, f"c-{tag}", {"requests": [exactly("gpu", cls, count=2)]})
        return pod_with(ns, f"p-{tag}", c), [c]

    kube, ours = decide_both(api, ns, scenario, nodes=2)
    same(kube, ours)
    assert ours[0].node == large


def test_two_requests_on_the_same_numa_node(ns: str, api: ApiClient, dra: Published) -> None:
    two_nodes(api, dra, 2, 4)
    cls = unique("gpu")
    dra.device_class(cls)

    def scenario(tag: str) -> tuple[dict[str, Any], list[str]]:
        devices = {
            "requests": [exactly("a", cls), exactly("b", cls)],
            "constraints": [{"requests": ["a", "b"], "matchAttribute": f"{DRIVER}/numa"}],
        }
        c = claim(dra, ns, f"c-{tag}", devices)
        return pod_with(ns, f"p-{tag}", c), [c]

    kube, ours = decide_both(api, ns, scenario, nodes=2)
    same(kube, ours)
    assert ours[0].node


def test_first_available_prefers_the_first_subrequest(
    ns: str, api: ApiClient, dra: Published
) -> None:
    _, large = two_nodes(api, dra, 1, 4)
    cls = unique("gpu")
    dra.device_class(cls)

    def scenario(tag: str) -> tuple[dict[str, Any], list[str]]:
        request = {
            "name": "gpus",
            "firstAvailable": [
                {"name": "four", "deviceClassName": cls, "count": 4},
                {"name": "one", "deviceClassName": cls, "count": 1},
            ],
        }
        c = claim(dra, ns, f"c-{tag}", {"requests": [request]})
        return pod_with(ns, f"p-{tag}", c), [c]

    kube, ours = decide_both(api, ns, scenario, nodes=2)
    same(kube, ours)
    assert ours[0].node == large


def test_all_mode_and_a_selector_that_matches_nothing(
    ns: str, api: ApiClient, dra: Published
) -> None:
    small, _ = two_nodes(api, dra, 1, 3, roomier="small")
    cls = unique("gpu")
    dra.device_class(cls)

    def all_of_them(tag: str) -> tuple[dict[str, Any], list[str]]:
        request = exactly("gpus", cls, allocationMode="All")
        c = claim(dra, ns, f"c-{tag}", {"requests": [request]})
        return pod_with(ns, f"p-{tag}", c), [c]

    kube, ours = decide_both(api, ns, all_of_them, nodes=2)
    same(kube, ours)
    assert ours[0].node == small

    def none_match(tag: str) -> tuple[dict[str, Any], list[str]]:
        selector = {"cel": {"expression": 'device.attributes["gpu.example.com"].model == "h100"'}}
        request = exactly("gpus", cls, selectors=[selector])
        c = claim(dra, ns, f"c-{tag}", {"requests": [request]})
        return pod_with(ns, f"p-{tag}", c), [c]

    kube, ours = decide_both(api, ns, none_match, nodes=2)
    same(kube, ours)
    assert not ours[0].node
    assert "cannot allocate all claims" in ours[0].message


def test_a_missing_class_and_a_failing_cel_expression(
    ns: str, api: ApiClient, dra: Published
) -> None:
    two_nodes(api, dra, 1, 1)
    cls = unique("gpu")
    dra.device_class(cls)

    missing = unique("no-such-class")

    def missing_class(tag: str) -> tuple[dict[str, Any], list[str]]:
        c = claim(dra, ns, f"c-{tag}", {"requests": [exactly("gpu", missing)]})
        return pod_with(ns, f"p-{tag}", c), [c]

    kube, ours = decide_both(api, ns, missing_class, nodes=2)
    same(kube, ours)
    assert "does not exist" in ours[0].message

    def failing(tag: str) -> tuple[dict[str, Any], list[str]]:
        selector = {"cel": {"expression": 'device.attributes["gpu.example.com"].missing == 1'}}
        c = claim(dra, ns, f"c-{tag}", {"requests": [exactly("gpu", cls, selectors=[selector])]})
        return pod_with(ns, f"p-{tag}", c), [c]

    errors = []
    for scheduler in (DEFAULT, WORKLOAD_SCHEDULER):
        pod, _ = failing("e" + scheduler[:2])
        pod["spec"]["schedulerName"] = scheduler
        api.create(pod)
        scheduled = wait_for(
            lambda p=pod: condition(api.get("Pod", p["metadata"]["name"], namespace=ns)),
            until=lambda c: c is not None and c.get("reason") == "SchedulerError",
            timeout=30,
            message="the pod reports a scheduler error",
        )
        assert scheduled is not None  # what wait_for waited for
        # Which node's device is tried first is not fixed: name none.
        errors.append(re.sub(r"c-e\w+|gpu-[ab]-\w+", "X", scheduled["message"]))
    assert errors[1] == errors[0]
    assert "CEL runtime error: no such key: missing" in errors[0]


def condition(pod: dict[str, Any]) -> dict[str, Any] | None:
    return next(
        (c for c in pod["status"].get("conditions") or () if c["type"] == "PodScheduled"), None
    )


def test_a_tainted_device_with_and_without_toleration(
    ns: str, api: ApiClient, dra: Published
) -> None:
    node = unique("gpu-t")
    api.create(kwok_node(node, cpu="8"))
    dra.gpus(node, 1, taint={"key": "broken", "value": "yes", "effect": "NoSchedule"})
    cls = unique("gpu")
    dra.device_class(cls)

    def untolerated(tag: str) -> tuple[dict[str, Any], list[str]]:
        c = claim(dra, ns, f"c-{tag}", {"requests": [exactly("gpu", cls)]})
        return pod_with(ns, f"p-{tag}", c), [c]

    kube, ours = decide_both(api, ns, untolerated, nodes=1)
    same(kube, ours)
    assert not ours[0].node

    def tolerated(tag: str) -> tuple[dict[str, Any], list[str]]:
        toleration = {"key": "broken", "operator": "Exists", "effect": "NoSchedule"}
        c = claim(
            dra, ns, f"c-{tag}", {"requests": [exactly("gpu", cls, tolerations=[toleration])]}
        )
        return pod_with(ns, f"p-{tag}", c), [c]

    kube, ours = decide_both(api, ns, tolerated, nodes=1)
    same(kube, ours)
    assert ours[0].node == node


def template(dra: Published, namespace: str, name: str, devices: dict[str, Any]) -> str:
    body = {
        "apiVersion": RESOURCE,
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name},
        "spec": {"spec": {"devices": devices}},
    }
    dra.create(body, "resourceclaimtemplates", namespace)
    return name


def test_a_claim_made_from_a_template_for_the_pod(ns: str, api: ApiClient, dra: Published) -> None:
    _, large = two_nodes(api, dra, 1, 2)
    cls = unique("gpu")
    dra.device_class(cls)
    tmpl = template(dra, ns, "two-gpus", {"requests": [exactly("gpu", cls, count=2)]})

    def scenario(tag: str) -> tuple[dict[str, Any], list[str]]:
        pod = make_pod().name(f"p-{tag}").namespace(ns).obj()
        pod["spec"]["resourceClaims"] = [{"name": "gpus", "resourceClaimTemplateName": tmpl}]
        return pod, []

    kube, ours = decide_both(api, ns, scenario, nodes=2)
    same(kube, ours)
    assert ours[0].node == large


def test_an_extended_resource_a_device_class_provides(
    ns: str, api: ApiClient, dra: Published
) -> None:
    _, large = two_nodes(api, dra, 1, 2)
    cls, resource = unique("gpu"), f"example.com/{unique('gpu')}"
    body = {"apiVersion": RESOURCE, "kind": "DeviceClass", "metadata": {"name": cls}}
    dra.create(body | {"spec": {"extendedResourceName": resource}}, "deviceclasses")

    def scenario(tag: str) -> tuple[dict[str, Any], list[str]]:
        pod = make_pod().name(f"p-{tag}").namespace(ns).obj()
        pod["spec"]["containers"][0]["resources"] = {
            "requests": {resource: "2"},
            "limits": {resource: "2"},
        }
        return pod, []

    kube, ours = decide_both(api, ns, scenario, nodes=2)
    same(kube, ours)
    assert ours[0].node == large
    mappings = ours[0].pod["status"]["extendedResourceClaimStatus"]["requestMappings"]
    kube_mappings = kube[0].pod["status"]["extendedResourceClaimStatus"]["requestMappings"]
    assert mappings == kube_mappings


def test_a_deployment_whose_pods_each_get_a_claim_from_a_template(
    ns: str, api: ApiClient, dra: Published
) -> None:
    """Three replicas of one GPU each on nodes with 1 and 2 GPUs: the resourceclaim
    controller makes each pod's claim; both schedulers give the pods the same devices."""
    two_nodes(api, dra, 1, 2)
    cls = unique("gpu")
    dra.device_class(cls)
    tmpl = template(dra, ns, "one-gpu", {"requests": [exactly("gpu", cls)]})
    placements = []
    for scheduler in (DEFAULT, WORKLOAD_SCHEDULER):
        app = unique("gpus")
        body = deployment(ns, app, replicas=3, scheduler=scheduler, cpu="100m")
        body["spec"]["template"]["spec"]["resourceClaims"] = [
            {"name": "gpu", "resourceClaimTemplateName": tmpl}
        ]
        api.create(body)
        pods = wait_for(
            lambda app=app: [
                p
                for p in api.list("Pod", namespace=ns)
                if p["metadata"]["labels"].get("app") == app and p["spec"].get("nodeName")
            ],
            until=lambda found: len(found) == 3,
            timeout=60,
            message=f"the three pods of {scheduler} are bound",
        )
        devices = []
        for pod in pods:
            for entry in generated_claims(api, ns, pod["metadata"]["name"]):
                devices += wait_for(
                    lambda entry=entry: allocation(api, ns, entry),
                    until=bool,
                    timeout=10,
                    message=f"claim {entry} is allocated",
                )
        placements.append(sorted((pool, device) for _, pool, device in devices))
        delete_workloads(api, ns)
        wait_for(
            lambda: api.request("GET", f"/apis/{RESOURCE}/namespaces/{ns}/resourceclaims")["items"],
            until=lambda items: not items,
            timeout=60,
            message="the pods' claims are deleted with them",
        )
    assert placements[1] == placements[0]
    assert len(set(placements[1])) == 3


def test_a_pod_waits_for_its_claim_to_exist(ns: str, api: ApiClient, dra: Published) -> None:
    """A pod naming a claim that does not exist yet waits at PreEnqueue (no attempt, no
    condition) on both; once the claim is created, both place it alike."""
    _, large = two_nodes(api, dra, 1, 2)
    cls = unique("gpu")
    dra.device_class(cls)
    outcomes = []
    for scheduler in (DEFAULT, WORKLOAD_SCHEDULER):
        tag = unique("late")
        pod = pod_with(ns, f"p-{tag}", f"c-{tag}")
        pod["spec"]["schedulerName"] = scheduler
        api.create(pod)
        time.sleep(3)
        waiting = api.get("Pod", f"p-{tag}", namespace=ns)
        assert not waiting["spec"].get("nodeName")
        assert not condition(waiting), f"{scheduler} tried the pod: {condition(waiting)}"
        claim(dra, ns, f"c-{tag}", {"requests": [exactly("gpu", cls, count=2)]})
        outcome = wait_outcome(api, ns, f"p-{tag}", nodes=2, timeout=30)
        outcomes.append((outcome.node, allocation(api, ns, f"c-{tag}")))
        api.delete("Pod", f"p-{tag}", namespace=ns, grace_period=0)
        wait_for(
            lambda n=f"p-{tag}": api.get_or_none("Pod", n, namespace=ns),
            until=lambda p: p is None,
            timeout=30,
            message="the pod is gone",
        )
        free(api, ns, f"c-{tag}")
    assert outcomes[1] == outcomes[0]
    assert outcomes[1][0] == large
