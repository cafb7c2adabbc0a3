"""A PodDisruptionBudget reduced to what preemption reads (policy/v1).

Preemption prefers victims whose eviction keeps every matching budget: a victim "violates"
a PDB when the budget's `status.disruptionsAllowed` would drop below zero (pods already
listed in `status.disruptedPods` are not counted again), as kube-scheduler's
`FilterVictimsWithPDBViolation`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubesched.model.apiobject import ApiObject


@dataclass(frozen=True, slots=True)
class PodDisruptionBudget:
    namespace: str
    name: str
    resource_version: str = ""
    selector: dict[str, Any] | None = None
    """`spec.selector` as raw JSON (a metav1.LabelSelector); None when unset."""
    disruptions_allowed: int = 0
    """`status.disruptionsAllowed` (0 until the disruption controller computes it)."""
    disrupted_pods: frozenset[str] = frozenset()
    """Names in `status.disruptedPods`: evictions the API server already accounted for."""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @classmethod
    def of(cls, obj: ApiObject) -> PodDisruptionBudget:
        """The budget `obj` is, from its lister."""
        selector = obj.spec.get("selector")
        return cls(
            namespace=obj.namespace,
            name=obj.name,
            resource_version=obj.resource_version,
            selector=dict(selector) if isinstance(selector, dict) else None,
            disruptions_allowed=int(obj.status.get("disruptionsAllowed") or 0),
            disrupted_pods=frozenset(obj.status.get("disruptedPods") or {}),
        )
