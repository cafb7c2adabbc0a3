"""The replayed cluster: what the API server would hold, fed from a trace into an engine.

Records are applied in order through the scheduler's own paths: nodes and pods through its
event handlers (the cache and the queue), the declared resources (namespaces, Services and
controllers, PodDisruptionBudgets, PodGroups, DRA objects) into their listers with the
cluster event a plugin may have registered, the storage objects into the volume listers with
their cluster events (`stores`). The plugins' writes go to the same objects (`writes`), with
the controllers' answers (`controllers`); an object the replay wrote ignores its later
recorded versions.

The rule for pods (docs/replay.md, "Which pods the replay schedules"): a pod first seen
without a node whose `schedulerName` is `default-scheduler` or a profile's name is the
replay's. Its recorded binding is ignored: every later version of it carries the node the
replay chose (or none while it has none); `default-scheduler` pods go to the first profile
when no profile has that name. A pod first seen bound (placed before the recording) or
another scheduler's keeps its recorded node. Recorded deletions always delete; a pod the
replay evicted (preemption) ignores what the trace says of it later.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from kubesched.model import Node, Pod
from kubesched.model.storage_kinds import STORAGE_KINDS
from kubesched.replay import trace
from kubesched.replay.controllers import VOLUMES, Controllers
from kubesched.replay.engine import Engine
from kubesched.replay.stores import Declared, Objects, Storage, object_key
from kubesched.replay.writes import ClusterWrites, kind_name

DEFAULT_SCHEDULER = "default-scheduler"


class ReplayedCluster:
    """Applies a trace's records to one engine and keeps the API server's view of pods."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._first_profile = engine.config.profiles[0].scheduler_name
        self.pods: dict[str, Pod] = {}
        """uid -> the pod as the API server would hold it now."""
        self._nodes: dict[str, Node] = {}
        self.ours: set[str] = set()
        """uids of the pods the replay schedules."""
        self.placed: dict[str, str] = {}
        """uid -> the node the replay bound it to."""
        self.evicted: set[str] = set()
        self.created: dict[str, float] = {}
        """uid -> when one of our pods was first seen (virtual seconds)."""
        self.malformed: list[str] = []
        """The records skipped because their object could not be parsed, one line each."""
        self._appliers: dict[str, Callable[[str, dict[str, Any]], None]] = {
            "nodes": self._node,
            "pods": self._pod,
        }
        objects: dict[str, Objects] = {}
        for spec in engine.listers.specs:
            declared = Declared(spec, engine.listers.store(spec), engine)
            objects[kind_name(spec.group, spec.resource)] = declared
        for kind in STORAGE_KINDS:
            storage = Storage(kind, engine.storage[kind.lister], engine)
            objects[kind_name(kind.group, kind.resource)] = storage
        for name, held in objects.items():
            self._appliers[name] = held.apply
        self.writes = ClusterWrites(objects)
        self.controllers = Controllers(self.writes, self._node_labels)
        engine.handle.attach(self.writes, self.controllers)

    def apply(self, record: Mapping[str, Any]) -> None:
        """One object record (LIST/ADDED/MODIFIED/DELETED); other kinds are not read. An
        object the model cannot parse is skipped and noted (`malformed`), as the
        scheduler's informers skip one. The record's object becomes the cluster's (it is
        changed in place: each record is read from the trace afresh, never shared)."""
        kind = str(record["kind"])
        applier = self._appliers.get(kind)
        if applier is None or self._replays_own(kind, record):
            return
        try:
            applier(str(record["op"]), record["object"])
        except Exception as exc:  # any parse error: skipped, as the informers skip one
            self.malformed.append(f"{kind} {object_key(record['object'])} at {record['t']}s: {exc}")

    def _replays_own(self, kind: str, record: Mapping[str, Any]) -> bool:
        """A recorded version of an object the replay wrote (ignored; a deletion is not),
        or a PV the recorded provisioner made for a claim the replay provisioned."""
        obj = record["object"]
        if record["op"] != trace.DELETED and self.writes.owns(kind, object_key(obj)):
            return True
        if kind != VOLUMES or record["op"] == trace.DELETED:
            return False
        ref = (obj.get("spec") or {}).get("claimRef") or {}
        claim = f"{ref.get('namespace', '')}/{ref.get('name', '')}"
        return self.writes.owns("persistentvolumeclaims", claim)

    def _node_labels(self, name: str) -> Mapping[str, str]:
        node = self._nodes.get(name)
        return node.labels if node is not None else {}

    def _node(self, op: str, raw: dict[str, Any]) -> None:
        node = Node.from_json(raw)
        old = self._nodes.pop(node.name, None)
        if op == trace.DELETED:
            if old is not None:
                self._engine.nodes.on_delete(old)
            return
        self._nodes[node.name] = node
        if old is None:
            self._engine.nodes.on_add(node)
        else:
            self._engine.nodes.on_update(old, node)

    def _pod(self, op: str, raw: dict[str, Any]) -> None:
        uid = str((raw.get("metadata") or {}).get("uid", ""))
        if uid in self.evicted:
            return
        if op == trace.DELETED:
            self.delete(uid)
            return
        spec = raw.setdefault("spec", {})
        if uid not in self.pods and uid not in self.ours and self._takes(spec):
            self.ours.add(uid)
            self.created[uid] = self._engine.clock.now
        if uid in self.ours:
            self._own(spec)
            spec.pop("nodeName", None)
            if uid in self.placed:
                spec["nodeName"] = self.placed[uid]
        self._put(uid, Pod.from_json(raw))

    def _takes(self, spec: Mapping[str, Any]) -> bool:
        if spec.get("nodeName"):
            return False
        name = spec.get("schedulerName") or DEFAULT_SCHEDULER
        return name == DEFAULT_SCHEDULER or name in self._engine.frameworks

    def _own(self, spec: dict[str, Any]) -> None:
        name = spec.get("schedulerName") or DEFAULT_SCHEDULER
        if name not in self._engine.frameworks:
            spec["schedulerName"] = self._first_profile

    def _put(self, uid: str, pod: Pod) -> None:
        old = self.pods.get(uid)
        self.pods[uid] = pod
        # The lister first, as an informer's store is updated before its handlers run.
        if old is None:
            self._engine.listers.pods.on_add(pod)
            self._engine.pods.on_add(pod)
        else:
            self._engine.listers.pods.on_update(old, pod)
            self._engine.pods.on_update(old, pod)

    def bind(self, uid: str, node_name: str) -> None:
        """The replay bound the pod: it gets its node, as the API server would."""
        self.placed[uid] = node_name
        # What Pod.from_json would make of the bound object, without parsing it again.
        bound = self.pods[uid].on_node(node_name)
        if bound.container_resources is not None:  # kept only while unbound
            bound = dataclasses.replace(bound, container_resources=None)
        self._put(uid, bound)

    def delete(self, uid: str) -> None:
        """The pod is gone (a recorded deletion, or the replay's eviction)."""
        pod = self.pods.pop(uid, None)
        if pod is not None:
            self._engine.listers.pods.on_delete(pod)
            self._engine.pods.on_delete(pod)
            if uid in self.placed:
                self.controllers.pod_deleted(pod)

    def lookup(self, uid: str) -> Pod | None:
        return self.pods.get(uid)
