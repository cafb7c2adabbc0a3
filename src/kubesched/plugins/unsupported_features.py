"""UnsupportedFeatures (PreFilter, Filter): temporary guard until PodTopologySpread and
InterPodAffinity exist, so that no pod is silently placed against its constraints.

* PreFilter rejects (UnschedulableAndUnresolvable) pods that use `topologySpreadConstraints`,
  `podAffinity` or `podAntiAffinity`: `pod uses podAntiAffinity, which kubesched does not
  support yet`.
* Filter enforces the required anti-affinity of pods already running (placed by any
  scheduler) against the incoming pod, as InterPodAffinity does: a node is rejected if it is
  in the topology domain of an existing pod whose required anti-affinity term selects the
  incoming pod (`node(s) didn't satisfy existing pods anti-affinity rules`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from kubesched.framework import (
    ActionType,
    ClusterEvent,
    Code,
    CycleState,
    EventResource,
    Handle,
    NodeInfo,
    StateKey,
    Status,
)
from kubesched.model import Pod
from kubesched.plugins._args import no_args
from kubesched.plugins._labels import selector_matches

NAME = "UnsupportedFeatures"
ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"
_REJECTED_BY_EXISTING: Final = Status(Code.UNSCHEDULABLE, ERR_REASON_EXISTING_ANTI_AFFINITY)
_SKIP: Final = Status(Code.SKIP)
# topologyKey -> label values of domains the incoming pod must stay out of.
_FORBIDDEN_KEY: StateKey[dict[str, set[str]]] = StateKey("PreFilter" + NAME)


class UnsupportedFeatures:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        no_args(args, plugin=NAME)

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        used = unsupported_features(pod)
        if used:
            features = " and ".join(used)
            return Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                f"pod uses {features}, which kubesched does not support yet",
            )
        forbidden = forbidden_domains(pod, nodes)
        if not forbidden:
            return _SKIP
        state.write(_FORBIDDEN_KEY, forbidden)
        return None

    def filter(self, state: CycleState, _pod: Pod, node_info: NodeInfo) -> Status | None:
        forbidden = state.get(_FORBIDDEN_KEY)
        if forbidden is None:
            return None
        labels = node_info.node.labels
        for key, values in forbidden.items():
            if labels.get(key) in values:
                return _REJECTED_BY_EXISTING
        return None

    def events_to_register(self) -> Sequence[ClusterEvent]:
        return (
            ClusterEvent(EventResource.POD, ActionType.DELETE | ActionType.UPDATE_POD_LABEL),
            ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL),
        )


def unsupported_features(pod: Pod) -> list[str]:
    """The pod-spec features kubesched cannot honour yet, in a fixed order."""
    affinity = pod.affinity or {}
    used = ["topologySpreadConstraints"] if pod.topology_spread_constraints else []
    used.extend(k for k in ("podAffinity", "podAntiAffinity") if _has_terms(affinity.get(k)))
    return used


def _has_terms(spec: Mapping[str, Any] | None) -> bool:
    """Required or preferred terms (hard or soft, both would change the placement)."""
    spec = spec or {}
    return bool(
        spec.get("requiredDuringSchedulingIgnoredDuringExecution")
        or spec.get("preferredDuringSchedulingIgnoredDuringExecution")
    )


def forbidden_domains(pod: Pod, nodes: Sequence[NodeInfo]) -> dict[str, set[str]]:
    """Topology domains where an existing pod's required anti-affinity selects `pod`."""
    forbidden: dict[str, set[str]] = {}
    for node_info in nodes:
        for existing in node_info.pods_with_required_anti_affinity:
            for term in _required_anti_affinity_terms(existing):
                key = term.get("topologyKey", "")
                value = node_info.node.labels.get(key)
                if value is not None and _term_selects(term, owner=existing, pod=pod):
                    forbidden.setdefault(key, set()).add(value)
    return forbidden


def _required_anti_affinity_terms(pod: Pod) -> Iterator[Mapping[str, Any]]:
    anti = (pod.affinity or {}).get("podAntiAffinity") or {}
    yield from anti.get("requiredDuringSchedulingIgnoredDuringExecution") or ()


def _term_selects(term: Mapping[str, Any], *, owner: Pod, pod: Pod) -> bool:
    """Whether a term of `owner` selects `pod` (namespaces, then labels)."""
    namespaces = term.get("namespaces") or ()
    namespace_selector = term.get("namespaceSelector")
    if namespace_selector is None:
        in_scope = pod.namespace in (namespaces or (owner.namespace,))
    else:
        # Namespace labels are not cached: assume the selector may match (conservative).
        in_scope = True
    return in_scope and selector_matches(term.get("labelSelector"), pod.labels)
