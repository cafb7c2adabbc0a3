"""kube-scheduler's extender protocol, side by side with kube-scheduler v1.37.2: one
extender server (mutual TLS: its certificate signed by a CA both schedulers are given as
`tlsConfig.caData`, theirs as `certData` and `keyData`) serves both; kube-scheduler (its
own config, profile `ext-ks`) and kubesched (profile `ext-kubesched`) run with the same
`extenders:` section:

- `/ext`: nodeCacheCapable filter (FailedNodes and FailedAndUnresolvableNodes),
  prioritize (weight 2), preempt (it narrows the preemption candidates) and bind (the
  extender binds every pod through the API server);
- `/gpu`: a filter sent whole nodes, consulted only for pods requesting
  `example.com/ext-gpu` (managedResources, ignoredByScheduler: no node lists that
  resource, yet NodeResourcesFit lets such pods through);
- an ignorable extender nobody listens to, skipped by both, and one that is not
  ignorable, consulted only for pods requesting `example.com/ext-dead`: those fail.

The same pod goes first to kube-scheduler, then (deleted) to kubesched: both must bind it
to the same node, through the extender, or report the same FailedScheduling message.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.localcluster.pki import write_pki
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, wait_for
from tests.e2e.harness.client_certs import ClientCertificate, client_certificate
from tests.e2e.harness.extender_server import (
    CLOSED_WHY,
    EXCLUDED_WHY,
    EXCLUDED_ZONE,
    GPU,
    PREFERRED,
    REFUSE,
    REFUSED_WHY,
    WAIT,
    ExtenderState,
    extender_server,
)
from tests.e2e.harness.kubesched import KubeschedProcess, start_kubesched
from tests.e2e.harness.parity import Outcome, traceback_free, wait_outcome, with_limits

KS, OURS = "ext-ks", "ext-kubesched"
KS_PROCESS = "kube-scheduler-extenders"
GROUP = "ext.test/group"
GPU_RESOURCE = "example.com/ext-gpu"
DEAD_RESOURCE = "example.com/ext-dead"


def extenders(url: str, ca: bytes, client: ClientCertificate) -> list[dict[str, Any]]:
    tls = {
        "caData": base64.b64encode(ca).decode(),
        "certData": base64.b64encode(client.cert).decode(),
        "keyData": base64.b64encode(client.key).decode(),
    }
    return [
        {
            "urlPrefix": f"{url}/ext",
            "filterVerb": "filter",
            "prioritizeVerb": "prioritize",
            "preemptVerb": "preempt",
            "weight": 2,
            "bindVerb": "bind",
            "enableHTTPS": True,
            "tlsConfig": tls,
            "httpTimeout": "5s",
            "nodeCacheCapable": True,
        },
        {
            "urlPrefix": f"{url}/gpu",
            "filterVerb": "filter",
            "enableHTTPS": True,
            "tlsConfig": tls,
            "managedResources": [{"name": GPU_RESOURCE, "ignoredByScheduler": True}],
        },
        {"urlPrefix": "http://127.0.0.1:9/gone", "filterVerb": "filter", "ignorable": True},
        {
            "urlPrefix": "http://127.0.0.1:9/dead",
            "filterVerb": "filter",
            "managedResources": [{"name": DEAD_RESOURCE, "ignoredByScheduler": True}],
        },
    ]


def config(profile: str, kubeconfig: Path, extenders: list[dict[str, Any]]) -> str:
    return yaml.safe_dump(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "clientConnection": {"kubeconfig": str(kubeconfig)},
            "leaderElection": {
                "leaderElect": True,
                "resourceNamespace": "kube-system",
                "resourceName": profile,
            },
            "profiles": [{"schedulerName": profile}],
            "extenders": extenders,
        }
    )


@dataclass(frozen=True)
class Both:
    state: ExtenderState
    kubesched: KubeschedProcess


@pytest.fixture(scope="module")
def both(
    local_cluster: LocalCluster, api: ApiClient, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Both]:
    workdir = tmp_path_factory.mktemp("extenders")
    pki = write_pki(workdir / "pki")
    state = ExtenderState(api)
    client = client_certificate()
    serving = {"certificate": pki.serving_cert, "key": pki.serving_key}
    with extender_server(state, **serving, client_ca=client.ca) as url:
        sections = extenders(url, pki.ca_cert.read_bytes(), client)
        ks_config = workdir / "kube-scheduler.yaml"
        ks_kubeconfig = local_cluster.workdir / f"{KS_PROCESS}.kubeconfig"
        ks_config.write_text(config(KS, ks_kubeconfig, sections))
        ours_config = workdir / "kubesched.yaml"
        ours_config.write_text(config(OURS, local_cluster.kubeconfig_path, sections))
        local_cluster.start_extra_scheduler(
            KS_PROCESS, scheduler_name=KS, extra_args=(f"--config={ks_config}",)
        )
        proc = start_kubesched(
            local_cluster.kubeconfig_path,
            f"--config={ours_config}",
            workdir=workdir,
            name="kubesched-extenders",
            token=local_cluster.admin_token,
        )
        try:
            proc.wait_ready()
            yield Both(state, proc)
        finally:
            proc.stop()
            local_cluster.stop_extra_scheduler(KS_PROCESS)


@pytest.fixture(autouse=True)
def _report_log(request: pytest.FixtureRequest, both: Both) -> None:
    request.node.kubesched_processes = [both.kubesched]


def nodes(api: ApiClient, state: ExtenderState) -> None:
    """e1 refused, e2 in an excluded zone, e3 with the extender's gpu, e4 preferred."""
    table = {
        "ext-e1": {REFUSE: "true", GROUP: "bad"},
        "ext-e2": {EXCLUDED_ZONE: "true", GROUP: "bad"},
        "ext-e3": {GPU: "true", GROUP: "good"},
        "ext-e4": {PREFERRED: "true", GROUP: "good"},
    }
    for name, labels in table.items():
        node = make_node().name(name).capacity(cpu="4", memory="8Gi", pods="20")
        for key, value in labels.items():
            node.label(key, value)
        api.create(node.obj())
        state.labels[name] = {**labels}


