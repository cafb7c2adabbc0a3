"""The scheduler cache: what every node holds, counting pods the scheduler only assumed.

State of a pod in the cache (kube-scheduler's cache.go, without the TTL expiry it dropped):

              assume_pod                     add_pod (bind confirmed by the informer;
    Initial ─────────────> Assumed ───────────────> Added    moves it if it landed on
       ^                    │    │                   │  ^     another node)
       │   forget_pod       │    │ finish_binding    │  │ update_pod
       └────────────────────┘    v                   │  │
       (binding failed:        Assumed,              └──┘
        uncount it)            binding finished      │
                                 │ add_pod           │ remove_pod / terminal update
                                 └──> Added          v
                                                  Deleted
    Initial ── add_pod (a pod bound by anyone, seen first by the informer) ──> Added

An assumed pod is counted on its node at once, so the next cycle sees the room as taken
while the binding is still in flight. Terminal pods (Succeeded/Failed) are never counted.
A pod may arrive before its node: the cache keeps a node-less entry and counts the pod
when the node arrives. A deleted node whose pods are not gone yet stays as a "ghost" entry
until they are, and is left out of snapshots.

Snapshots are incremental: every change bumps a cache-wide generation and moves the node
to the end of an ordered dict, so `update_snapshot` walks back only over the nodes changed
since the snapshot's generation: O(changed nodes) per cycle, not O(all nodes).
"""

from __future__ import annotations

import dataclasses
import logging
from collections import OrderedDict
from collections.abc import Iterable

from kubesched.cache.debug import CacheDiff, compare_cache, dump_cache
from kubesched.cache.nodetree import NodeTree
from kubesched.cache.snapshot import Snapshot
from kubesched.errors import KubeschedError
from kubesched.framework.imagestates import ImageStates
from kubesched.framework.logkv import kv
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.model import Node, Pod

_MIN_TOMBSTONES_BEFORE_PRUNE = 1024
_log = logging.getLogger(__name__)


class CacheError(KubeschedError):
    """An operation that contradicts the pod's state in the cache (a scheduler bug)."""


@dataclasses.dataclass(slots=True)
class PodState:
    pod: Pod
    """The pod as counted (for an assumed pod, a copy with the assumed node name)."""
    assumed: bool = False
    binding_finished: bool = False


