"""Pods with volumes, decided by kube-scheduler and by kubesched on the same cluster (the PV
controller of kube-controller-manager binds the claims, kwok runs the pods): each scenario
runs past kube-scheduler, then past kubesched, and both must place the pod on the same node
or refuse it with the same FailedScheduling text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kubesched.testing import make_pod
from tests.e2e.harness import ApiClient, node_name, wait_for
from tests.e2e.harness.parity import Outcome, wait_outcome
from tests.e2e.harness.volumes import (
    DEFAULT,
    FakeProvisioner,
    claim,
    csi_driver,
    csi_node,
    decide_both,
    delete_storage,
    pod_with_claims,
    storage_capacity,
    storage_class,
    volume,
    wait_claim_bound,
    zonal_volume,
)
from tests.e2e.harness.watching import PodWatch
from tests.e2e.harness.workload_fixtures import WORKLOAD_SCHEDULER
from tests.e2e.harness.workloads import kwok_node, unique

OURS = WORKLOAD_SCHEDULER


@pytest.fixture
def ns(workload_namespace: str, api: ApiClient) -> Iterator[str]:
    """The test's namespace; its PVs, StorageClasses and CSI objects are removed after."""
    yield workload_namespace
    delete_storage(api)


def same(first: Outcome, second: Outcome) -> None:
    assert (second.node, second.full_message) == (first.node, first.full_message), (
        f"kube-scheduler: {first.describe()}; kubesched: {second.describe()}"
    )


def nodes(api: ApiClient, *names: str, **labels: dict[str, str]) -> None:
    for name in names:
        node = kwok_node(name, cpu="1" if name.startswith("near") else "8")
        node["metadata"]["labels"].update(labels.get(name.replace("-", "_"), {}))
        api.create(node)


def test_local_volumes_behind_a_wait_for_first_consumer_class(ns: str, api: ApiClient) -> None:
    near, far, cls = unique("near"), unique("far"), unique("local")
    nodes(api, near, far)
    api.create(storage_class(cls))

    def scenario(scheduler: str, tag: str) -> dict[str, Any]:
        api.create(volume(f"pv-{tag}", node=near, storage_class=cls))
        api.create(claim(ns, f"c-{tag}", storage_class=cls))
        return pod_with_claims(ns, f"p-{tag}", scheduler, f"c-{tag}")

    kube, ours = decide_both(api, ns, scenario, ours=OURS, nodes=2)
    same(kube, ours)
    assert ours.node == near, "the roomier node has no volume for the claim"
    tag = ours.pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"][2:]
    assert wait_claim_bound(api, ns, f"c-{tag}")["spec"]["volumeName"] == f"pv-{tag}"

    def no_volume_left(scheduler: str, tag: str) -> dict[str, Any]:
        api.create(claim(ns, f"c-{tag}", storage_class=cls))
        return pod_with_claims(ns, f"p-{tag}", scheduler, f"c-{tag}")

    kube, ours = decide_both(api, ns, no_volume_left, ours=OURS, nodes=2)
    same(kube, ours)
    assert "didn't find available persistent volumes to bind" in ours.message


def test_a_pre_bound_claim_goes_to_its_volume_s_node(ns: str, api: ApiClient) -> None:
    near, far = unique("near"), unique("far")
    nodes(api, near, far)

    def scenario(scheduler: str, tag: str) -> dict[str, Any]:
        api.create(volume(f"pv-{tag}", node=near))
        api.create(claim(ns, f"c-{tag}", volume_name=f"pv-{tag}"))
        wait_claim_bound(api, ns, f"c-{tag}")
        return pod_with_claims(ns, f"p-{tag}", scheduler, f"c-{tag}")

    kube, ours = decide_both(api, ns, scenario, ours=OURS, nodes=2)
    same(kube, ours)
    assert ours.node == near


def test_zonal_volumes_keep_pods_in_their_zone(ns: str, api: ApiClient) -> None:
    zone_a, zone_b = unique("far-a"), unique("far-b")
    for name, zone in ((zone_a, "zone-a"), (zone_b, "zone-b")):
        node = kwok_node(name, cpu="8")
        node["metadata"]["labels"]["topology.kubernetes.io/zone"] = zone
        api.create(node)

    def scenario(scheduler: str, tag: str) -> dict[str, Any]:
        api.create(zonal_volume(f"pv-{tag}", zone="zone-b"))
        api.create(claim(ns, f"c-{tag}", volume_name=f"pv-{tag}"))
        wait_claim_bound(api, ns, f"c-{tag}")
        return pod_with_claims(ns, f"p-{tag}", scheduler, f"c-{tag}")

    kube, ours = decide_both(api, ns, scenario, ours=OURS, nodes=2)
    same(kube, ours)
    assert ours.node == zone_b