def place(
    api: ApiClient, namespace: str, pod: dict[str, Any], scheduler: str, *, nodes: int | None = 4
) -> Outcome:
    """Create `pod` for `scheduler` and wait for its outcome; the pod is deleted after."""
    pod = {**pod, "metadata": {**pod["metadata"], "name": f"{scheduler}-p"}}
    pod["spec"] = {**pod["spec"], "schedulerName": scheduler}
    api.create(pod, namespace=namespace)
    outcome = wait_outcome(api, namespace, f"{scheduler}-p", nodes=nodes, timeout=30)
    api.delete("Pod", f"{scheduler}-p", namespace=namespace, grace_period=0)
    wait_for(
        lambda: api.get_or_none("Pod", f"{scheduler}-p", namespace=namespace),
        until=lambda found: found is None,
        message=f"pod {scheduler}-p deleted",
    )
    return outcome


def side_by_side(
    api: ApiClient, namespace: str, pod: dict[str, Any], *, nodes: int | None = 4
) -> tuple[Outcome, Outcome]:
    return place(api, namespace, pod, KS, nodes=nodes), place(
        api, namespace, pod, OURS, nodes=nodes
    )


def test_both_bind_through_the_extender_to_the_node_it_prefers(
    api: ApiClient, namespace: str, both: Both
) -> None:
    nodes(api, both.state)
    pod = make_pod().namespace(namespace).req(cpu="100m").obj()
    theirs, ours = side_by_side(api, namespace, pod)
    assert theirs.node == ours.node == "ext-e4", (theirs.describe(), ours.describe())
    bound = [(b["PodName"], b["Node"]) for b in both.state.bodies("/ext/bind")]
    assert (f"{KS}-p", "ext-e4") in bound
    assert (f"{OURS}-p", "ext-e4") in bound
    sent = [
        b for b in both.state.bodies("/ext/filter") if b["Pod"]["metadata"]["name"] == f"{OURS}-p"
    ]
    assert sent[0]["Nodes"] is None
    assert sorted(sent[0]["NodeNames"]) == ["ext-e1", "ext-e2", "ext-e3", "ext-e4"]
    assert sent[0]["Pod"]["spec"]["schedulerName"] == OURS
    assert traceback_free(both.kubesched.log())


