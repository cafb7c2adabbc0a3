"""CompositePodGroup (kube-scheduler v1.37's alpha `CompositePodGroup` feature gate, on top of
`GenericWorkload` and `TopologyAwareWorkloadScheduling`), kubesched against kube-scheduler.

A second kube-scheduler with the three gates (profile `cpg-oracle`) runs beside the default
one, kubesched with the same gates (profile `cpg-kubesched`). Each scheduler gets two nodes
of its own: `<s>-a` (4 cpu) labelled with its rack key, `<s>-b` (3 cpu) with its pool key;
each CompositePodGroup's `schedulingConstraints.topology` names one of these keys, so its
one placement is that scheduler's own node. Two composites of two gangs (minCount 2, 1-cpu
members) each, `gang: {minGroupCount: 2}`: on the 4-cpu node the whole tree binds; on the
3-cpu node the first gang would fit but the second cannot, so nothing binds, and every
member and PodGroup says the same as kube-scheduler's.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, unschedulable_message, wait_for
from tests.e2e.harness.priority_classes import priority_classes

ORACLE, OURS = "cpg-oracle", "cpg-kubesched"
SCHEDULERS = (ORACLE, OURS)
ORACLE_PROCESS = "kube-scheduler-cpg"
GATES = (
    "--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true,"
    "CompositePodGroup=true"
)
PG_PATH = "/apis/scheduling.k8s.io/v1beta1/namespaces/{ns}/podgroups"
CPG_PATH = "/apis/scheduling.k8s.io/v1alpha3/namespaces/{ns}/compositepodgroups"
WORKLOAD = {"workloadName": "job", "templateName": "job"}


def _key(kind: str, scheduler: str) -> str:
    return f"e2e.kubesched.io/{kind}-{scheduler}"


@pytest.fixture(scope="module")
def oracle(local_cluster: LocalCluster) -> Iterator[int]:
    port = local_cluster.start_extra_scheduler(
        ORACLE_PROCESS, scheduler_name=ORACLE, generic_workload=True, extra_args=(GATES,)
    )
    try:
        yield port
    finally:
        local_cluster.stop_extra_scheduler(ORACLE_PROCESS)


def _composite(
    api: ApiClient,
    ns: str,
    name: str,
    key: str,
    *,
    groups: list[str],
    scheduler: str,
    klass: str = "",
    size: int = 2,
) -> list[str]:
    """A CompositePodGroup `name` (gang of all its groups, within one domain of `key`), its
    PodGroups (gang of 2) and their 1-cpu members; the members' names."""
    spec = {
        "workloadRef": WORKLOAD,
        "schedulingPolicy": {"gang": {"minGroupCount": len(groups)}},
        "schedulingConstraints": {"topology": [{"key": key}]},
        **({"priorityClassName": klass} if klass else {}),
    }
    body = {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "CompositePodGroup"}
    api.request(
        "POST", CPG_PATH.format(ns=ns), body={**body, "metadata": {"name": name}, "spec": spec}
    )
    members = []
    for group in groups:
        pg_spec = {
            "parentCompositePodGroupName": name,
            "workloadRef": WORKLOAD,
            "schedulingPolicy": {"gang": {"minCount": size}},
            **({"priorityClassName": klass} if klass else {}),
        }
        pg = {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup"}
        created = api.request(
            "POST", PG_PATH.format(ns=ns), body={**pg, "metadata": {"name": group}, "spec": pg_spec}
        )
        assert created["spec"].get("parentCompositePodGroupName") == name
        for i in range(size):
            pod = make_pod().name(f"{group}-{i}").scheduler(scheduler).pod_group(group).req(cpu="1")
            pod_body = pod.obj()
            if klass:
                pod_body["spec"]["priorityClassName"] = klass
            api.create(pod_body, namespace=ns)
            members.append(f"{group}-{i}")
    return members


def _condition(api: ApiClient, ns: str, group: str) -> tuple[str, str, str] | None:
    status = api.request("GET", PG_PATH.format(ns=ns) + f"/{group}").get("status") or {}
    for cond in status.get("conditions") or ():
        if cond["type"] == "PodGroupInitiallyScheduled":
            return cond["status"], cond["reason"], cond.get("message", "")
    return None


def _said(api: ApiClient, ns: str, pod: str) -> str:
    message = wait_for(
        lambda: unschedulable_message(api.get("Pod", pod, namespace=ns)),
        timeout=30,
        message=f"{ns}/{pod} says why",
    )
    events = wait_for(
        lambda: api.events(ns, regarding=pod, reason="FailedScheduling"),
        message=f"{ns}/{pod} FailedScheduling",
    )
    return f"{message} | event: {events[-1].note}"


def test_a_composite_binds_whole_or_not_at_all_as_kube_scheduler(
    api: ApiClient, oracle: int, kubesched: Any, new_namespace: Any
) -> None:
    del oracle
    kubesched(f"--scheduler-name={OURS}", GATES)
    spaces = {s: new_namespace(hint=s) for s in SCHEDULERS}
    for s in SCHEDULERS:
        api.create(
            make_node()
            .name(f"{s}-a")
            .label(_key("rack", s), "a")
            .capacity(cpu="4", pods="20")
            .obj()
        )
        api.create(
            make_node()
            .name(f"{s}-b")
            .label(_key("pool", s), "b")
            .capacity(cpu="3", pods="20")
            .obj()
        )
    fits, rejected = {}, {}
    for s, ns in spaces.items():
        fits[s] = _composite(
            api, ns, "fits", _key("rack", s), groups=["fits-a", "fits-b"], scheduler=s
        )
        rejected[s] = _composite(
            api, ns, "nofit", _key("pool", s), groups=["nofit-a", "nofit-b"], scheduler=s
        )
    for s, ns in spaces.items():
        bound = wait_for(
            lambda ns=ns: sorted(
                p["spec"]["nodeName"] for p in api.list("Pod", namespace=ns) if is_bound(p)
            ),
            until=lambda nodes: len(nodes) == 4,
            timeout=30,
            message=f"{s} binds the composite that fits",
        )
        assert bound == [f"{s}-a"] * 4
    said = {s: sorted(f"{p}: {_said(api, ns, p)}" for p in rejected[s]) for s, ns in spaces.items()}
    assert said[OURS] == said[ORACLE], said
    for group in ("fits-a", "fits-b", "nofit-a", "nofit-b"):
        conditions = {
            s: wait_for(
                lambda ns=ns, group=group: _condition(api, ns, group),
                message=f"{s} {group} condition",
            )
            for s, ns in spaces.items()
        }
        assert conditions[OURS] == conditions[ORACLE], (group, conditions)
    assert _condition(api, spaces[OURS], "fits-a") == ("True", "Scheduled", "")
    assert not [
        p
        for p in api.list("Pod", namespace=spaces[OURS])
        if p["metadata"]["name"].startswith("nofit") and is_bound(p)
    ]


def test_a_composite_preempts_lower_priority_pods_as_kube_scheduler(
    api: ApiClient, oracle: int, kubesched: Any, new_namespace: Any
) -> None:
    """A composite of two one-pod gangs (priority 1000) on a 2-cpu node holding a 1-cpu pod of
    priority 10: both schedulers evict that pod and bind the whole tree there."""
    del oracle
    kubesched(f"--scheduler-name={OURS}", GATES)
    spaces = {s: new_namespace(hint=f"{s}-p") for s in SCHEDULERS}
    with priority_classes(api, "cpg", (("low", 10), ("high", 1000))) as (low, high):
        for s, ns in spaces.items():
            node = make_node().name(f"{s}-p").label(_key("prio", s), "p")
            api.create(node.capacity(cpu="2", pods="20").obj())
            victim = make_pod().name("victim").node(f"{s}-p").req(cpu="1").obj()
            victim["spec"]["priorityClassName"] = low
            api.create(victim, namespace=ns)
        for s, ns in spaces.items():
            groups = ["hi-a", "hi-b"]
            _composite(
                api, ns, "hi", _key("prio", s), groups=groups, scheduler=s, klass=high, size=1
            )
        for s, ns in spaces.items():
            # The victim's node has no kubelet: once the scheduler has deleted it, finish
            # the deletion as a kubelet would.
            wait_for(
                lambda ns=ns: api.get("Pod", "victim", namespace=ns)["metadata"].get(
                    "deletionTimestamp"
                ),
                timeout=30,
                message=f"{s} preempts the victim",
            )
            api.delete("Pod", "victim", namespace=ns, grace_period=0)
        for s, ns in spaces.items():
            bound = wait_for(
                lambda ns=ns: sorted(
                    p["metadata"]["name"]
                    for p in api.list("Pod", namespace=ns)
                    if is_bound(p) and p["metadata"]["name"] != "victim"
                ),
                until=lambda names: len(names) == 2,
                timeout=40,
                message=f"{s} preempts for the composite and binds it",
            )
            assert bound == ["hi-a-0", "hi-b-0"]
