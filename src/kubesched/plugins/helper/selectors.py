"""metav1.LabelSelector compiled once per cycle and matched against many pods.

Semantics of upstream `metav1.LabelSelectorAsSelector` and `labels.Selector`:

* a missing selector (None) selects nothing; an empty one (`{}`) selects everything and is
  "empty" (PodTopologySpread counts no pods for an empty selector, as upstream);
* `matchLabels` and `matchExpressions` are ANDed; operators In, NotIn, Exists, DoesNotExist
  (NotIn and DoesNotExist match pods without the label);
* In/NotIn without values, Exists/DoesNotExist with values or an unknown operator make the
  selector invalid: `compile_selector` raises `SelectorError`. Label-name syntax is not
  checked again (the API server validated it).

A compiled `LabelSelector` is hashable and canonical (requirements sorted), so equal
selectors are equal keys (see `node_counts`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.errors import KubeschedError
from kubesched.model import Pod

IN = "In"
NOT_IN = "NotIn"
EXISTS = "Exists"
DOES_NOT_EXIST = "DoesNotExist"
_OPERATORS = frozenset({IN, NOT_IN, EXISTS, DOES_NOT_EXIST})


class SelectorError(KubeschedError, ValueError):
    """An invalid label selector."""


@dataclass(frozen=True, slots=True)
class Requirement:
    """One requirement other than a single-value equality (those live in `equals`)."""

    key: str
    operator: str
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        operator = self.operator
        if operator == IN:
            return labels.get(self.key) in self.values
        if operator == NOT_IN:
            value = labels.get(self.key)
            return value is None or value not in self.values
        if operator == EXISTS:
            return self.key in labels
        return self.key not in labels  # DoesNotExist


@dataclass(frozen=True, slots=True)
class LabelSelector:
    """A compiled selector: `key == value` pairs plus other requirements, all ANDed."""

    equals: tuple[tuple[str, str], ...] = ()
    others: tuple[Requirement, ...] = ()
    nothing: bool = False
    """Selects nothing (a missing selector)."""

    @property
    def empty(self) -> bool:
        """Upstream `Selector.Empty()`: selects everything, without any requirement."""
        return not self.nothing and not self.equals and not self.others

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        get = labels.get
        for key, value in self.equals:
            if get(key) != value:
                return False
        return all(requirement.matches(labels) for requirement in self.others)

    def matches_pod(self, pod: Pod) -> bool:
        return self.matches(pod.labels)

    def with_equals(self, pairs: Iterable[tuple[str, str]]) -> LabelSelector:
        """This selector ANDed with `key == value` pairs (a nothing-selector stays one)."""
        if self.nothing:
            return self
        return _build(list(self.equals) + list(pairs), list(self.others))


EVERYTHING = LabelSelector()
NOTHING = LabelSelector(nothing=True)


def _build(equals: list[tuple[str, str]], others: list[Requirement]) -> LabelSelector:
    return LabelSelector(
        equals=tuple(sorted(set(equals))),
        others=tuple(sorted(set(others), key=lambda r: (r.key, r.operator, sorted(r.values)))),
    )


def compile_selector(raw: Mapping[str, Any] | None) -> LabelSelector:
    """Compile a raw `LabelSelector`; raises SelectorError if it is invalid."""
    if raw is None:
        return NOTHING
    if not isinstance(raw, Mapping):
        raise SelectorError(f"a label selector must be an object, got {type(raw).__name__}")
    equals: list[tuple[str, str]] = []
    for key, value in (raw.get("matchLabels") or {}).items():
        if not isinstance(value, str):
            raise SelectorError(f"matchLabels[{key}]: {value!r} is not a string")
        equals.append((str(key), value))
    others: list[Requirement] = []
    for expression in raw.get("matchExpressions") or ():
        requirement = _requirement(expression)
        if requirement.operator == IN and len(requirement.values) == 1:
            equals.append((requirement.key, next(iter(requirement.values))))
        else:
            others.append(requirement)
    if not equals and not others:
        return EVERYTHING
    return _build(equals, others)


def _requirement(expression: Mapping[str, Any]) -> Requirement:
    key = str(expression.get("key") or "")
    operator = expression.get("operator") or ""
    values = list(expression.get("values") or ())
    if operator not in _OPERATORS:
        raise SelectorError(f'"{operator}" is not a valid label selector operator')
    if operator in (IN, NOT_IN) and not values:
        raise SelectorError(f"{key}: for 'in', 'notin' operators, values set can't be empty")
    if operator in (EXISTS, DOES_NOT_EXIST) and values:
        raise SelectorError(f"{key}: values set must be empty for exists and does not exist")
    return Requirement(key, operator, frozenset(str(v) for v in values))


def with_label_keys(
    raw: Mapping[str, Any] | None,
    *,
    match_keys: Sequence[str],
    mismatch_keys: Sequence[str],
    labels: Mapping[str, str],
) -> Mapping[str, Any] | None:
    """A pod-affinity term's selector with `matchLabelKeys` (`key In (value)`) and
    `mismatchLabelKeys` (`key NotIn (value)`) merged in, for the keys the pod has.

    The API server already merges them when it admits a pod (MatchLabelKeysInPodAffinity,
    GA), and kube-scheduler uses the stored selector as is. So a key whose expression is
    already present is left alone (an admitted pod keeps exactly its stored selector, even
    after its labels change); only a pod that was never admitted (e.g. read from a file)
    gets the expressions added. A missing selector stays missing (it selects nothing).
    """
    if raw is None or (not match_keys and not mismatch_keys):
        return raw
    expressions = list(raw.get("matchExpressions") or ())
    present = {(e.get("key"), e.get("operator")) for e in expressions}
    for keys, operator in ((match_keys, IN), (mismatch_keys, NOT_IN)):
        expressions.extend(
            {"key": key, "operator": operator, "values": [labels[key]]}
            for key in keys
            if key in labels and (key, operator) not in present
        )
    return {**raw, "matchExpressions": expressions}
