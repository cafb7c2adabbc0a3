"""A gang whose members share one DRA claim that their PodGroup declares (kube-scheduler
v1.37.2's PodGroup-level ResourceClaims: DRAWorkloadResourceClaims, beta and off by
default, with GenericWorkload), kubesched side by side with the gated kube-scheduler, each
on its own nodes. The claim's one device sits on one node of three: both schedulers place
both members there, allocate the claim once and reserve it for the PodGroup (not for the
pods), and the second member's first PreBind finds the claim written by the first's (the
same FailedScheduling text, then bound); a second group whose claim wants two devices fits
nowhere and both say why alike; once the first gang's members are gone, new members that
fit nowhere make both schedulers' PodGroupPostFilter unreserve the claim for the PodGroup.
The API server keeps a PodGroup's `spec.resourceClaims` only with the gate on
(tests/e2e/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.test_gang_native import PG_PATH, _condition, _reasons, _seen_nodes

ORACLE, OURS = "dra-gang-oracle", "dra-gang-kubesched"
SCHEDULERS = (ORACLE, OURS)
ORACLE_PROCESS = "kube-scheduler-dra-gang"
GATES = "--feature-gates=GenericWorkload=true,DRAWorkloadResourceClaims=true"
NODE_LABEL = "dra-gang-e2e"
RESOURCE = "resource.k8s.io/v1"
DRIVER = "shared.gpu.example.com"
CLASS = "dra-gang-shared"


@pytest.fixture(scope="module")
def oracle(local_cluster: LocalCluster) -> Iterator[int]:
    """kube-scheduler with both gates, for pods of `dra-gang-oracle` only."""
    port = local_cluster.start_extra_scheduler(
        ORACLE_PROCESS, scheduler_name=ORACLE, generic_workload=True, extra_args=(GATES,)
    )
    try:
        yield port
    finally:
        local_cluster.stop_extra_scheduler(ORACLE_PROCESS)


@pytest.fixture
def both(oracle: int, kubesched: Any, new_namespace: Any) -> dict[str, str]:
    del oracle
    kubesched(f"--scheduler-name={OURS}", GATES)
    return {name: new_namespace(hint=name) for name in SCHEDULERS}


def _cluster(api: ApiClient) -> None:
    """Per scheduler three nodes; one device of the driver, on node 1."""
    body = {"apiVersion": RESOURCE, "kind": "DeviceClass", "metadata": {"name": CLASS}}
    selector = {"cel": {"expression": f'device.driver == "{DRIVER}"'}}
    api.request(
        "POST", f"/apis/{RESOURCE}/deviceclasses", body=body | {"spec": {"selectors": [selector]}}
    )
    for scheduler in SCHEDULERS:
        for i in range(3):
            node = make_node().name(f"{scheduler}-{i}").label(NODE_LABEL, scheduler)
            api.create(node.capacity(cpu="8", pods="20").obj())
        host = f"{scheduler}-1"
        device_slice = {
            "apiVersion": RESOURCE,
            "kind": "ResourceSlice",
            "metadata": {"name": f"{host}-shared"},
            "spec": {
                "driver": DRIVER,
                "nodeName": host,
                "pool": {"name": host, "generation": 1, "resourceSliceCount": 1},
                "devices": [{"name": "gpu-0"}],
            },
        }
        api.request("POST", f"/apis/{RESOURCE}/resourceslices", body=device_slice)


def _cleanup(api: ApiClient) -> None:
    for scheduler in SCHEDULERS:
        api.request("DELETE", f"/apis/{RESOURCE}/resourceslices/{scheduler}-1-shared")
    api.request("DELETE", f"/apis/{RESOURCE}/deviceclasses/{CLASS}")


def _gang(api: ApiClient, scheduler: str, ns: str, group: str, *, devices: int) -> list[str]:
    """A claim for `devices` devices, a PodGroup of 2 declaring it, 2 members sharing it."""
    request = {"name": "gpu", "exactly": {"deviceClassName": CLASS, "count": devices}}
    claim = {
        "apiVersion": RESOURCE,
        "kind": "ResourceClaim",
        "metadata": {"name": f"{group}-gpu"},
        "spec": {"devices": {"requests": [request]}},
    }
    api.request("POST", f"/apis/{RESOURCE}/namespaces/{ns}/resourceclaims", body=claim)
    source = {"name": "gpu", "resourceClaimName": f"{group}-gpu"}
    body = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": group},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, "resourceClaims": [source]},
    }
    made = api.request("POST", PG_PATH.format(ns=ns), body=body)
    assert made["spec"].get("resourceClaims") == [source], "the API server dropped the field"
    names = [f"{group}-{i}" for i in range(2)]
    for name in names:
        pod = make_pod().name(name).scheduler(scheduler).pod_group(group)
        obj = pod.node_selector(**{NODE_LABEL: scheduler}).obj()
        obj["spec"]["resourceClaims"] = [source]
        api.create(obj, namespace=ns)
    return names


def _claim(api: ApiClient, ns: str, name: str, scheduler: str) -> dict[str, Any]:
    """The claim's status with the scheduler's name and the uids made comparable."""
    status = api.request("GET", f"/apis/{RESOURCE}/namespaces/{ns}/resourceclaims/{name}")
    status = dict(status.get("status") or {})
    allocation = dict(status.get("allocation") or {})
    allocation.pop("allocationTimestamp", None)
    reserved = [{k: v for k, v in r.items() if k != "uid"} for r in status.get("reservedFor", [])]
    text = repr({"allocation": allocation, "reservedFor": reserved})
    return {"status": text.replace(scheduler, "<scheduler>")}


def _placed(api: ApiClient, ns: str, pods: list[str]) -> list[str]:
    found = [api.get("Pod", pod, namespace=ns) for pod in pods]
    return [p["spec"].get("nodeName", "") if is_bound(p) else "" for p in found]


def test_a_gang_shares_its_pod_groups_claim(api: ApiClient, both: dict[str, str]) -> None:
    _cluster(api)
    try:
        _seen_nodes(api, both, 3 * len(SCHEDULERS) + _others(api))
        members = {s: _gang(api, s, ns, "train", devices=1) for s, ns in both.items()}
        for scheduler, ns in both.items():
            nodes = wait_for(
                lambda ns=ns, scheduler=scheduler: _placed(api, ns, members[scheduler]),
                until=all,
                timeout=30,
                message=f"{scheduler}'s gang bound",
            )
            assert nodes == [f"{scheduler}-1"] * 2  # where the claim's device is
        claims = {s: _claim(api, ns, "train-gpu", s) for s, ns in both.items()}
        assert claims[OURS] == claims[ORACLE]
        # Both members' PreBinds write the allocation read in PreFilter: the second finds
        # it written (upstream `bindClaim`), fails once and binds at its next attempt.
        failed = {
            s: wait_for(
                lambda ns=ns, s=s: _failures(api, ns, members[s]),
                until=bool,
                message=f"{s}'s PreBind failure event",
            )
            for s, ns in both.items()
        }
        raced = (
            'running PreBind plugin "DynamicResources": claim <ns>/train-gpu got allocated '
            "elsewhere in the meantime"
        )
        assert failed[OURS] == failed[ORACLE] == [raced]
        pg_uid = api.request("GET", PG_PATH.format(ns=both[OURS]) + "/train")["metadata"]["uid"]
        status = api.request(
            "GET", f"/apis/{RESOURCE}/namespaces/{both[OURS]}/resourceclaims/train-gpu"
        )["status"]
        assert status["reservedFor"] == [
            {
                "apiGroup": "scheduling.k8s.io",
                "resource": "podgroups",
                "name": "train",
                "uid": pg_uid,
            }
        ]
        big = {s: _gang(api, s, ns, "big", devices=2) for s, ns in both.items()}
        reasons = {s: _reasons(api, ns, big[s]) for s, ns in both.items()}
        assert _named(reasons[OURS], OURS) == _named(reasons[ORACLE], ORACLE)
        conditions = {
            s: wait_for(lambda ns=ns: _condition(api, ns, "big"), message=f"{s}'s condition")
            for s, ns in both.items()
        }
        assert conditions[OURS] == conditions[ORACLE]
        assert _placed(api, both[OURS], big[OURS]) == ["", ""]
        _members_gone_then_unfit(api, both, members)
    finally:
        _cleanup(api)


def _members_gone_then_unfit(
    api: ApiClient, both: dict[str, str], members: dict[str, list[str]]
) -> None:
    """`train`'s members deleted, two new ones that fit nowhere (9 cpu): no member is
    scheduled, no claim unavailable (NodeResourcesFit rejects first), so upstream's
    DynamicResources PodGroupPostFilter takes the PodGroup out of the allocated claim's
    `reservedFor` (`deallocatePodGroupClaims`); the allocation stays."""
    late = {}
    for s, ns in both.items():
        for gone in members[s]:
            api.delete("Pod", gone, namespace=ns, grace_period=0)
        late[s] = [f"train-late-{i}" for i in range(2)]
        for name in late[s]:
            pod = make_pod().name(name).scheduler(s).pod_group("train").req(cpu="9")
            obj = pod.node_selector(**{NODE_LABEL: s}).obj()
            obj["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "train-gpu"}]
            api.create(obj, namespace=ns)
    claims = {
        s: wait_for(
            lambda ns=ns, s=s: _claim(api, ns, "train-gpu", s),
            until=lambda found: "'reservedFor': []" in found["status"],
            message=f"{s}'s claim unreserved for the PodGroup",
        )
        for s, ns in both.items()
    }
    assert claims[OURS] == claims[ORACLE]
    assert "'allocation': {}" not in claims[OURS]["status"]
    reasons = {s: _reasons(api, ns, late[s]) for s, ns in both.items()}
    assert _named(reasons[OURS], OURS) == _named(reasons[ORACLE], ORACLE)


def _failures(api: ApiClient, ns: str, pods: list[str]) -> list[str]:
    """The members' FailedScheduling notes, the namespace written `<ns>`."""
    events = [e for pod in pods for e in api.events(ns, regarding=pod, reason="FailedScheduling")]
    return sorted(e.note.replace(ns, "<ns>") for e in events)


def _others(api: ApiClient) -> int:
    """Nodes of other tests still in the cluster (every scheduler counts them)."""
    ours = sum(1 for n in api.list("Node") if n["metadata"]["labels"].get(NODE_LABEL))
    return len(api.list("Node")) - ours


def _named(reasons: list[tuple[str, str]], scheduler: str) -> list[tuple[str, str]]:
    return [(r, m.replace(scheduler, "<scheduler>")) for r, m in reasons]
