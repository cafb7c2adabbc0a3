"""A pod's `spec.affinity` and `spec.topologySpreadConstraints` as typed, frozen structs.

The structure is parsed once with the pod (`Pod.from_json`); label and node selectors stay in
the API's JSON form inside them, because the plugins compile those and report an invalid
one the way kube-scheduler does (`kubesched.model.nodeselector`, the InterPodAffinity and
PodTopologySpread plugins), at scheduling time, not when the pod is read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

JsonObject = Mapping[str, Any]
"""An object of the API's JSON (a selector), as read."""

_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


@dataclass(frozen=True, slots=True)
class NodeAffinity:
    """`v1.NodeAffinity`."""

    required: JsonObject | None = None
    """`requiredDuringSchedulingIgnoredDuringExecution`: a NodeSelector (None: unset)."""
    preferred: tuple[JsonObject, ...] = ()
    """`preferredDuringSchedulingIgnoredDuringExecution`: PreferredSchedulingTerms."""

    @classmethod
    def from_json(cls, obj: JsonObject) -> NodeAffinity:
        required = obj.get(_REQUIRED)
        return cls(
            required if isinstance(required, Mapping) else None,
            tuple(item for item in obj.get(_PREFERRED) or () if isinstance(item, Mapping)),
        )


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    """`v1.PodAffinityTerm`, with the weight of a `WeightedPodAffinityTerm` (0 for a
    required term)."""

    topology_key: str = ""
    label_selector: JsonObject | None = None
    namespaces: tuple[str, ...] = ()
    namespace_selector: JsonObject | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()
    weight: int = 0

    @classmethod
    def from_json(cls, obj: JsonObject, *, weight: int = 0) -> PodAffinityTerm:
        return cls(
            topology_key=str(obj.get("topologyKey") or ""),
            label_selector=_object(obj.get("labelSelector")),
            namespaces=tuple(str(ns) for ns in obj.get("namespaces") or ()),
            namespace_selector=_object(obj.get("namespaceSelector")),
            match_label_keys=tuple(str(key) for key in obj.get("matchLabelKeys") or ()),
            mismatch_label_keys=tuple(str(key) for key in obj.get("mismatchLabelKeys") or ()),
            weight=weight,
        )


@dataclass(frozen=True, slots=True)
class PodAffinity:
    """`v1.PodAffinity` or `v1.PodAntiAffinity` (the same shape)."""

    required: tuple[PodAffinityTerm, ...] = ()
    preferred: tuple[PodAffinityTerm, ...] = ()
    """Each with its `weight`."""

    @classmethod
    def from_json(cls, obj: JsonObject) -> PodAffinity:
        required = tuple(
            PodAffinityTerm.from_json(term)
            for term in obj.get(_REQUIRED) or ()
            if isinstance(term, Mapping)
        )
        preferred = tuple(
            PodAffinityTerm.from_json(
                item.get("podAffinityTerm") or {}, weight=int(item.get("weight") or 0)
            )
            for item in obj.get(_PREFERRED) or ()
            if isinstance(item, Mapping)
        )
        return cls(required, preferred)

    def __bool__(self) -> bool:
        return bool(self.required or self.preferred)


@dataclass(frozen=True, slots=True)
class Affinity:
    """`v1.Affinity`; a part that is unset or empty is None."""

    node_affinity: NodeAffinity | None = None
    pod_affinity: PodAffinity | None = None
    pod_anti_affinity: PodAffinity | None = None

    @classmethod
    def from_json(cls, obj: JsonObject | None) -> Affinity | None:
        """None for an unset or empty affinity."""
        if not obj:
            return None
        node, pod, anti = (obj.get(kind) for kind in _KINDS)
        affinity = cls(
            NodeAffinity.from_json(node) if isinstance(node, Mapping) and node else None,
            (PodAffinity.from_json(pod) or None) if isinstance(pod, Mapping) else None,
            (PodAffinity.from_json(anti) or None) if isinstance(anti, Mapping) else None,
        )
        if affinity == _EMPTY:
            return None
        return affinity

    def of_kind(self, kind: str) -> PodAffinity | None:
        """`podAffinity` or `podAntiAffinity`, by its API name."""
        return self.pod_affinity if kind == POD_AFFINITY else self.pod_anti_affinity


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    """`v1.TopologySpreadConstraint`."""

    max_skew: int = 0
    topology_key: str = ""
    when_unsatisfiable: str = ""
    label_selector: JsonObject | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, obj: JsonObject) -> TopologySpreadConstraint:
        min_domains = obj.get("minDomains")
        return cls(
            max_skew=int(obj.get("maxSkew") or 0),
            topology_key=str(obj.get("topologyKey") or ""),
            when_unsatisfiable=str(obj.get("whenUnsatisfiable") or ""),
            label_selector=_object(obj.get("labelSelector")),
            min_domains=None if min_domains is None else int(min_domains),
            node_affinity_policy=obj.get("nodeAffinityPolicy") or None,
            node_taints_policy=obj.get("nodeTaintsPolicy") or None,
            match_label_keys=tuple(str(key) for key in obj.get("matchLabelKeys") or ()),
        )


def spread_constraints(raw: object) -> tuple[TopologySpreadConstraint, ...]:
    """`spec.topologySpreadConstraints` (anything but a list of objects reads as none)."""
    if not isinstance(raw, list):
        return ()
    return tuple(
        TopologySpreadConstraint.from_json(item) for item in raw if isinstance(item, Mapping)
    )


def _object(value: object) -> JsonObject | None:
    return value if isinstance(value, Mapping) else None


POD_AFFINITY = "podAffinity"
POD_ANTI_AFFINITY = "podAntiAffinity"
_KINDS = ("nodeAffinity", POD_AFFINITY, POD_ANTI_AFFINITY)
_EMPTY = Affinity()