class SchedulerCache:
    """Node infos by name plus pod states; single event loop, no locking."""

    def __init__(self) -> None:
        self._nodes: dict[str, NodeInfo] = {}
        self._tree = NodeTree()
        self._pods: dict[str, PodState] = {}
        self._assumed: set[str] = set()
        """UIDs of the pods of `_pods` that are assumed (`assumed_count` in one step)."""
        self._generation = 0
        self._recent: OrderedDict[str, int] = OrderedDict()
        self._tombstones: set[str] = set()
        self._pruned_upto = 0
        self._order_version = 0
        self._images = ImageStates()

    # ---- nodes --------------------------------------------------------------------------

    def add_node(self, node: Node) -> None:
        """A node appeared (or changed); pods already seen for it start counting on it."""
        info = self._nodes.get(node.name)
        if info is None:
            info = NodeInfo(node=node)
            self._nodes[node.name] = info
            self._tombstones.discard(node.name)
        else:
            self._images.remove_node(info.node)
            info.set_node(node)
        info.image_states = self._images.add_node(node)
        if self._tree.add(node):
            self._order_version += 1
        self._touch(node.name)

    def update_node(self, node: Node) -> None:
        """A node changed (labels, taints, allocatable, ...)."""
        self.add_node(node)

    def remove_node(self, node: Node) -> None:
        """A node was deleted; its NodeInfo lives on as a ghost while pods remain on it."""
        if not self._tree.remove(node.name):
            return
        info = self._nodes.get(node.name)
        if info is not None:
            self._images.remove_node(info.node)
            info.image_states = {}
        self._order_version += 1
        self._touch(node.name)
        self._drop_if_unused(node.name)

    # ---- pods from the informer ---------------------------------------------------------

    def add_pod(self, pod: Pod) -> None:
        """A bound pod from the informer; confirms it if it was assumed (moving it if needed)."""
        if not pod.node_name:
            return
        if pod.terminal:
            self.remove_pod(pod)
            return
        state = self._pods.get(pod.uid)
        if state is not None:
            self._uncount(state.pod)
            self._assumed.discard(pod.uid)
        self._count(pod)
        self._pods[pod.uid] = PodState(pod)

    def update_pod(self, old: Pod, new: Pod) -> None:
        """A bound pod changed; a terminal or unbound new version stops counting."""
        del old  # the cache counts what it has, looked up by UID
        if new.terminal or not new.node_name:
            self.remove_pod(new)
        else:
            self.add_pod(new)

    def remove_pod(self, pod: Pod) -> None:
        """The pod is gone (or terminal): stop counting it wherever it was counted."""
        state = self._pods.pop(pod.uid, None)
        if state is not None:
            self._uncount(state.pod)
            self._assumed.discard(pod.uid)

    # ---- pods from the scheduler --------------------------------------------------------

    def assume_pod(self, pod: Pod, node_name: str) -> Pod:
        """Count `pod` on `node_name` before the binding is confirmed; returns the copy."""
        if pod.uid in self._pods:
            raise CacheError(f"pod {pod.key} is in the cache, so it can't be assumed")
        assumed = pod.on_node(node_name)
        self._count(assumed)
        self._pods[pod.uid] = PodState(assumed, assumed=True)
        self._assumed.add(pod.uid)
        return assumed

    def finish_binding(self, pod: Pod) -> None:
        """The bind call returned; the pod stays assumed until the informer confirms it."""
        state = self._pods.get(pod.uid)
        if state is not None and state.assumed:
            state.binding_finished = True

    def forget_pod(self, pod: Pod) -> bool:
        """Undo `assume_pod` (binding failed); False if the pod is not assumed (any more)."""
        state = self._pods.get(pod.uid)
        if state is None or not state.assumed:
            return False
        del self._pods[pod.uid]
        self._assumed.discard(pod.uid)
        self._uncount(state.pod)
        return True

    def set_aside(self, pod: Pod) -> PodState | None:
        """Stop counting `pod` for a what-if (pod-group preemption removes its victims);
        `put_back` undoes it exactly (an assumed pod stays assumed). Only within one
        synchronous scheduling cycle: no informer event may come in between."""
        state = self._pods.pop(pod.uid, None)
        if state is not None:
            self._uncount(state.pod)
            self._assumed.discard(pod.uid)
        return state

    def put_back(self, state: PodState) -> None:
        """Count a pod `set_aside` took out again, as it was."""
        self._count(state.pod)
        self._pods[state.pod.uid] = state
        if state.assumed:
            self._assumed.add(state.pod.uid)

    # ---- queries ------------------------------------------------------------------------

    def is_assumed(self, uid: str) -> bool:
        state = self._pods.get(uid)
        return state is not None and state.assumed

    def get_pod(self, uid: str) -> Pod | None:
        """The pod as counted (an assumed pod carries its assumed node name)."""
        state = self._pods.get(uid)
        return None if state is None else state.pod

    def node_count(self) -> int:
        """Nodes that exist (ghosts and node-less entries excluded)."""
        return len(self._tree)

    def pod_count(self) -> int:
        """Pods counted on some node, assumed ones included."""
        return len(self._pods)

    def assumed_count(self) -> int:
        return len(self._assumed)

    def node_info(self, name: str) -> NodeInfo | None:
        """A clone of one node's live info, ghosts included (tests and debugging)."""
        info = self._nodes.get(name)
        return None if info is None else info.clone()

    # ---- snapshots ----------------------------------------------------------------------

    def update_snapshot(self, snapshot: Snapshot) -> None:
        """Bring `snapshot` up to date, re-cloning only the nodes changed since its last update."""
        if snapshot.generation < self._pruned_upto or snapshot.generation > self._generation:
            snapshot.reset()
        self._refresh(snapshot)
        if snapshot.num_nodes != len(self._tree):
            _log.error(
                "Snapshot state is not consistent, rebuilding it",
                extra=kv(snapshotNodes=snapshot.num_nodes, cacheNodes=len(self._tree)),
            )
            snapshot.reset()
            self._refresh(snapshot)

    def snapshot(self) -> Snapshot:
        """A new, fully built snapshot."""
        snapshot = Snapshot()
        self.update_snapshot(snapshot)
        return snapshot

    # ---- debugging ----------------------------------------------------------------------

    def dump(self) -> dict[str, object]:
        """Counts per node and the assumed pods (logged on SIGUSR2, as kube-scheduler's cache
        debugger does)."""
        return dump_cache(nodes=self._nodes, existing=self._tree, states=self._pods)

    def compare(self, *, nodes: Iterable[Node], pods: Iterable[Pod]) -> CacheDiff:
        """Differences between the cache and the informers' nodes and pods."""
        return compare_cache(
            cached_nodes=self._nodes,
            existing=self._tree,
            states=self._pods,
            nodes=nodes,
            pods=pods,
        )

    # ---- internals ----------------------------------------------------------------------

    def _refresh(self, snapshot: Snapshot) -> None:
        if snapshot.generation == 0:
            changed: Iterable[str] = list(self._nodes)
        else:
            changed = self._changed_since(snapshot.generation)
        for name in changed:
            info = self._nodes.get(name)
            if info is None or name not in self._tree:
                snapshot.drop(name)
            else:
                snapshot.put(info.clone())
        if snapshot.order_version != self._order_version:
            snapshot.reorder(self._tree.list(), version=self._order_version)
        snapshot.generation = self._generation

    def _count(self, pod: Pod) -> None:
        info = self._nodes.get(pod.node_name)
        if info is None:
            info = NodeInfo(node=Node(name=pod.node_name))
            self._nodes[pod.node_name] = info
            self._tombstones.discard(pod.node_name)
        info.add_pod(pod)
        self._touch(pod.node_name)

    def _uncount(self, pod: Pod) -> None:
        info = self._nodes.get(pod.node_name)
        if info is not None and info.remove_pod(pod.uid) is not None:
            self._touch(pod.node_name)
            self._drop_if_unused(pod.node_name)

    def _drop_if_unused(self, name: str) -> None:
        """Delete the entry of a node that no longer exists and holds no pods."""
        info = self._nodes.get(name)
        if info is None or info.pods or name in self._tree:
            return
        del self._nodes[name]
        self._tombstones.add(name)
        threshold = max(_MIN_TOMBSTONES_BEFORE_PRUNE, len(self._nodes))
        if len(self._tombstones) > threshold:
            self._prune_tombstones()

    def _touch(self, name: str) -> None:
        self._generation += 1
        self._recent[name] = self._generation
        self._recent.move_to_end(name)

    def _changed_since(self, generation: int) -> list[str]:
        changed: list[str] = []
        for name in reversed(self._recent):
            if self._recent[name] <= generation:
                break
            changed.append(name)
        return changed

    def _prune_tombstones(self) -> None:
        """Forget deleted names; snapshots older than now then rebuild from scratch."""
        for name in self._tombstones:
            del self._recent[name]
        self._tombstones.clear()
        self._pruned_upto = self._generation
