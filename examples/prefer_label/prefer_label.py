# ruff: noqa: INP001 - a standalone plugin module, deliberately not part of a package
"""PreferNodeLabel: an example kubesched plugin (Filter and Score), the one
docs/writing-plugins.md's quick start builds.

Score: nodes carrying a label get 100, the others 0 (with `values`, the label must have one of
them). With `required: true` it also filters out the nodes without the label. It signs every
pod alike (`sign_pod`), so its profile keeps OpportunisticBatching and the per-node reuse of
results.

    pluginConfig:
    - name: PreferNodeLabel
      args:
        key: node-role.example.com/batch   # required
        values: ["true"]                    # optional: any value when empty
        required: false                     # optional: also filter

Enable it with `--plugin-module prefer_label` (this directory on PYTHONPATH), or install this
directory as a distribution: its pyproject.toml declares the `kubesched.plugins` entry point.
"""

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from kubesched.framework import (
    MAX_NODE_SCORE,
    ActionType,
    ClusterEvent,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeInfo,
    Registry,
    Status,
)
from kubesched.model import Pod


class PreferNodeLabel:
    name = "PreferNodeLabel"  # the name profiles enable it by

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle  # this plugin needs nothing from the cluster beyond its arguments
        if unknown := set(args) - {"key", "values", "required"}:
            raise ValueError(f"PreferNodeLabel args: unknown fields {sorted(unknown)}")
        key = args.get("key")
        if not isinstance(key, str) or not key:
            raise ValueError("PreferNodeLabel args: `key` (a label key) is required")
        self.key = key
        self.values = frozenset(args.get("values") or ())
        self.required = bool(args.get("required", False))
        self._rejection = Status(
            Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"node(s) didn't have label {key}"
        )

    def _matches(self, node_info: NodeInfo) -> bool:
        value = node_info.node.labels.get(self.key)
        return value is not None and (not self.values or value in self.values)

    def filter(self, _state: CycleState, _pod: Pod, node_info: NodeInfo) -> Status | None:
        if not self.required or self._matches(node_info):
            return None
        return self._rejection  # one shared Status object: no allocation per node

    def score(self, _state: CycleState, _pod: Pod, node_info: NodeInfo) -> int:
        return MAX_NODE_SCORE if self._matches(node_info) else 0

    def sign_pod(self, _pod: Pod) -> tuple[Hashable, ...]:
        # What of the pod Filter and Score read: nothing, so every pod signs alike.
        return ()

    def events_to_register(self) -> Sequence[ClusterEvent]:
        # A pod this plugin filtered out may fit once a node is added or relabelled.
        return (ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),)


def register(registry: Registry) -> None:
    """Called by `--plugin-module prefer_label`."""
    registry.register_class(PreferNodeLabel)
