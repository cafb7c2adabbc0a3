"""Reuse of per-node Filter and Score results across scheduling cycles.

A snapshot keeps the very same `NodeInfo` object for a node from cycle to cycle until
something on that node changes (then the cache hands it a fresh clone). So a result that
depends only on the node, the plugin's configuration and what of the pod the plugin reads can
be stored on the NodeInfo (`NodeInfo.memo`) and reused for the next pod that signs the same:
with a stream of identical pods, each cycle computes Filter and Score only for the node the
previous pod went to.

What of a pod a plugin reads is its signature (`sign_pod`, upstream's SignPlugin; see
`kubesched.framework.signs`). Filter results are reused when every Filter plugin that runs in
the cycle signed the pod, keyed by their signatures together; raw scores of each Score plugin
that signed are reused, the others score every node. A plugin with the older class attribute
`memoizable = True` and no `sign_pod` signs with `pod_spec_key` (everything any default
plugin reads: requests, tolerations, node selector, affinity, host ports, nodeName).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from kubesched.framework.cycle_state import CycleState, StateKey
from kubesched.framework.plugin_failures import PLUGIN_ERRORS
from kubesched.framework.signs import (
    host_ports_sign,
    node_affinity_sign,
    node_name_sign,
    resources_sign,
    tolerations_sign,
)
from kubesched.model import Pod

MAX_ENTRIES_PER_NODE = 32
"""A node's memo is emptied when it reaches this many pod specs (bounds its memory)."""


def pod_spec_key(pod: Pod) -> tuple[Hashable, ...]:
    """Everything of a pod that a default plugin may read (the legacy `memoizable` sign)."""
    return (
        resources_sign(pod),
        tolerations_sign(pod),
        node_affinity_sign(pod),
        host_ports_sign(pod),
        node_name_sign(pod),
    )


Signatures = dict[str, tuple[Hashable, ...] | None]
"""Plugin name -> its signature of this cycle's pod (None: it cannot sign it)."""

_SIGNATURES: StateKey[Signatures] = StateKey("MemoPodSignatures")


def sign(plugin: Any, pod: Pod) -> tuple[Hashable, ...] | None:
    """`plugin`'s signature of `pod` (None: none; a plugin that raises does not sign)."""
    sign_pod = getattr(plugin, "sign_pod", None)
    if sign_pod is not None:
        try:
            signature = sign_pod(pod)
        except PLUGIN_ERRORS:
            return None
        return None if signature is None else tuple(signature)
    if getattr(plugin, "memoizable", False) is True:
        return pod_spec_key(pod)
    return None


def cycle_signatures(state: CycleState, pod: Pod, plugins: Iterable[Any]) -> Signatures:
    """The signatures of the pod by `plugins`, computed once per cycle (later calls add the
    plugins not signed yet)."""
    signatures = state.get(_SIGNATURES)
    if signatures is None:
        signatures = {}
        state.write(_SIGNATURES, signatures)
    for plugin in plugins:
        if plugin.name not in signatures:
            signatures[plugin.name] = sign(plugin, pod)
    return signatures


def can_sign(plugins: Iterable[Any]) -> frozenset[str]:
    """The names of the plugins that may sign a pod (`sign_pod`, or `memoizable = True`)."""
    return frozenset(
        pl.name
        for pl in plugins
        if hasattr(pl, "sign_pod") or getattr(pl, "memoizable", False) is True
    )


def store(memo: dict[Hashable, Any], key: Hashable, value: Any) -> None:
    """Remember `value` under `key`, emptying a full memo first."""
    if len(memo) >= MAX_ENTRIES_PER_NODE:
        memo.clear()
    memo[key] = value