def test_a_read_write_once_pod_claim_in_use_is_refused_alike(ns: str, api: ApiClient) -> None:
    near, far = unique("near"), unique("far")
    nodes(api, near, far)
    rwop = ("ReadWriteOncePod",)
    api.create(volume("pv-rwop-" + ns, node=near, modes=rwop))
    api.create(claim(ns, "only-one", volume_name="pv-rwop-" + ns, modes=rwop))
    wait_claim_bound(api, ns, "only-one")
    holder = pod_with_claims(ns, "holder", DEFAULT, "only-one")
    holder["spec"]["nodeName"] = near
    api.create(holder)

    def scenario(scheduler: str, tag: str) -> dict[str, Any]:
        return pod_with_claims(ns, f"p-{tag}", scheduler, "only-one")

    kube, ours = decide_both(api, ns, scenario, ours=OURS, nodes=2)
    same(kube, ours)
    assert "ReadWriteOncePod access mode already in-use" in ours.message


def test_csi_attach_limits_of_csinodes(ns: str, api: ApiClient) -> None:
    full, free = unique("far-full"), unique("far-free")
    nodes(api, full, free)
    driver = "limits.example.com"
    api.create(csi_driver(driver))
    for node in (full, free):
        api.create(csi_node(node, driver=driver, count=1))
    api.create(volume("pv-held-" + ns, csi=(driver, "held-" + ns)))
    api.create(claim(ns, "held", volume_name="pv-held-" + ns))
    wait_claim_bound(api, ns, "held")
    holder = pod_with_claims(ns, "holder", DEFAULT, "held")
    holder["spec"]["nodeName"] = full
    api.create(holder)

    def scenario(scheduler: str, tag: str) -> dict[str, Any]:
        api.create(volume(f"pv-{tag}", csi=(driver, tag)))
        api.create(claim(ns, f"c-{tag}", volume_name=f"pv-{tag}"))
        wait_claim_bound(api, ns, f"c-{tag}")
        return pod_with_claims(ns, f"p-{tag}", scheduler, f"c-{tag}")

    kube, ours = decide_both(api, ns, scenario, ours=OURS, nodes=2)
    same(kube, ours)
    assert ours.node == free
    api.patch(
        "CSINode",
        free,
        {"spec": {"drivers": [{"name": driver, "nodeID": free, "allocatable": {"count": 0}}]}},
    )
    kube, ours = decide_both(api, ns, scenario, ours=OURS, nodes=2)
    same(kube, ours)
    assert ours.reasons == {"node(s) exceed max volume count": 2}


def test_a_pod_whose_claim_does_not_exist_is_refused_alike(ns: str, api: ApiClient) -> None:
    nodes(api, unique("far"))

    def scenario(scheduler: str, tag: str) -> dict[str, Any]:
        return pod_with_claims(ns, f"p-{tag}", scheduler, "no-such-claim")

    kube, ours = decide_both(api, ns, scenario, ours=OURS, nodes=1)
    same(kube, ours)
    assert 'persistentvolumeclaim "no-such-claim" not found' in ours.message


def test_statefulset_replicas_get_a_local_volume_each(ns: str, api: ApiClient) -> None:
    first, second, cls = unique("far-0"), unique("far-1"), unique("local")
    nodes(api, first, second)
    api.create(storage_class(cls))
    for node in (first, second):
        api.create(volume(f"pv-{node}", node=node, storage_class=cls))
    api.create(_statefulset(ns, "db", cls))
    pods = wait_for(
        lambda: api.list("Pod", namespace=ns, label_selector="app=db"),
        until=lambda ps: len(ps) == 2 and all(p["status"].get("phase") == "Running" for p in ps),
        timeout=40,
        message="both replicas run",
    )
    assert {node_name(p) for p in pods} == {first, second}
    for pod in pods:
        bound = wait_claim_bound(api, ns, f"data-{pod['metadata']['name']}")
        assert bound["spec"]["volumeName"] == f"pv-{node_name(pod)}"


