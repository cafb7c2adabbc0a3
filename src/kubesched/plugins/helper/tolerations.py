"""Taint/toleration matching (upstream `Toleration.ToleratesTaint` and helpers)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kubesched.model import Taint, Toleration


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """An empty key/effect matches any; `Exists` ignores the value; `Equal` compares it."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("Equal", ""):
        return toleration.value == taint.value
    # Exists; Gt/Lt need the alpha TaintTolerationComparisonOperators gate (off upstream).
    return toleration.operator == "Exists"


def tolerated(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    return any(tolerates(toleration, taint) for toleration in tolerations)


def first_untolerated(
    taints: Sequence[Taint], tolerations: Sequence[Toleration], effects: frozenset[str]
) -> Taint | None:
    """The first taint with one of `effects` that no toleration tolerates, in node order."""
    for taint in taints:
        if taint.effect in effects and not tolerated(tolerations, taint):
            return taint
    return None
