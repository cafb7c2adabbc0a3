"""Reuse of per-node Filter and Score results across scheduling cycles.

A snapshot keeps the very same `NodeInfo` object for a node from cycle to cycle until
something on that node changes (then the cache hands it a fresh clone). So a result that
depends only on the node, the plugin's configuration and the pod's scheduling spec can be
stored on the NodeInfo (`NodeInfo.memo`) and reused for the next pod with the same spec:
with a stream of identical pods, each cycle computes Filter and Score only for the node
the previous pod went to.

A Filter or Score plugin opts in with a class attribute `memoizable = True`. It promises
that `filter()` / `score()` return the same value for the same NodeInfo object, the same
plugin instance, and pods with equal `pod_spec_key` (the requests, tolerations, node
selector, affinity, host ports and nodeName), including what its own PreFilter/PreScore
derived from those fields and wrote to the CycleState. The framework reuses results only
when every Filter (resp. Score) plugin that runs in the cycle opted in.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Any

from kubesched.framework.cycle_state import CycleState, StateKey
from kubesched.model import Pod, Resource

MAX_ENTRIES_PER_NODE = 32
"""A node's memo is emptied when it reaches this many pod specs (bounds its memory)."""


def _resource_key(resource: Resource) -> tuple[Hashable, ...]:
    scalar = tuple(resource.scalar.items()) if resource.scalar else ()
    return (resource.milli_cpu, resource.memory, resource.ephemeral_storage, scalar)


def pod_spec_key(pod: Pod) -> tuple[Hashable, ...]:
    """Everything of a pod that a memoizable plugin may read; equal keys, equal results."""
    return (
        _resource_key(pod.requests),
        _resource_key(pod.non_zero_requests),
        None if pod.container_non_zero_requests is None else pod.fit_score_requests.milli_cpu,
        None if pod.container_non_zero_requests is None else pod.fit_score_requests.memory,
        pod.tolerations,
        tuple(pod.node_selector.items()) if pod.node_selector else (),
        repr(pod.affinity) if pod.affinity else None,
        pod.host_ports,
        pod.node_name,
    )


_POD_KEY: StateKey[tuple[Hashable, ...]] = StateKey("MemoPodSpecKey")


def cycle_pod_key(state: CycleState, pod: Pod) -> tuple[Hashable, ...]:
    """`pod_spec_key(pod)`, computed once per cycle."""
    key = state.get(_POD_KEY)
    if key is None:
        key = pod_spec_key(pod)
        state.write(_POD_KEY, key)
    return key


def memoizable(plugin: object) -> bool:
    """Whether the plugin opted in (see the module docstring)."""
    return getattr(plugin, "memoizable", False) is True


def not_memoizable(plugins: Iterable[Any]) -> frozenset[str]:
    """The names of the plugins that did not opt in."""
    return frozenset(pl.name for pl in plugins if not memoizable(pl))


def store(memo: dict[Hashable, Any], key: Hashable, value: Any) -> None:
    """Remember `value` under `key`, emptying a full memo first."""
    if len(memo) >= MAX_ENTRIES_PER_NODE:
        memo.clear()
    memo[key] = value
