"""Nominated pods: which pending pods are expected to land on which node (preemption).

Upstream keeps this beside the queue because `status.nominatedNodeName` on the API object
may lag behind what the scheduler decided in memory; filters count nominated pods of equal
or higher priority as already using their node.
"""

from __future__ import annotations

from kubesched.model import Pod


class Nominator:
    """Node name -> nominated pods (in nomination order), and pod UID -> node name."""

    def __init__(self) -> None:
        self._by_node: dict[str, dict[str, Pod]] = {}
        self._node_of: dict[str, str] = {}

    def add(self, pod: Pod, *, node_name: str = "") -> None:
        """Nominate `pod` for `node_name` (default: its `status.nominatedNodeName`).

        Bound pods and an empty node name clear any nomination instead.
        """
        self.delete(pod.uid)
        node_name = node_name or pod.nominated_node_name
        if not node_name or pod.node_name:
            return
        self._node_of[pod.uid] = node_name
        self._by_node.setdefault(node_name, {})[pod.uid] = pod

    def update(self, old: Pod, new: Pod) -> None:
        """Follow a pod update; an in-memory nomination survives an update that carries none."""
        node_name = ""
        if not old.nominated_node_name and not new.nominated_node_name:
            node_name = self._node_of.get(old.uid, "")
        self.add(new, node_name=node_name)

    def delete(self, uid: str) -> None:
        node_name = self._node_of.pop(uid, None)
        if node_name is None:
            return
        pods = self._by_node[node_name]
        pods.pop(uid, None)
        if not pods:
            del self._by_node[node_name]

    def node_of(self, uid: str) -> str:
        return self._node_of.get(uid, "")

    def dump(self) -> dict[str, list[str]]:
        """Node name -> its nominated pods (`ns/name`), for the cache debugger's dump."""
        return {node: [pod.key for pod in pods.values()] for node, pods in self._by_node.items()}

    def pods_for_node(self, node_name: str) -> list[Pod]:
        return list(self._by_node.get(node_name, {}).values())

    def node_names(self) -> list[str]:
        """The nodes with at least one nominated pod."""
        return list(self._by_node)

    def __len__(self) -> int:
        return len(self._node_of)
