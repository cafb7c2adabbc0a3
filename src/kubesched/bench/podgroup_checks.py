"""The end-of-run checks of a workload whose measured pods join native PodGroups
(`catalogue_podgroups`), from the PodGroups the workload created, the watch's stamps and
the pods and nodes as the API server has them at the end:

* a gang (`gang.minCount`) has no member bound before its last member was created (the
  watch delivers every pod's events in the API server's order, so a binding seen before a
  creation happened before it: the scheduler bound part of a gang that could not exist yet);
* no gang is left partly bound (fewer than `minCount` members on nodes, but some);
* the members of a PodGroup with a topology constraint are on nodes of one domain of its
  key (every such node carrying the key).

The null binder binds pods one by one, ignoring their groups: only the contenders that
schedule are held to these.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.bench.tracker import PodRecord
from kubesched.kube.client import KubeClient
from kubesched.kube.paging import list_all

TIMEOUT = 120.0
SHOWN = 3


@dataclass(frozen=True, slots=True)
class GroupSpec:
    """What the checks need of one PodGroup the workload created."""

    min_count: int | None
    """`gang.minCount`; None for a `basic` policy."""
    topology_key: str = ""


def group_specs(objects: Iterable[tuple[str, dict[str, Any]]]) -> dict[tuple[str, str], GroupSpec]:
    """(namespace, name) -> spec of every PodGroup among the workload's `objects`."""
    specs = {}
    for _path, body in objects:
        if body.get("kind") != "PodGroup":
            continue
        meta, spec = body.get("metadata") or {}, body.get("spec") or {}
        gang = (spec.get("schedulingPolicy") or {}).get("gang")
        topology = (spec.get("schedulingConstraints") or {}).get("topology") or ()
        key = str(topology[0].get("key", "")) if topology else ""
        min_count = int(gang.get("minCount", 0)) if gang is not None else None
        specs[str(meta.get("namespace", "")), str(meta.get("name", ""))] = GroupSpec(min_count, key)
    return specs


@dataclass(slots=True)
class Member:
    """One measured pod of a group: its name and node at the end ("" unbound)."""

    name: str
    node: str


def members_by_group(
    pods: Iterable[dict[str, Any]],
) -> dict[tuple[str, str], list[Member]]:
    """(namespace, PodGroup name) -> its pods, from the API server's pod objects."""
    groups: dict[tuple[str, str], list[Member]] = defaultdict(list)
    for obj in pods:
        meta, spec = obj.get("metadata") or {}, obj.get("spec") or {}
        group = (spec.get("schedulingGroup") or {}).get("podGroupName")
        if group:
            member = Member(str(meta.get("name", "")), str(spec.get("nodeName") or ""))
            groups[str(meta.get("namespace", "")), str(group)].append(member)
    return groups


def early_bindings(
    specs: Mapping[tuple[str, str], GroupSpec],
    groups: Mapping[tuple[str, str], Sequence[Member]],
    records: Mapping[str, PodRecord],
) -> list[str]:
    """Gangs with a member whose binding the watch saw before a member's creation."""
    bad = []
    for key, members in sorted(groups.items()):
        spec = specs.get(key)
        if spec is None or spec.min_count is None:
            continue
        seen = [records[m.name] for m in members if m.name in records]
        bound = [r.bound_at for r in seen if r.node]
        if seen and bound and min(bound) < max(r.seen_at for r in seen):
            bad.append(key[1])
    return bad


def partly_bound(
    specs: Mapping[tuple[str, str], GroupSpec],
    groups: Mapping[tuple[str, str], Sequence[Member]],
) -> list[str]:
    """Gangs with some members on nodes, but fewer than `minCount`."""
    bad = []
    for key, members in sorted(groups.items()):
        spec = specs.get(key)
        placed = sum(1 for m in members if m.node)
        if spec is not None and spec.min_count is not None and 0 < placed < spec.min_count:
            bad.append(f"{key[1]} ({placed}/{spec.min_count})")
    return bad


def split_across_domains(
    specs: Mapping[tuple[str, str], GroupSpec],
    groups: Mapping[tuple[str, str], Sequence[Member]],
    node_labels: Mapping[str, Mapping[str, str]],
) -> list[str]:
    """Topology-constrained groups whose bound members are not all in one domain."""
    bad = []
    for key, members in sorted(groups.items()):
        spec = specs.get(key)
        if spec is None or not spec.topology_key:
            continue
        nodes = [m.node for m in members if m.node]
        domains = {node_labels.get(node, {}).get(spec.topology_key) for node in nodes}
        if len(domains) > 1 or None in domains:
            named = sorted(str(d) for d in domains)
            bad.append(f"{key[1]} ({spec.topology_key}: {', '.join(named)})")
    return bad


async def podgroup_problems(
    client: KubeClient,
    *,
    objects: Iterable[tuple[str, dict[str, Any]]],
    namespaces: Sequence[str],
    records: Mapping[str, PodRecord],
) -> list[str]:
    """What went wrong with the measured pods' groups (empty: nothing)."""
    specs = group_specs(objects)
    if not specs:
        return []
    pods = []
    for namespace in namespaces:
        path = f"/api/v1/namespaces/{namespace}/pods"
        pods += await list_all(client, path, timeout=TIMEOUT)
    groups = members_by_group(pods)
    node_labels = {}
    if any(spec.topology_key for spec in specs.values()):
        for node in await list_all(client, "/api/v1/nodes", timeout=TIMEOUT):
            meta = node.get("metadata") or {}
            node_labels[str(meta.get("name", ""))] = dict(meta.get("labels") or {})
    found = (
        (
            "gang(s) with a member bound before the whole gang existed",
            early_bindings(specs, groups, records),
        ),
        ("gang(s) left partly bound", partly_bound(specs, groups)),
        (
            "topology-constrained group(s) across domains",
            split_across_domains(specs, groups, node_labels),
        ),
    )
    return [f"{len(bad)} {what}, e.g. {', '.join(bad[:SHOWN])}" for what, bad in found if bad]
