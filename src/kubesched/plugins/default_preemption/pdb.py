"""Which preemption victims would break a PodDisruptionBudget (upstream
`FilterVictimsWithPDBViolation`), reading PDBs the way kube-scheduler's preemption does."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kubesched.framework import Lister
from kubesched.model import ApiObject, Pod, PodDisruptionBudget


def disruption_budgets(lister: Lister[ApiObject]) -> list[PodDisruptionBudget]:
    """Every PodDisruptionBudget of the `POD_DISRUPTION_BUDGETS` lister."""
    return [PodDisruptionBudget.of(obj) for obj in lister.list()]


def _valid_expression(expression: Mapping[str, Any]) -> bool:
    operator, values = expression.get("operator"), expression.get("values") or ()
    if operator in ("In", "NotIn"):
        return bool(values)
    return operator in ("Exists", "DoesNotExist") and not values


def _expression_matches(expression: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    key, values = expression.get("key", ""), expression.get("values") or ()
    operator = expression.get("operator")
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    return (key in labels) == (operator == "Exists")


def pdb_selects(selector: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    """Whether a PDB's selector selects these labels; a missing, empty or invalid selector
    selects nothing (as kube-scheduler's preemption reads PDBs)."""
    if not selector:
        return False
    match_labels = selector.get("matchLabels") or {}
    expressions = selector.get("matchExpressions") or ()
    if not match_labels and not expressions:
        return False
    if not all(_valid_expression(expression) for expression in expressions):
        return False
    if any(labels.get(key) != value for key, value in match_labels.items()):
        return False
    return all(_expression_matches(expression, labels) for expression in expressions)


def violation_counts(
    victims: Sequence[Sequence[Pod]], pdbs: Sequence[PodDisruptionBudget]
) -> list[int]:
    """For each victim (one pod, or the pods of a group evicted together), in order, how
    many of its pods would break a PDB (upstream `FilterVictimsWithPDBViolation`: the
    budgets are shared by every victim, used in the given order)."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]

    def violates(pod: Pod) -> bool:
        if not pod.labels:
            return False
        for i, pdb in enumerate(pdbs):
            if pdb.namespace != pod.namespace or not pdb_selects(pdb.selector, pod.labels):
                continue
            if pod.name in pdb.disrupted_pods:
                continue
            allowed[i] -= 1
            if allowed[i] < 0:
                return True
        return False

    return [sum(1 for pod in pods if violates(pod)) for pods in victims]