def test_a_managed_resource_brings_the_second_extender_in(
    api: ApiClient, namespace: str, both: Both
) -> None:
    nodes(api, both.state)
    gpu = with_limits(
        make_pod().namespace(namespace).req_named({"cpu": "100m", GPU_RESOURCE: "1"}).obj()
    )
    theirs, ours = side_by_side(api, namespace, gpu)
    # /ext leaves e3 and e4, /gpu keeps e3 only; no node lists the resource (ignored).
    assert theirs.node == ours.node == "ext-e3", (theirs.describe(), ours.describe())
    asked = {b["Pod"]["metadata"]["name"] for b in both.state.bodies("/gpu/filter")}
    assert {f"{KS}-p", f"{OURS}-p"} <= asked
    whole = both.state.bodies("/gpu/filter")[-1]
    assert whole["NodeNames"] is None
    assert [n["metadata"]["name"] for n in whole["Nodes"]["items"]] in (
        ["ext-e3", "ext-e4"],
        ["ext-e4", "ext-e3"],
    )


def test_nodes_the_extender_refuses_read_the_same_in_failed_scheduling(
    api: ApiClient, namespace: str, both: Both
) -> None:
    nodes(api, both.state)
    pod = make_pod().namespace(namespace).req(cpu="100m").node_selector(**{GROUP: "bad"}).obj()
    theirs, ours = side_by_side(api, namespace, pod)
    assert not theirs.bound
    assert not ours.bound
    assert ours.full_message == theirs.full_message, (theirs.describe(), ours.describe())
    assert f"1 {REFUSED_WHY}" in ours.message
    assert f"1 {EXCLUDED_WHY}" in ours.message


def test_an_extender_that_cannot_be_reached_fails_the_pod_the_same_way(
    api: ApiClient, namespace: str, both: Both
) -> None:
    nodes(api, both.state)
    dead = make_pod().namespace(namespace).req_named({"cpu": "100m", DEAD_RESOURCE: "1"})
    theirs, ours = side_by_side(api, namespace, with_limits(dead.obj()), nodes=None)
    assert not theirs.bound
    assert theirs.reason == ours.reason == "SchedulerError"
    assert ours.full_message == theirs.full_message, (theirs.describe(), ours.describe())
    assert ours.full_message == (
        'Post "http://127.0.0.1:9/dead/filter": dial tcp 127.0.0.1:9: connect: connection refused'
    )


def test_a_pod_the_extender_refused_is_retried_on_any_node_change(
    api: ApiClient, namespace: str, both: Both
) -> None:
    """Extenders register no events: upstream requeues a pod they rejected on any cluster
    event (its `Extender` plugin name); kubesched must retry it as soon as well."""
    nodes(api, both.state)
    both.state.closed = True
    for scheduler in (KS, OURS):
        pod = make_pod().name(f"{scheduler}-w").namespace(namespace).req(cpu="100m")
        pod = pod.scheduler(scheduler).label(WAIT, "true")
        api.create(pod.obj(), namespace=namespace)
    waiting = {s: wait_outcome(api, namespace, f"{s}-w", nodes=4) for s in (KS, OURS)}
    assert waiting[OURS].full_message == waiting[KS].full_message
    assert waiting[OURS].message == f"0/4 nodes are available: 4 {CLOSED_WHY}."
    both.state.closed = False
    api.patch("Node", "ext-e3", {"metadata": {"labels": {"ext.test/touched": "yes"}}})
    placed = {
        s: wait_for(
            lambda s=s: api.get("Pod", f"{s}-w", namespace=namespace)["spec"].get("nodeName"),
            timeout=15,
            message=f"{s}-w bound once the extender opened",
        )
        for s in (KS, OURS)
    }
    assert placed == {KS: "ext-e4", OURS: "ext-e4"}


