"""A fake Handle and helpers to unit-test plugins without a cluster.

    handle = FakeHandle(nodes=[make_node().name("n1").model()], pods=[...])
    plugin = MyPlugin(args={}, handle=handle)
    statuses = run_filter_plugin(plugin, pod, handle.list_node_infos())
    scores = run_score_plugin(plugin, pod, handle.list_node_infos())

Unlike the framework's runners, these helpers let plugin exceptions propagate, so a test
shows the traceback.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kubesched.apis.resources import BUILT_IN, NAMESPACES
from kubesched.framework import (
    SUCCESS,
    Code,
    CycleState,
    EventObject,
    NodeInfo,
    ObjectWriteError,
    RecordedPreemption,
    SharedDRAManager,
    Status,
    WaitingPods,
)
from kubesched.framework import interfaces as api
from kubesched.framework.imagestates import ImageStates
from kubesched.framework.listers import ClusterListers, IndexedStore
from kubesched.framework.resources import PODS, ResourceSpec
from kubesched.framework.volumes import StaticVolumeListers
from kubesched.model import (
    ANN_SELECTED_NODE,
    ApiObject,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    Pod,
    namespace_object,
)
from kubesched.runtime.dra_manager import DraManager
from kubesched.runtime.handle_base import HandleBase


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    pod: str
    event_type: str
    reason: str
    action: str
    note: str


@dataclass(frozen=True, slots=True)
class RecordedObjectEvent:
    """An Event a plugin recorded about an object other than a pod."""

    regarding: EventObject
    event_type: str
    reason: str
    action: str
    note: str


@dataclass(slots=True)
class FakeHandle(HandleBase):
    """Holds node infos (the "snapshot"), records binds and events; `bind_error` makes
    `bind` raise it.

    For preemption: `nominate(pod, node)` nominates pods, PodDisruptionBudgets go into the
    `POD_DISRUPTION_BUDGETS` lister (`handle.listers.add(POD_DISRUPTION_BUDGETS, obj)`), and
    `preempt` records a `RecordedPreemption` (evicting nothing; the preemptor's UID is in
    `preempting` until the test removes it).

    Its listers serve the resources in-tree plugins read (`kubesched.apis.resources.BUILT_IN`)
    besides those a test declares: add Services, controllers and budgets to them (`objects`,
    or `listers.add`). Namespaces:
    with `namespaces` (name -> labels) exactly those exist, each with its
    `kubernetes.io/metadata.name` label added; without (None), every namespace exists with
    only that label."""

    nodes: Iterable[Node | NodeInfo] = ()
    pods: Iterable[Pod] = ()
    binds: list[tuple[str, str]] = field(default_factory=list)
    """(pod `namespace/name`, node name) per successful bind."""
    events: list[RecordedEvent] = field(default_factory=list)
    object_events: list[RecordedObjectEvent] = field(default_factory=list)
    """Events about other objects (`record_object_event`), recorded while `leading`."""
    leading: bool = True
    """What `record_object_event` answers: False plays a standby replica (nothing recorded)."""
    bind_error: Exception | None = None
    preemptions: list[RecordedPreemption] = field(default_factory=list)
    preempting: set[str] = field(default_factory=set)
    nominated: dict[str, list[Pod]] = field(default_factory=dict)
    """Node name -> pods nominated to it."""
    namespaces: dict[str, dict[str, str]] | None = None
    listers: ClusterListers = field(default_factory=ClusterListers)
    """What `lister`/`pod_lister` read: `FakeHandle(listers=ClusterListers([spec]))`, then
    `handle.listers.add(spec, ApiObject.from_json({...}))` / `listers.pods.on_add(pod)`."""
    objects: Iterable[tuple[ResourceSpec, Mapping[str, Any]]] = ()
    """(resource, object JSON) to put in the listers at the start, each resource declared:
    `FakeHandle(objects=[(SERVICES, {"metadata": {...}, "spec": {...}})])`."""
    activated: list[str] = field(default_factory=list)
    """`namespace/name` of every pod a plugin activated."""
    status_patches: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """(object `namespace/name`, status) per `patch_status` call."""
    object_patches: list[tuple[str, bool, dict[str, Any]]] = field(default_factory=list)
    """(object `namespace/name`, status subresource?, patch) per `patch_object` call; the
    patch is applied to the lister's object (resourceVersion bumped) as the API server
    would, `metadata.resourceVersion` checked."""
    write_error: Exception | None = None
    """Raised by the next `patch_object`, `create_object` or `delete_object` (then cleared)."""
    created_objects: list[str] = field(default_factory=list)
    """`namespace/name` of each object `create_object` made (a generateName gets a number)."""
    deleted_objects: list[str] = field(default_factory=list)
    _created: int = 0
    volumes: StaticVolumeListers = field(default_factory=StaticVolumeListers)
    """The storage objects `volume_listers` answers from; `bind_volume` and
    `select_node_for_claim` update them (bumping resourceVersion) and log to `volume_writes`."""
    volume_writes: list[tuple[str, str, str]] = field(default_factory=list)
    """("bind", pv, claim key) or ("select-node", claim key, node) per volume write."""
    dra: SharedDRAManager | None = None
    """What `shared_dra_manager` answers; None: a `DraManager` over `listers`, made when a
    plugin first asks (so a test may replace `listers` before it builds the plugin)."""
    _infos: dict[str, NodeInfo] = field(default_factory=dict)
    _images: ImageStates = field(default_factory=ImageStates)
    _waiting_pods: WaitingPods = field(default_factory=WaitingPods)

    def __post_init__(self) -> None:
        for node in self.nodes:
            self.add_node(node)
        for pod in self.pods:
            self.add_pod(pod)
        self._serve_namespaces()
        for spec in BUILT_IN:
            if not spec.same_resource(PODS):
                self.listers.declare(spec)
        for spec, item in self.objects:
            self.listers.declare(spec).on_add(ApiObject.from_json(item, keep=spec.keep))

    def _serve_namespaces(self) -> None:
        if self.namespaces is None:
            self.listers.declare(NAMESPACES, EveryNamespace())
            return
        store = self.listers.declare(NAMESPACES)
        for name, labels in self.namespaces.items():
            store.on_add(namespace_object(name, labels))

    def add_node(self, node: Node | NodeInfo) -> NodeInfo:
        """Add a node (in order: the first node listing an image sets its size, as in the
        scheduler's cache)."""
        info = node if isinstance(node, NodeInfo) else NodeInfo(node=node)
        old = self._infos.get(info.name)
        if old is not None:
            self._images.remove_node(old.node)
        info.image_states = self._images.add_node(info.node)
        self._infos[info.name] = info
        return info

    def add_pod(self, pod: Pod) -> None:
        """Count a pod on the node named by its `spec.nodeName`."""
        if not pod.node_name or pod.node_name not in self._infos:
            raise ValueError(f"pod {pod.key} must name one of the nodes, got {pod.node_name!r}")
        self._infos[pod.node_name].add_pod(pod)

    def list_node_infos(self) -> Sequence[NodeInfo]:
        return list(self._infos.values())

    def shared_dra_manager(self) -> SharedDRAManager:
        if self.dra is None:
            self.dra = DraManager(self.listers)
        return self.dra

    def get_node_info(self, name: str) -> NodeInfo | None:
        return self._infos.get(name)

    async def bind(self, pod: Pod, node_name: str) -> None:
        if self.bind_error is not None:
            raise self.bind_error
        self.binds.append((pod.key, node_name))

    def record_event(
        self, pod: Pod, *, event_type: str, reason: str, action: str, note: str
    ) -> None:
        self.events.append(RecordedEvent(pod.key, event_type, reason, action, note))

    def record_object_event(
        self, regarding: EventObject, *, event_type: str, reason: str, action: str, note: str
    ) -> bool:
        if not self.leading:
            return False
        event = RecordedObjectEvent(regarding, event_type, reason, action, note)
        self.object_events.append(event)
        return True

    async def bind_volume(
        self, volume: PersistentVolume, claim: PersistentVolumeClaim
    ) -> PersistentVolume:
        written = replace(volume, resource_version=_bump(volume.resource_version))
        self.volumes.volumes[volume.name] = written
        self.volume_writes.append(("bind", volume.name, claim.key))
        return written

    async def select_node_for_claim(
        self, claim: PersistentVolumeClaim, node_name: str
    ) -> PersistentVolumeClaim:
        written = replace(
            claim.with_annotation(ANN_SELECTED_NODE, node_name),
            resource_version=_bump(claim.resource_version),
        )
        self.volumes.claims[claim.key] = written
        self.volume_writes.append(("select-node", claim.key, node_name))
        return written

    def nominate(self, pod: Pod, node_name: str) -> None:
        """Nominate a pending pod to a node (as preemption does)."""
        self.nominated.setdefault(node_name, []).append(pod)

    def preempt(
        self, preemptor: Pod, *, node_name: str, victims: Sequence[Pod], pdb_violations: int = 0
    ) -> None:
        HandleBase.preempt(
            self, preemptor, node_name=node_name, victims=victims, pdb_violations=pdb_violations
        )
        self.preempting.add(preemptor.uid)

    def is_preempting(self, uid: str) -> bool:
        return uid in self.preempting

    def activate(self, pods: Iterable[Pod]) -> None:
        self.activated.extend(pod.key for pod in pods)

    def patch_status(
        self, resource: ResourceSpec, obj: ApiObject, status: Mapping[str, Any]
    ) -> None:
        if not resource.writes_status:
            raise AssertionError(f"{resource.event_resource} does not declare writes_status")
        self.status_patches.append((obj.key, dict(status)))

    async def patch_object(
        self,
        resource: ResourceSpec,
        obj: ApiObject,
        patch: Mapping[str, Any],
        *,
        status: bool = False,
        strategic: bool = False,
    ) -> ApiObject:
        self._check_write(resource)
        self.object_patches.append((obj.key, status, dict(patch)))
        if resource.same_resource(PODS):
            return obj  # pods live in the test, not in a lister
        store = self.listers.store(resource)
        current = store.get(obj.name, obj.namespace)
        if current is None:
            raise ObjectWriteError(f"{obj.key} not found", not_found=True)
        wanted = (patch.get("metadata") or {}).get("resourceVersion")
        if wanted is not None and wanted != current.resource_version:
            raise ObjectWriteError(f"{obj.key}: the object has been modified", conflict=True)
        written = apply_patch(current, patch, strategic=strategic)
        self.listers.add(resource, written)
        return written

    async def create_object(
        self, resource: ResourceSpec, namespace: str, body: Mapping[str, Any]
    ) -> ApiObject:
        self._check_write(resource)
        raw = copy.deepcopy(dict(body))
        meta = raw.setdefault("metadata", {})
        if not meta.get("name"):
            self._created += 1
            meta["name"] = f"{meta.get('generateName', '')}{self._created:05d}"
        meta.update(namespace=namespace, uid=f"uid-{meta['name']}", resourceVersion="1")
        written = ApiObject.from_json(raw)
        self.created_objects.append(written.key)
        self.listers.add(resource, written)
        return written

    async def delete_object(self, resource: ResourceSpec, obj: ApiObject) -> None:
        self._check_write(resource)
        self.deleted_objects.append(obj.key)
        current = self.listers.store(resource).get(obj.name, obj.namespace)
        if current is not None:
            self.listers.store(resource).on_delete(current)

    def _check_write(self, resource: ResourceSpec) -> None:
        if not resource.writes:
            raise AssertionError(f"{resource.event_resource} does not declare writes")
        if self.write_error is not None:
            error, self.write_error = self.write_error, None
            raise error


class EveryNamespace(IndexedStore[ApiObject]):
    """The namespaces of a test that names none: every namespace exists, with only its
    `kubernetes.io/metadata.name` label (besides those added)."""

    def get(self, name: str, namespace: str = "") -> ApiObject | None:
        found = IndexedStore.get(self, name, namespace)
        return found if found is not None else namespace_object(name)


def apply_patch(obj: ApiObject, patch: Mapping[str, Any], *, strategic: bool) -> ApiObject:
    """`obj` with a JSON merge patch applied (and, with `strategic`, list entries
    `{"$patch": "delete", "uid": ...}` removing the entries with that uid), its
    resourceVersion bumped."""
    raw = _merge(obj_json(obj), patch, strategic=strategic)
    raw["metadata"]["resourceVersion"] = _bump(obj.resource_version)
    return ApiObject.from_json(raw)


def obj_json(obj: ApiObject) -> dict[str, Any]:
    """The JSON of an ApiObject, as much as it keeps."""
    meta: dict[str, Any] = {"name": obj.name, "uid": obj.uid}
    if obj.namespace:
        meta["namespace"] = obj.namespace
    if obj.resource_version:
        meta["resourceVersion"] = obj.resource_version
    optional: dict[str, Any] = {
        "labels": dict(obj.labels),
        "annotations": dict(obj.annotations),
        "finalizers": list(obj.finalizers),
        "ownerReferences": [
            {"kind": o.kind, "name": o.name, "uid": o.uid, "controller": o.controller}
            | ({"apiVersion": o.api_version} if o.api_version else {})
            for o in obj.owners
        ],
    }
    meta.update({key: value for key, value in optional.items() if value})
    if obj.deleting:
        meta["deletionTimestamp"] = "1970-01-01T00:00:00Z"
    return {"metadata": meta, **copy.deepcopy(dict(obj.body))}


def _merge(target: Any, patch: Any, *, strategic: bool) -> Any:
    if not isinstance(patch, Mapping):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, Mapping) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        elif strategic and isinstance(value, list) and isinstance(out.get(key), list):
            deleted = {e.get("uid") for e in value if isinstance(e, Mapping) and e.get("$patch")}
            kept = [e for e in out[key] if not (isinstance(e, Mapping) and e.get("uid") in deleted)]
            out[key] = kept + [e for e in value if not (isinstance(e, Mapping) and "$patch" in e)]
        else:
            out[key] = _merge(out.get(key), value, strategic=strategic)
    return out


