"""A pod's life around kubesched: deleted while queued or while its binding is in flight,
bound by someone else, gated, ordered by priority; and two profiles in one process."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import (
    ApiClient,
    assert_stays,
    condition,
    is_bound,
    is_pending_unbound,
    is_unschedulable,
    node_name,
    wait_for,
)
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.harness.parity import (
    pod_events,
    traceback_free,
    wait_outcome,
    wait_scheduled_by,
    write_config,
)

SCHEDULER = "lifecycle-scheduler"
DEFAULT = "default-scheduler"
ERROR_LINE_PREFIXES = ("E", "F")  # klog severities Error, Fatal


def get(api: ApiClient, namespace: str, name: str) -> dict[str, Any]:
    return api.get("Pod", name, namespace=namespace)


def error_lines(log: str) -> list[str]:
    """Lines logged at Error/Fatal severity (klog header `E1129 ...`) or tracebacks."""
    return [
        line
        for line in log.splitlines()
        if (line[:1] in ERROR_LINE_PREFIXES and line[1:5].isdigit()) or "Traceback" in line
    ]


def test_pod_deleted_while_queued_is_dropped(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    api.create(make_node().name("small").capacity(cpu="1").obj())
    builder = make_pod().name("doomed").namespace(namespace).scheduler(SCHEDULER)
    doomed = api.create(builder.req(cpu="2").obj())
    assert not wait_outcome(api, namespace, "doomed", nodes=1).bound
    api.delete("Pod", "doomed", namespace=namespace, grace_period=0)
    # A node that would fit arrives: the queue must not resurrect the deleted pod.
    api.create(make_node().name("big").capacity(cpu="4").obj())
    api.create(make_pod().name("next").namespace(namespace).scheduler(SCHEDULER).req(cpu="2").obj())
    wait_for(lambda: get(api, namespace, "next"), until=is_bound, timeout=10)
    assert api.get_or_none("Pod", "doomed", namespace=namespace) is None
    new, _core = pod_events(api, namespace, doomed, "Scheduled")
    assert not new, f"a deleted pod was scheduled: {new}"
    assert proc.running()
    assert not error_lines(proc.log()), "\n".join(error_lines(proc.log()))


SLOW_BIND_PLUGIN = '''
"""PreBind that holds pods labelled slow-bind=true for a while: a binding in flight.
It touches `<args.markers>/<pod name>` on entry, so the test knows the binding started."""
import asyncio
import pathlib


class SlowBind:
    name = "SlowBind"

    def __init__(self, *, args, handle):
        self.seconds = float(args.get("seconds", 3))
        self.markers = pathlib.Path(args["markers"])

    async def pre_bind(self, _state, pod, _node_name):
        if pod.labels.get("slow-bind") == "true":
            (self.markers / pod.name).write_text(pod.uid)
            await asyncio.sleep(self.seconds)


def register(registry):
    registry.register_class(SlowBind)
'''


def test_pod_deleted_or_replaced_while_binding_is_in_flight(
    kubesched: StartKubesched,
    api: ApiClient,
    namespace: str,
    local_cluster: LocalCluster,
    tmp_path: Path,
) -> None:
    """The binding carries the pod's UID: a pod deleted (or deleted and re-created under the
    same name) while its binding is in flight is dropped, never bound in its place."""
    (tmp_path / "slow_bind.py").write_text(textwrap.dedent(SLOW_BIND_PLUGIN))
    markers = tmp_path / "in-flight"
    markers.mkdir()
    config = write_config(
        tmp_path / "config.yaml",
        kubeconfig=local_cluster.kubeconfig_path,
        profiles=[
            {
                "schedulerName": SCHEDULER,
                "plugins": {"preBind": {"enabled": [{"name": "SlowBind"}]}},
                "pluginConfig": [
                    {"name": "SlowBind", "args": {"seconds": 3, "markers": str(markers)}}
                ],
            }
        ],
    )
    proc = kubesched(
        f"--config={config}", "--plugin-module=slow_bind", extra_env={"PYTHONPATH": str(tmp_path)}
    )
    api.create(make_node().name("only").obj())

    def slow(name: str) -> dict[str, Any]:
        pod = make_pod().name(name).namespace(namespace).scheduler(SCHEDULER)
        return pod.label("slow-bind", "true").obj()

    gone = api.create(slow("gone"))
    replaced = api.create(slow("replaced"))
    # Both are in their binding cycle (PreBind sleeping): delete one, replace the other.
    wait_for(
        lambda: sorted(p.name for p in markers.iterdir()),
        until=lambda names: names == ["gone", "replaced"],
        timeout=10,
        message="both pods are in their binding cycle (PreBind entered)",
    )
    api.delete("Pod", "gone", namespace=namespace, grace_period=0)
    api.delete("Pod", "replaced", namespace=namespace, grace_period=0)
    fresh = make_pod().name("replaced").namespace(namespace).scheduler(SCHEDULER).obj()
    fresh = api.create(fresh)  # not slow: it is bound at once
    fresh_bound = wait_for(lambda: get(api, namespace, "replaced"), until=is_bound, timeout=10)
    assert fresh_bound["metadata"]["uid"] == fresh["metadata"]["uid"]
    proc.wait_log("dropping pod after binding conflict", timeout=10)
    wait_for(
        lambda: proc.log().count("dropping pod after binding conflict"),
        until=lambda n: n >= 2,
        timeout=10,
        message="both stale bindings are dropped",
    )
    assert api.get_or_none("Pod", "gone", namespace=namespace) is None
    for stale in (gone, replaced):
        new, _core = pod_events(api, namespace, stale, "Scheduled")
        assert not new, f"{stale['metadata']['name']} (old UID) was reported Scheduled: {new}"
        failed, _core = pod_events(api, namespace, stale, "FailedScheduling")
        assert not failed, f"a dropped pod got FailedScheduling: {failed}"
    assert wait_scheduled_by(api, namespace, fresh) == {SCHEDULER}
    assert proc.running()
    errors = error_lines(proc.log())
    assert not errors, (
        "kubesched logged errors for the expected 404/409 of a stale binding "
        "(the pod is dropped, as it should be, but not 'without error'):\n" + "\n".join(errors)
    )


def test_pod_bound_by_someone_else_while_queued_is_not_rebound(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    # kubesched cannot use `reserved` (tainted); someone else binds the pod there.
    api.create(make_node().name("reserved").taint("reserved", "true", "NoSchedule").obj())
    pod = api.create(make_pod().name("p").namespace(namespace).scheduler(SCHEDULER).obj())
    wait_for(lambda: get(api, namespace, "p"), until=is_unschedulable, timeout=10)
    # The event and the PodScheduled condition are two writes; count once both are in.
    failures_before = wait_for(
        lambda: len(pod_events(api, namespace, pod, "FailedScheduling")[0]),
        until=lambda n: n >= 1,
        timeout=10,
        message="the FailedScheduling event of the first attempt is recorded",
    )
    api.bind(pod, "reserved")
    # Now a node kubesched could use arrives: the queued pod must not be bound again.
    api.create(make_node().name("open").obj())
    assert_stays(
        lambda: get(api, namespace, "p"),
        holds=lambda p: node_name(p) == "reserved",
        duration=3,
        message="the pod stays where someone else bound it",
    )
    new, _core = pod_events(api, namespace, pod, "Scheduled")
    assert not new, f"kubesched reported a second binding: {new}"
    assert len(pod_events(api, namespace, pod, "FailedScheduling")[0]) == failures_before
    log = proc.log()
    assert "dropping pod after binding conflict" not in log, "kubesched tried to bind it again"
    assert not error_lines(log), "\n".join(error_lines(log))


def test_two_profiles_in_one_process(
    kubesched: StartKubesched,
    api: ApiClient,
    namespace: str,
    local_cluster: LocalCluster,
    tmp_path: Path,
) -> None:
    """alpha spreads (LeastAllocated, the default), beta packs (MostAllocated): two
    frameworks, two scheduler names, one process."""
    config = write_config(
        tmp_path / "config.yaml",
        kubeconfig=local_cluster.kubeconfig_path,
        profiles=[
            {"schedulerName": "alpha-scheduler"},
            {
                "schedulerName": "beta-scheduler",
                "pluginConfig": [
                    {
                        "name": "NodeResourcesFit",
                        "args": {"scoringStrategy": {"type": "MostAllocated"}},
                    }
                ],
            },
        ],
    )
    proc = kubesched(f"--config={config}")
    api.create(make_node().name("busy").capacity(cpu="4").obj())
    api.create(make_node().name("idle").capacity(cpu="4").obj())
    # Balanced requests, so NodeResourcesBalancedAllocation scores both nodes alike.
    filler = make_pod().name("filler").namespace(namespace).node("busy")
    api.create(filler.req(cpu="2", memory="16Gi").obj())
    pods = {}
    for scheduler in ("alpha-scheduler", "beta-scheduler", "gamma-scheduler"):
        name = scheduler.removesuffix("-scheduler")
        pod = make_pod().name(name).namespace(namespace).scheduler(scheduler)
        pod = pod.req(cpu="500m", memory="4Gi")
        pods[name] = api.create(pod.obj())
    alpha = wait_for(lambda: get(api, namespace, "alpha"), until=is_bound, timeout=10)
    beta = wait_for(lambda: get(api, namespace, "beta"), until=is_bound, timeout=10)
    assert node_name(alpha) == "idle", "alpha-scheduler (LeastAllocated) spreads"
    assert node_name(beta) == "busy", "beta-scheduler (MostAllocated) packs"
    assert wait_scheduled_by(api, namespace, pods["alpha"]) == {"alpha-scheduler"}
    assert wait_scheduled_by(api, namespace, pods["beta"]) == {"beta-scheduler"}
    gamma = assert_stays(
        lambda: get(api, namespace, "gamma"),
        holds=is_pending_unbound,
        duration=2,
        message="a pod for a scheduler no profile serves is not touched",
    )
    assert condition(gamma, "PodScheduled") is None
    assert traceback_free(proc.log())


def test_scheduling_gates_hold_pods_until_removed(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    """Gated pods are not attempted (no event, the API server's SchedulingGated condition
    stays), by kubesched as by kube-scheduler; once the gate is removed, both are placed."""
    proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
    api.create(make_node().name("gates-node").obj())
    pods: dict[str, dict[str, Any]] = {}
    for name, scheduler in (("kube", DEFAULT), ("ours", SCHEDULER)):
        builder = make_pod().name(name).namespace(namespace).scheduler(scheduler)
        pods[name] = api.create(builder.scheduling_gate("example.com/hold").obj())

    def gated(pod: dict[str, Any]) -> bool:
        scheduled = condition(pod, "PodScheduled") or {}
        return is_pending_unbound(pod) and scheduled.get("reason") == "SchedulingGated"

    for name in pods:
        assert_stays(
            lambda name=name: get(api, namespace, name),
            holds=gated,
            duration=1.5,
            message=f"gated pod {name} is not attempted",
        )
    for pod in pods.values():
        assert not pod_events(api, namespace, pod, "FailedScheduling")[0]
        assert not pod_events(api, namespace, pod, "Scheduled")[0]
    kube_condition = condition(get(api, namespace, "kube"), "PodScheduled") or {}
    ours_condition = condition(get(api, namespace, "ours"), "PodScheduled") or {}
    assert (ours_condition.get("reason"), ours_condition.get("message")) == (
        kube_condition.get("reason"),
        kube_condition.get("message"),
    )
    for name in pods:
        api.patch("Pod", name, {"spec": {"schedulingGates": None}}, namespace=namespace)
    for name in pods:
        wait_for(lambda name=name: get(api, namespace, name), until=is_bound, timeout=10)
    assert wait_scheduled_by(api, namespace, pods["ours"]) == {SCHEDULER}
    assert traceback_free(proc.log())


def test_higher_priority_pod_is_placed_first(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    """Room for one pod; two pods wait (the low-priority one arrived first): the
    higher-priority one is placed, the other is reported unschedulable."""
    classes = {"lifecycle-e2e-low": 10, "lifecycle-e2e-high": 1000}
    for name, value in classes.items():
        api.delete("PriorityClass", name)
        api.create(
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": value,
            }
        )
    try:
        api.create(make_node().name("one-slot").capacity(cpu="1").obj())
        for name, klass in (("low", "lifecycle-e2e-low"), ("high", "lifecycle-e2e-high")):
            pod = make_pod().name(name).namespace(namespace).scheduler(SCHEDULER).req(cpu="1")
            body = pod.obj()
            body["spec"]["priorityClassName"] = klass
            api.create(body)
        # Both are queued before kubesched starts, so order is the queue's alone.
        proc = kubesched(f"--scheduler-name={SCHEDULER}", "--leader-elect=false")
        high = wait_outcome(api, namespace, "high", nodes=1)
        low = wait_outcome(api, namespace, "low", nodes=1)
        assert high.node == "one-slot", high.describe()
        assert not low.bound, low.describe()
        assert low.message == "0/1 nodes are available: 1 Insufficient cpu."
        assert traceback_free(proc.log())
    finally:
        for name in classes:
            api.delete("PriorityClass", name)
