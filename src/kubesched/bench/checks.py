"""The end-of-run checks: every measured pod bound exactly once, no node overcommitted; for
a DRA workload its claims (`dra_checks`), for one with ElasticQuotas its quotas
(`quota_setup`), for one with NodeResourceTopology objects the zones its pods fit
(`numa_setup`), for one with native PodGroups their gangs and domains (`podgroup_checks`),
for a scripted case every measured pod on a node valid for it (`placement`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from kubesched.bench.dra_checks import dra_problems
from kubesched.bench.numa_setup import topology_problems
from kubesched.bench.placement import placement_problems
from kubesched.bench.podgroup_checks import podgroup_problems
from kubesched.bench.quota_setup import quota_problems
from kubesched.bench.tracker import PodTracker
from kubesched.bench.workloads import Workload
from kubesched.kube.client import KubeClient
from kubesched.kube.paging import list_all
from kubesched.model import Node, Pod, Resource

BENCH_LIST_TIMEOUT_SECONDS = 120.0


async def workload_problems(
    client: KubeClient,
    tracker: PodTracker,
    workload: Workload,
    *,
    expected: int | None,
    allocates: bool,
) -> list[str]:
    """Every check that applies to `workload`; `allocates`: the contender allocates DRA
    claims (the null binder does not)."""
    measured = workload.measured
    selector = workload.script.selector if workload.script is not None else ""
    problems = await run_checks(
        client, tracker, namespace=measured.namespaces(), expected=expected, selector=selector
    )
    if workload.script is not None:
        labels = dict(term.split("=", 1) for term in selector.split(",") if term)
        problems += await placement_problems(client, measured.namespaces(), labels)
    if workload.quotas:
        problems += await quota_problems(client)
    if workload.topologies is not None:
        problems += await topology_problems(client, measured.namespaces())
    if workload.dra is not None:
        problems += await dra_problems(client, namespace=measured.namespace, allocates=allocates)
    if allocates and workload.feature_gates:
        problems += await podgroup_problems(
            client, objects=workload.objects, namespaces=measured.namespaces(), records=tracker.pods
        )
    return problems


async def run_checks(
    client: KubeClient,
    tracker: PodTracker,
    *,
    namespace: str | Sequence[str],
    expected: int | None,
    selector: str = "",
) -> list[str]:
    """What went wrong (empty: the run is valid); `namespace`: the measured pods' (one or
    several), `selector` (`key=value,...`) the labels they carry; `expected` None (a
    steady-state run, which deletes the pods it saw bound): no count is checked."""
    measured = {namespace} if isinstance(namespace, str) else set(namespace)
    wanted = dict(term.split("=", 1) for term in selector.split(",") if term)
    problems = list(tracker.violations[:5])
    if len(tracker.violations) > 5:
        problems.append(f"... {len(tracker.violations) - 5} more violations")
    if expected is not None and tracker.bound != expected:
        problems.append(f"{tracker.bound} of {expected} measured pods bound")
    nodes = {node.name: node async for node in _nodes(client)}
    used: dict[str, Resource] = {name: Resource() for name in nodes}
    final_bound = 0
    for obj in await list_all(client, "/api/v1/pods", timeout=BENCH_LIST_TIMEOUT_SECONDS):
        pod = Pod.from_json(obj)
        carries = all(pod.labels.get(key) == value for key, value in wanted.items())
        if pod.namespace in measured and carries and pod.node_name:
            final_bound += 1
            record = tracker.pods.get(pod.name)
            watched = record.node if record is not None else None
            if _seen_otherwise(watched, pod.node_name, expected):
                problems.append(f"pod {pod.key} is on {pod.node_name}, the watch saw otherwise")
        if pod.node_name and not pod.terminal:
            total = used.setdefault(pod.node_name, Resource())
            total.add(pod.requests)
            total.allowed_pods += 1
    if expected is not None and final_bound != expected:
        problems.append(f"the API server has {final_bound} of {expected} measured pods bound")
    problems += _overcommitted(nodes, used)
    return problems


def _seen_otherwise(watched: str | None, node: str, expected: int | None) -> bool:
    """Whether the watch's node for a pod (None: never seen) contradicts the API server's.
    A steady-state run (`expected` None) ends with the scheduler still at work: a pod created
    or bound after the watch stopped is not a contradiction, only another node is."""
    if expected is None:
        return bool(watched) and watched != node
    return watched != node


async def _nodes(client: KubeClient) -> AsyncIterator[Node]:
    for obj in await list_all(client, "/api/v1/nodes", timeout=BENCH_LIST_TIMEOUT_SECONDS):
        yield Node.from_json(obj)


def _overcommitted(nodes: dict[str, Node], used: dict[str, Resource]) -> list[str]:
    bad: list[str] = []
    for name, total in used.items():
        node = nodes.get(name)
        if node is None:
            if total.allowed_pods:
                bad.append(f"{name}: {total.allowed_pods} pod(s) on a node that does not exist")
            continue
        free = node.allocatable
        for what, have, limit in (
            ("cpu", total.milli_cpu, free.milli_cpu),
            ("memory", total.memory, free.memory),
            ("pods", total.allowed_pods, free.allowed_pods),
        ):
            if have > limit:
                bad.append(f"{name}: {what} {have} > allocatable {limit}")
    if not bad:
        return []
    return [f"{len(bad)} node(s) overcommitted, e.g. {bad[0]}"]