@pytest.fixture
def priorities(api: ApiClient) -> Iterator[tuple[str, str]]:
    suffix = secrets.token_hex(3)
    names = (f"ext-low-{suffix}", f"ext-high-{suffix}")
    for name, value in zip(names, (10, 1000), strict=True):
        body = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "value": value}
        api.create({**body, "metadata": {"name": name}})
    try:
        yield names
    finally:
        for name in names:
            api.delete("PriorityClass", name)


def _victim(api: ApiClient, namespace: str, node: str, klass: str) -> None:
    body = make_pod().name(f"v-{node}").namespace(namespace).node(node).req(cpu="4").obj()
    del body["metadata"]["uid"]
    body["spec"]["priorityClassName"] = klass
    api.create(body, namespace=namespace)


def _preempting(
    api: ApiClient, namespace: str, scheduler: str, klass: str
) -> tuple[str, Outcome, list[str]]:
    """The node `scheduler` nominates its preemptor to, its message, the victims evicted."""
    body = make_pod().name(f"{scheduler}-hi").namespace(namespace).scheduler(scheduler)
    body = body.req(cpu="2").node_selector(**{GROUP: "good"})
    pod = body.obj()
    del pod["metadata"]["uid"]
    pod["spec"]["priorityClassName"] = klass
    api.create(pod, namespace=namespace)
    nominated = wait_for(
        lambda: api.get("Pod", f"{scheduler}-hi", namespace=namespace)["status"].get(
            "nominatedNodeName"
        ),
        timeout=30,
        message=f"{scheduler}-hi nominated",
    )
    outcome = wait_outcome(api, namespace, f"{scheduler}-hi", nodes=4)
    evicted = wait_for(
        lambda: [
            p["metadata"]["name"]
            for p in api.list("Pod", namespace=namespace)
            if p["metadata"].get("deletionTimestamp")
        ],
        message="a victim evicted",
    )
    api.delete("Pod", f"{scheduler}-hi", namespace=namespace, grace_period=0)
    return nominated, outcome, evicted


def test_the_preempt_verb_narrows_the_candidates_the_same_way(
    api: ApiClient, namespace: str, both: Both, priorities: tuple[str, str]
) -> None:
    """Both victims (on e3 and e4) would do; the extender keeps e3 only."""
    low, high = priorities
    nodes(api, both.state)
    results = {}
    for scheduler in (KS, OURS):
        for node in ("ext-e3", "ext-e4"):
            _victim(api, namespace, node, low)
        results[scheduler] = _preempting(api, namespace, scheduler, high)
        for node in ("ext-e3", "ext-e4"):
            api.delete("Pod", f"v-{node}", namespace=namespace, grace_period=0)
        wait_for(
            lambda: api.list("Pod", namespace=namespace),
            until=lambda pods: not pods,
            message="the victims and the preemptor gone",
        )
    theirs, ours = results[KS], results[OURS]
    assert theirs[0] == ours[0] == "ext-e3"
    assert theirs[2] == ours[2] == ["v-ext-e3"]
    assert ours[1].full_message == theirs[1].full_message, (theirs[1], ours[1])
    sent = both.state.bodies("/ext/preempt")
    assert {tuple(sorted(b["NodeNameToMetaVictims"])) for b in sent} == {("ext-e3", "ext-e4")}
    assert {b["Pod"]["metadata"]["name"] for b in sent} == {f"{KS}-hi", f"{OURS}-hi"}