def _bump(resource_version: str) -> str:
    return str(int(resource_version or 0) + 1)


def run_filter_plugin(
    plugin: Any, pod: Pod, nodes: Sequence[NodeInfo], *, state: CycleState | None = None
) -> dict[str, Status]:
    """PreFilter (if any) then Filter on each node -> node name: Status (SUCCESS if it fits).

    A PreFilter rejection is returned for every node; Skip means every node fits; a
    PreFilterResult rejects the nodes outside it (UnschedulableAndUnresolvable).
    """
    state = state or CycleState()
    allowed: Any = None
    if isinstance(plugin, api.PreFilterPlugin):
        out = plugin.pre_filter(state, pod, nodes)
        if isinstance(out, Status) and out.code is Code.SKIP:
            return dict.fromkeys((n.name for n in nodes), SUCCESS)
        if isinstance(out, Status) and out.code is not Code.SUCCESS:
            return dict.fromkeys((n.name for n in nodes), out)
        allowed = None if isinstance(out, Status) else out
    result = {}
    for node in nodes:
        if allowed is not None and node.name not in allowed:
            result[node.name] = Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "not in PreFilterResult"
            )
            continue
        status = plugin.filter(state, pod, node) if isinstance(plugin, api.FilterPlugin) else None
        result[node.name] = SUCCESS if status is None else status
    return result


def run_score_plugin(
    plugin: Any, pod: Pod, nodes: Sequence[NodeInfo], *, state: CycleState | None = None
) -> dict[str, int]:
    """PreScore (if any), Score and NormalizeScore -> node name: final (unweighted) score.

    Returns {} when PreScore says Skip; raises AssertionError on other PreScore failures.
    """
    state = state or CycleState()
    if isinstance(plugin, api.PreScorePlugin):
        status = plugin.pre_score(state, pod, nodes)
        if status is not None and status.code is Code.SKIP:
            return {}
        assert status is None or status.is_success(), f"pre_score failed: {status!r}"
    scores = [plugin.score(state, pod, node) for node in nodes]
    if isinstance(plugin, api.ScoreExtensions):
        status = plugin.normalize_score(state, pod, scores)
        assert status is None or status.is_success(), f"normalize_score failed: {status!r}"
    return {node.name: score for node, score in zip(nodes, scores, strict=True)}
