"""`kubesched explain` of a topology gang (GenericWorkload and TopologyAwareWorkloadScheduling
on) on the real control plane, then kubesched itself with the same flags: what explain says
before the scheduler runs is what the scheduler then does.

* two racks fit the gang, one holds more members: explain scores both (PodGroupPodsCount 50
  and 100) and names the bigger one; kubesched binds every member there;
* no rack fits: explain's FailedScheduling text is the one kubesched then writes in the
  PodGroup's condition and each member's (`pod group is unschedulable, 0/2 placements are
  available, ...`, before the preemption outcome it appends).

kubesched's own placements are compared with kube-scheduler's in test_gang_topology.py.
"""

from __future__ import annotations

import json
from typing import Any

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.conftest import TOPOLOGY_GATES
from tests.e2e.harness import ApiClient, is_bound, unschedulable_message, wait_for
from tests.e2e.test_explain import explain

SCHEDULER = "tas-explain"
RACK = "e2e.kubesched.io/rack-explain"
PG_PATH = "/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups"


def _racks(api: ApiClient, racks: dict[str, list[str]]) -> None:
    for rack, cpus in racks.items():
        for i, cpu in enumerate(cpus):
            node = make_node().name(f"xt-{rack}{i}").label(RACK, rack).capacity(cpu=cpu, pods="20")
            api.create(node.obj())


def _gang(api: ApiClient, ns: str, *, min_count: int, members: int) -> None:
    spec = {
        "schedulingPolicy": {"gang": {"minCount": min_count}},
        "schedulingConstraints": {"topology": [{"key": RACK}]},
    }
    body = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "spec": spec}
    body["metadata"] = {"name": "train"}
    api.request("POST", PG_PATH.format(ns=ns), body=body)
    for i in range(members):
        pod = make_pod().name(f"train-{i}").scheduler(SCHEDULER).pod_group("train").req(cpu="1")
        api.create(pod.obj(), namespace=ns)


def _explain(cluster: LocalCluster, ns: str) -> dict[str, Any]:
    done = explain(
        cluster, f"{ns}/train-0", f"--scheduler-name={SCHEDULER}", TOPOLOGY_GATES, "-o", "json"
    )
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    placements: dict[str, Any] = answer["group"]["placements"]
    return placements


def test_explain_scores_the_racks_and_kubesched_binds_in_the_one_it_named(
    api: ApiClient, kubesched: Any, namespace: str, local_cluster: LocalCluster
) -> None:
    _racks(api, {"a": ["2"], "b": ["2", "2"]})
    _gang(api, namespace, min_count=2, members=4)
    found = _explain(local_cluster, namespace)
    scores = {p["domain"]: (p["feasible"], p["total"]) for p in found["placements"]}
    assert scores == {"a": (True, 50), "b": (True, 100)}
    assert found["chosen"] == "b"
    kubesched(f"--scheduler-name={SCHEDULER}", TOPOLOGY_GATES)
    bound = wait_for(
        lambda: [
            p["spec"]["nodeName"] for p in api.list("Pod", namespace=namespace) if is_bound(p)
        ],
        until=lambda nodes: len(nodes) == 4,
        message="kubesched binds the gang",
        timeout=60,
    )
    assert sorted(bound) == ["xt-b0", "xt-b0", "xt-b1", "xt-b1"]


def test_explain_says_what_kubesched_reports_when_no_rack_fits(
    api: ApiClient, kubesched: Any, namespace: str, local_cluster: LocalCluster
) -> None:
    _racks(api, {"a": ["3"], "b": ["3"]})
    _gang(api, namespace, min_count=4, members=4)
    found = _explain(local_cluster, namespace)
    assert [p["feasible"] for p in found["placements"]] == [False, False]
    predicted = found["outcome"].removeprefix("FailedScheduling: ")
    assert predicted == (
        "pod group is unschedulable, 0/2 placements are available, first placement status: "
        "minCount (4) cannot be satisfied: 3 scheduled, 0 remaining"
    )
    kubesched(f"--scheduler-name={SCHEDULER}", TOPOLOGY_GATES)
    condition = wait_for(
        lambda: _condition(api, namespace),
        message="kubesched sets the PodGroup's condition",
        timeout=60,
    )
    assert condition is not None
    assert condition[:2] == ("False", "Unschedulable")
    assert condition[2].startswith(predicted), condition  # the preemption outcome follows
    member = unschedulable_message(api.get("Pod", "train-0", namespace=namespace))
    assert predicted in member, member  # after the member's own `pod group is unschedulable`


def _condition(api: ApiClient, ns: str) -> tuple[str, str, str] | None:
    status = api.request("GET", f"{PG_PATH.format(ns=ns)}/train").get("status") or {}
    for cond in status.get("conditions") or ():
        if cond["type"] == "PodGroupInitiallyScheduled":
            return cond["status"], cond["reason"], cond.get("message", "")
    return None
