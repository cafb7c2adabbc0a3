"""Each quota's runtime share of the cluster in a quota tree (Koordinator's "runtime quota").

Per resource, bottom-up, a quota's request is what its pods ask for (bound or pending, not
ended) plus its children's requests, limited by its `max`; top-down, the cluster's
allocatable is divided between the top-level quotas, and each parent's share between its
children (`share.divide`: guarantees first, the rest by shared weight, never beyond the
request). A parent's `max` thus bounds its children, and its `min` is what they share as
guarantees.

The plugin then holds each namespace's quota to its runtime share: it is the `min` (what
the quota may keep against reclaims) and the `max` (what it may reach now) that
scheduler-plugins' rules read (`effective_infos`). A quota whose pods use more than its
share lends what it uses beyond it: a quota within its share reclaims that by preemption.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from kubesched.model import Pod, Resource
from kubesched.model.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from kubesched.plugins.capacity_scheduling.quota import (
    LOWER_BOUND_OF_MIN,
    UPPER_BOUND_OF_MAX,
    QuotaInfos,
    pod_request,
)
from kubesched.plugins.capacity_scheduling.share import Claim, divide
from kubesched.plugins.capacity_scheduling.tree import ROOT, Forest, bound

ENDED = ("Succeeded", "Failed")


class Demand:
    """What the pods of each namespace ask for: every pod not ended, bound or pending; the
    totals per namespace kept as pods come and go (a cycle reads them without a scan)."""

    def __init__(self, usage: Callable[[Pod], Resource] = pod_request) -> None:
        self._usage = usage
        self._pods: dict[str, tuple[str, Resource]] = {}
        self._totals: dict[str, Resource] = {}

    def pod_changed(self, old: Pod | None, new: Pod | None) -> None:
        """The pod lister's listener."""
        if old is not None:
            self._forget(old.uid)
        if new is None or new.phase in ENDED:
            return
        self._forget(new.uid)
        request = self._usage(new)
        self._pods[new.uid] = (new.namespace, request)
        self._totals.setdefault(new.namespace, Resource()).add(request)

    def _forget(self, uid: str) -> None:
        known = self._pods.pop(uid, None)
        if known is not None:
            namespace, request = known
            self._totals[namespace].subtract(request)

    def by_namespace(self, *, including: Pod | None = None) -> dict[str, Resource]:
        """The demand per namespace, `including` a pod the lister has not seen yet."""
        totals = {namespace: total.copy() for namespace, total in self._totals.items()}
        if including is not None and including.uid not in self._pods:
            totals.setdefault(including.namespace, Resource()).add(self._usage(including))
        return totals


def _put(resource: Resource, name: str, amount: int) -> None:
    """Set one resource in its own unit (millicores for cpu)."""
    if name == CPU:
        resource.milli_cpu = amount
    elif name == MEMORY:
        resource.memory = amount
    elif name == EPHEMERAL_STORAGE:
        resource.ephemeral_storage = amount
    elif name == PODS:
        resource.allowed_pods = amount
    else:
        resource.scalar[name] = amount


def resource_names(forest: Forest, demand: Mapping[str, Resource]) -> set[str]:
    """Every resource some quota bounds or guarantees or some pod asks for."""
    names: set[str] = {CPU, MEMORY, EPHEMERAL_STORAGE}
    for quota in forest.quotas.values():
        names.update(quota.min.names())
        names.update(quota.max.names())
    for request in demand.values():
        names.update(request.names())
    return names


def runtimes(
    forest: Forest, demand: Mapping[str, Resource], total: Resource
) -> dict[str, Resource]:
    """Each quota's runtime share, by namespace."""
    shares = {namespace: Resource() for namespace in forest.quotas}
    for name in sorted(resource_names(forest, demand)):
        requests: dict[str, int] = {}
        _request(forest, ROOT, name, demand, requests)
        _divide_down(forest, ROOT, total.get(name), name, requests=requests, shares=shares)
    return shares


def _request(
    forest: Forest, namespace: str, name: str, demand: Mapping[str, Resource], out: dict[str, int]
) -> int:
    own = 0
    quota = forest.quotas.get(namespace)
    if quota is not None and not quota.is_parent and namespace in demand:
        own = demand[namespace].get(name)
    asked = own + sum(_request(forest, c, name, demand, out) for c in forest.children(namespace))
    if quota is None:
        return asked
    out[namespace] = min(asked, bound(quota.max, name, unbounded=UPPER_BOUND_OF_MAX))
    return out[namespace]


def _divide_down(
    forest: Forest,
    parent: str,
    amount: int,
    name: str,
    *,
    requests: Mapping[str, int],
    shares: dict[str, Resource],
) -> None:
    children = forest.children(parent)
    claims = [_claim(forest, child, name, requests) for child in children]
    for child, share in divide(amount, claims).items():
        _put(shares[child], name, share)
        _divide_down(forest, child, share, name, requests=requests, shares=shares)


def _claim(forest: Forest, namespace: str, name: str, requests: Mapping[str, int]) -> Claim:
    quota = forest.quotas[namespace]
    guarantee = bound(quota.min, name, unbounded=LOWER_BOUND_OF_MIN)
    return Claim(namespace, requests[namespace], guarantee, quota.weight_of(name))


def allocatable(nodes: Iterable[Resource]) -> Resource:
    """The cluster's total: the nodes' allocatable summed."""
    total = Resource()
    for node in nodes:
        total.add(node)
    return total


def effective_infos(
    infos: QuotaInfos, forest: Forest, shares: Mapping[str, Resource]
) -> QuotaInfos:
    """The quotas as scheduler-plugins' rules should read them in a tree: each namespace's
    `min` and `max` its runtime share; parent quotas left out (their namespace's pods count
    against no quota)."""
    effective = QuotaInfos()
    for namespace, info in infos.items():
        quota = forest.quotas.get(namespace)
        if quota is None or quota.is_parent:
            continue
        share = shares[namespace]
        effective[namespace] = replace(info.clone(), min=share, max=share.copy())
    return effective