def test_dynamic_provisioning_goes_where_the_driver_reports_capacity(
    ns: str, api: ApiClient
) -> None:
    """A WaitForFirstConsumer class of a CSI driver that reports its capacity: both schedulers
    choose the only node with room for the claim, annotate the claim with it, and bind the pod
    once the (fake) provisioner's volume is bound; with room nowhere both refuse alike."""
    small, roomy, cls = unique("far-small"), unique("far-roomy"), unique("dynamic")
    driver = f"{cls}.example.com"
    nodes(api, small, roomy)
    api.create(storage_class(cls, provisioner=driver))
    api.create(csi_driver(driver, storage_capacity=True))
    for node, size in ((small, "500Mi"), (roomy, "10Gi")):
        api.create(storage_capacity(ns, f"cap-{node}", storage_class=cls, node=node, capacity=size))

    def scenario(scheduler: str, tag: str) -> dict[str, Any]:
        api.create(claim(ns, f"c-{tag}", storage_class=cls))
        return pod_with_claims(ns, f"p-{tag}", scheduler, f"c-{tag}")

    with FakeProvisioner(api, ns, driver=driver) as provisioner:
        kube, ours = decide_both(api, ns, scenario, ours=OURS, nodes=2)
    same(kube, ours)
    assert ours.node == roomy, "only the roomy node has capacity for the claim"
    assert sorted(provisioner.provisioned.values()) == [roomy, roomy]  # one claim each
    for name in provisioner.provisioned:
        assert wait_claim_bound(api, ns, name)["spec"]["volumeName"].startswith("pv-")

    api.delete("CSIStorageCapacity", f"cap-{roomy}", namespace=ns)
    kube, ours = decide_both(api, ns, scenario, ours=OURS, nodes=2)
    same(kube, ours)
    assert "did not have enough free storage" in ours.message


def _statefulset(namespace: str, name: str, cls: str) -> dict[str, Any]:
    pod = make_pod().scheduler(OURS).obj()
    pod["spec"]["terminationGracePeriodSeconds"] = 0
    pod["spec"]["containers"][0]["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    template = {
        "metadata": {"name": "data"},
        "spec": claim(namespace, "data", storage_class=cls)["spec"],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": 2,
            "podManagementPolicy": "Parallel",
            "serviceName": name,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod["spec"]},
            "volumeClaimTemplates": [template],
        },
    }


def test_a_pod_waiting_for_its_volumes_to_bind_is_nominated_to_its_node_alike(
    ns: str, api: ApiClient
) -> None:
    """NominatedNodeNameForExpectation (beta, on in v1.37): while VolumeBinding's PreBind
    waits for the PV controller, the pod carries `nominatedNodeName` (autoscalers read it);
    the API server clears it at binding. A pod whose claim is already bound has nothing to
    wait for and is never nominated. Both schedulers, the same states."""
    node, cls = unique("vol-node"), unique("local")
    nodes(api, node)
    api.create(storage_class(cls))
    seen = {}
    for scheduler in (DEFAULT, OURS):
        for bound_first in (False, True):
            tag = unique("s")
            api.create(volume(f"pv-{tag}", node=node, storage_class=cls))
            api.create(claim(ns, f"c-{tag}", storage_class=cls))
            if bound_first:
                first = pod_with_claims(ns, f"first-{tag}", scheduler, f"c-{tag}")
                api.create(first)
                wait_claim_bound(api, ns, f"c-{tag}")
            pod = pod_with_claims(ns, f"p-{tag}", scheduler, f"c-{tag}")
            with PodWatch(api, ns, pod["metadata"]["name"]) as watch:
                api.create(pod)
                outcome = wait_outcome(api, ns, pod["metadata"]["name"], nodes=1, timeout=30)
                wait_for(
                    lambda w=watch: w.states and w.states[-1]["spec"].get("nodeName"),
                    until=bool,
                    message="the watch saw the binding",
                )
            assert outcome.node == node, outcome.describe()
            seen[scheduler, bound_first] = sorted(set(watch.nominations()))
    assert seen[DEFAULT, False] == [(node, "")], seen
    assert seen[DEFAULT, True] == [], seen
    assert seen[OURS, False] == seen[DEFAULT, False]
    assert seen[OURS, True] == seen[DEFAULT, True]
