"""ElasticQuotas in a benchmark run: scheduler-plugins' pinned ElasticQuota CRD installed and
the workload's quotas created before the contender starts; after the run, every quota's
`max` checked against what the bound pods of its namespace request (and, when a quota is
over its `min`, all quotas together within the sum of their `min`s: borrowing is only
allowed while they are).

Only `cpu` and `memory` are checked (what the quota cases name); pods count with their
requests (containers summed, init containers a floor, the overhead added).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kubesched.bench.crd_wait import install_crd
from kubesched.kube.client import KubeClient
from kubesched.kube.paging import list_all
from kubesched.localcluster import scheduler_plugins as splugins
from kubesched.model import Pod, Resource
from kubesched.model.quantity import milli_value, value

GROUP_PATH = "/apis/scheduling.x-k8s.io/v1alpha1"
ELASTIC_QUOTA_CRD = "elasticquotas.scheduling.x-k8s.io"
CHECKED = ("cpu", "memory")
LIST_TIMEOUT = 120.0


def elastic_quota(
    namespace: str, *, minimum: Mapping[str, str], maximum: Mapping[str, str]
) -> dict[str, Any]:
    """An ElasticQuota named after its namespace, with `min`/`max` of `minimum`/`maximum`."""
    return {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "ElasticQuota",
        "metadata": {"name": namespace, "namespace": namespace},
        "spec": {"min": dict(minimum), "max": dict(maximum)},
    }


async def prepare_quotas(client: KubeClient, quotas: Sequence[dict[str, Any]]) -> None:
    """Install the ElasticQuota CRD, wait until it is served, create `quotas`."""
    for crd in splugins.crd_documents():
        if crd["metadata"]["name"] == ELASTIC_QUOTA_CRD:
            await install_crd(client, crd, group_path=GROUP_PATH, plural="elasticquotas")
    for quota in quotas:
        namespace = quota["metadata"]["namespace"]
        await client.post(f"{GROUP_PATH}/namespaces/{namespace}/elasticquotas", quota)


async def quota_problems(client: KubeClient) -> list[str]:
    """What the bound pods did to the quotas that they should not have (empty: nothing)."""
    quotas = await list_all(client, f"{GROUP_PATH}/elasticquotas", timeout=LIST_TIMEOUT)
    pods = await list_all(client, "/api/v1/pods", timeout=LIST_TIMEOUT)
    return problems_of(quotas, (Pod.from_json(obj) for obj in pods))


def problems_of(quotas: Iterable[dict[str, Any]], pods: Iterable[Pod]) -> list[str]:
    """`quota_problems` on objects already listed."""
    bounds = {q["metadata"]["namespace"]: q.get("spec") or {} for q in quotas}
    used = {namespace: dict.fromkeys(CHECKED, 0) for namespace in bounds}
    for pod in pods:
        if pod.node_name and not pod.terminal and pod.namespace in used:
            _add(used[pod.namespace], pod.requests)
    problems = [
        f"namespace {namespace} uses {name} {have} > its ElasticQuota's max {limit}"
        for namespace, spec in bounds.items()
        for name, have, limit in _compared(used[namespace], spec.get("max") or {})
        if have > limit
    ]
    over_min = [ns for ns, spec in bounds.items() if _over(used[ns], spec.get("min") or {})]
    if over_min:
        problems += _aggregate(used, bounds, over_min)
    return problems


def borrowers(quotas: Iterable[dict[str, Any]], used: Mapping[str, Mapping[str, int]]) -> list[str]:
    """The namespaces whose `used` (cpu in millicores, memory in bytes) is over their quota's
    `min`."""
    return [
        q["metadata"]["namespace"]
        for q in quotas
        if _over(used.get(q["metadata"]["namespace"], {}), (q.get("spec") or {}).get("min") or {})
    ]


def _add(total: dict[str, int], requests: Resource) -> None:
    total["cpu"] += requests.milli_cpu
    total["memory"] += requests.memory


def _amount(name: str, quantity: str) -> int:
    return milli_value(quantity) if name == "cpu" else value(quantity)


def _compared(used: Mapping[str, int], bounds: Mapping[str, str]) -> Iterable[tuple[str, int, int]]:
    """(resource, used, bound) of each checked resource the bounds name."""
    for name in CHECKED:
        if name in bounds:
            yield name, used.get(name, 0), _amount(name, str(bounds[name]))


def _over(used: Mapping[str, int], minimum: Mapping[str, str]) -> bool:
    return any(have > limit for _name, have, limit in _compared(used, minimum))


def _aggregate(
    used: Mapping[str, Mapping[str, int]],
    bounds: Mapping[str, Mapping[str, Any]],
    over_min: Sequence[str],
) -> list[str]:
    problems = []
    for name in CHECKED:
        total = sum(u[name] for u in used.values())
        minimum = sum(
            _amount(name, str((s.get("min") or {}).get(name, 0))) for s in bounds.values()
        )
        if total > minimum:
            problems.append(
                f"{len(over_min)} quota(s) over their min (e.g. {over_min[0]}) while all quotas "
                f"together use {name} {total} > the sum of their mins {minimum}"
            )
    return problems
