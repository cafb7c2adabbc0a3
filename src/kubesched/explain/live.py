"""Explain against the live cluster: read it once, build the scheduler's view, explain.

Reads, never writes (`Reader` has only GET; `GetOnly` hides the rest of a client): the pod
(unless it comes from a file), every node and every non-terminal pod, what the profile's
plugins declare (the namespaces, for pod-affinity `namespaceSelector`s; the Services,
ReplicationControllers, ReplicaSets and StatefulSets, for default topology spreading; the
PodDisruptionBudgets, for preemption; custom resources), and the storage objects when the pod
has volumes (`kubesched.explain.volumes`), each list paged. A list explain may not read is
noted in the answer.
The cache and snapshot are built exactly as the scheduler's informers fill them
(`SchedulerCache.add_node` / `add_pod` for bound pods), and the Framework from the very
profile and plugin registry the scheduler would use.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from kubesched.apis.config import Profile
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.config import KubeSchedulerConfiguration
from kubesched.explain.assumed import assumed_note, with_assumed
from kubesched.explain.engine import explain_pod
from kubesched.explain.group_live import PermitSource, in_group, read_group, read_permit
from kubesched.explain.group_native import API_VERSION
from kubesched.explain.group_read import get_group
from kubesched.explain.group_report import WAITING, PermitView
from kubesched.explain.group_summary import lacks
from kubesched.explain.handle import ReadOnlyHandle
from kubesched.explain.placement_report import PlacementsReport
from kubesched.explain.placements import explain_placements
from kubesched.explain.report import Explanation
from kubesched.explain.target import ExplainError, check_pending, select_profile
from kubesched.explain.volumes import read_volumes
from kubesched.framework import (
    NAMESPACES,
    POD_DISRUPTION_BUDGETS,
    REPLICA_SETS,
    REPLICATION_CONTROLLERS,
    SERVICES,
    STATEFUL_SETS,
    Registry,
)
from kubesched.framework.listers import ClusterListers
from kubesched.framework.resources import declared_resources
from kubesched.kube.errors import Forbidden, NotFound
from kubesched.kube.paging import list_all as paged_list
from kubesched.model import ApiObject, Node, Pod, SchedulingPodGroup, namespace_object
from kubesched.runtime import Framework, build_framework

# The scheduler's own pod list: pods that finished hold no resources (see kubesched.server.app).
NON_TERMINAL_PODS = "status.phase!=Succeeded,status.phase!=Failed"
REQUEST_TIMEOUT_SECONDS = 30.0


class Reader(Protocol):
    """All explain may do with the API server: GET."""

    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]: ...


class GetOnly:
    """Wraps an API client so that only `get` can be reached through it."""

    def __init__(self, api: Reader) -> None:
        self._get = api.get

    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        return await self._get(path, params=params, timeout=timeout)


@dataclass(frozen=True, slots=True)
class PodSource:
    """The pod to explain: `namespace/name` in the cluster, or an object from a file."""

    namespace: str = ""
    name: str = ""
    obj: dict[str, Any] | None = None
    """A hypothetical pod (already made pending); None: read the pod from the cluster."""


async def explain_live(
    api: Reader,
    *,
    config: KubeSchedulerConfiguration,
    registry: Registry,
    source: PodSource,
    notes: Iterable[str] = (),
    permit: PermitSource | None = None,
) -> Explanation:
    """Read the cluster and explain the pod with the profile serving its schedulerName;
    `permit` reads what the running scheduler holds at Permit (for a pod of a group)."""
    obj = source.obj
    if obj is None:
        obj = await fetch_pod(api, source.namespace, source.name)
        check_pending(obj)
    pod = Pod.from_json(obj)
    profile = select_profile(config, pod.key, pod.scheduler_name)
    nodes, pods = await read_cluster(api)
    view = await read_permit(permit) if in_group(pod) else PermitView()
    seen = with_assumed(pods, view, own_uid=pod.uid)
    cache = build_cache(nodes, seen)
    snapshot = cache.snapshot()
    # The scheduler's queue holds its own pending pods; those nominated by preemption keep
    # their room on the node (Filter counts them).
    ours = set(config.scheduler_names)
    nominated = [p for p in pods if p.scheduler_name in ours and p.uid != pod.uid]
    notes = [*notes, *filter(None, [assumed_note(view, own_uid=pod.uid)])]
    if permit is not None and not in_group(pod):
        notes.append("--scheduler-url is not used: the pod belongs to no PodGroup")
    volumes = await read_volumes(lambda path: list_all(api, path), notes) if pod.volumes else None
    listers = await read_declared(api, profile, registry, pods, notes=notes, pod=pod)
    handle = ReadOnlyHandle(snapshot, nominated=nominated, listers=listers, volumes=volumes)
    fw = build_framework(
        profile=profile,
        registry=registry,
        handle=handle,
        default_percentage_of_nodes_to_score=config.percentage_of_nodes_to_score,
    )
    explanation = explain_pod(fw, pod, snapshot.node_infos, hypothetical=source.obj is not None)
    if notes:
        explanation = replace(explanation, notes=(*notes, *explanation.notes))
    enabled = {name.partition(":")[0] for names in fw.list_plugins().values() for name in names}
    group = await read_group(api, pod, pods, profile=profile, enabled=enabled, view=view)
    if group is None:
        return explanation
    own = next((m for m in group.members if m.name == pod.name), None)
    fits = None if own is not None and own.state == WAITING else bool(explanation.feasible)
    group = replace(group, lacks=lacks(group, pod_fits=fits))
    if fw.topology_aware and pod.pod_group_name and group.found and not group.problem:
        trial = _Trial(fw, cache, snapshot, seen, pod)
        group = replace(group, placements=await _placements(api, trial))
    return replace(explanation, group=group)


@dataclass(frozen=True, slots=True)
class _Trial:
    fw: Framework
    cache: SchedulerCache
    snapshot: Snapshot
    pods: list[Pod]
    pod: Pod


async def _placements(api: Reader, trial: _Trial) -> PlacementsReport | None:
    """The native group's placement cycle (`TopologyAwareWorkloadScheduling`); a failure
    to read the group or to try it is one line in the report, never the end of explain."""
    pod = trial.pod
    try:
        obj = await get_group(api, API_VERSION, pod.namespace, pod.pod_group_name, enable="")
        if obj is None:
            return None
        group = SchedulingPodGroup.of(ApiObject.from_json(obj))
        return explain_placements(
            trial.fw,
            cache=trial.cache,
            snapshot=trial.snapshot,
            group=group,
            pods=trial.pods,
            explained=pod,
        )
    except Exception as exc:  # a plugin's failure never stops explain
        outcome = f"error: explain could not try the placements: {type(exc).__name__}: {exc}"
        return PlacementsReport(topology_key="", outcome=outcome)


async def read_declared(
    api: Reader,
    profile: Profile,
    registry: Registry,
    pods: Iterable[Pod],
    *,
    notes: list[str],
    pod: Pod,
) -> ClusterListers:
    """The resources the profile's plugins declare (namespaces, a PodGroup CRD, a ConfigMap
    rule), listed once, and the pods, so plugins explain as they schedule `pod`. A resource
    explain may not list stays empty, noted in `notes` (namespaces: each namespace of the pods
    with only its name label)."""
    listers = ClusterListers(declared_resources([profile], registry))
    namespaces = {pod.namespace}
    for listed in pods:
        listers.pods.on_add(listed)
        namespaces.add(listed.namespace)
    for spec in listers.specs:
        try:
            items = await list_all(api, spec.path)
        except Forbidden:
            notes.append(_UNREAD.get(spec) or f"cannot list {spec.path} (forbidden): none is read")
            if spec == NAMESPACES:
                _name_labels_only(listers, namespaces)
            continue
        for item in items:
            listers.add(spec, ApiObject.from_json(item, keep=spec.keep))
    return listers


_SPREADING = "(forbidden): default spreading ignores them"
_UNREAD = {
    NAMESPACES: "cannot list namespaces (forbidden): a namespaceSelector sees each namespace "
    "with only its kubernetes.io/metadata.name label",
    SERVICES: f"cannot list {SERVICES.path} {_SPREADING}",
    REPLICATION_CONTROLLERS: f"cannot list {REPLICATION_CONTROLLERS.path} {_SPREADING}",
    REPLICA_SETS: f"cannot list {REPLICA_SETS.path} {_SPREADING}",
    STATEFUL_SETS: f"cannot list {STATEFUL_SETS.path} {_SPREADING}",
    POD_DISRUPTION_BUDGETS: "cannot list PodDisruptionBudgets (forbidden): preemption is "
    "explained as if there were none",
}
"""The note on each built-in resource explain may not list: what that changes."""


def _name_labels_only(listers: ClusterListers, names: Iterable[str]) -> None:
    """Namespaces `names`, each with only the label the API server gives every namespace."""
    for name in sorted(names):
        listers.add(NAMESPACES, namespace_object(name))


async def fetch_pod(api: Reader, namespace: str, name: str) -> dict[str, Any]:
    try:
        obj: dict[str, Any] = await api.get(
            f"/api/v1/namespaces/{namespace}/pods/{name}", timeout=REQUEST_TIMEOUT_SECONDS
        )
    except NotFound:
        raise ExplainError(f"pod {namespace}/{name} not found") from None
    return obj


async def read_cluster(api: Reader) -> tuple[list[Node], list[Pod]]:
    """Every node and every non-terminal pod, decoded as the informers decode them."""
    nodes = [Node.from_json(item) for item in await list_all(api, "/api/v1/nodes")]
    items = await list_all(api, "/api/v1/pods", params={"fieldSelector": NON_TERMINAL_PODS})
    return nodes, [Pod.from_json(item) for item in items]


def build_snapshot(nodes: Iterable[Node], pods: Iterable[Pod]) -> Snapshot:
    """The snapshot the scheduler's cache would hand its next cycle."""
    return build_cache(nodes, pods).snapshot()


def build_cache(nodes: Iterable[Node], pods: Iterable[Pod]) -> SchedulerCache:
    """The scheduler's cache as its informers would fill it (a gang's placements are tried
    in it, each trial undone)."""
    cache = SchedulerCache()
    for node in nodes:
        cache.add_node(node)
    for pod in pods:
        if pod.node_name:  # pending pods use no node's capacity
            cache.add_pod(pod)
    return cache


async def list_all(
    api: Reader, path: str, *, params: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Every item of a collection, following `metadata.continue`."""
    return await paged_list(api, path, params=params, timeout=REQUEST_TIMEOUT_SECONDS)
