"""Node selector terms (nodeAffinity, addedAffinity, a ResourceSlice's or an allocation's
node selector) compiled once and matched per node; in the model because plugins and the DRA
library (`kubesched.dra`) both read it, as upstream's plugins and
`dynamic-resource-allocation/structured` both import `component-helpers`.

Semantics of upstream `component-helpers/scheduling/corev1/nodeaffinity`:
* terms are ORed; an empty term (no expressions, no fields) matches nothing;
* within a term, `matchExpressions` (on labels) and `matchFields` (`metadata.name`) are ANDed;
* In/NotIn/Exists/DoesNotExist/Gt/Lt on labels; In/NotIn with exactly one value on fields;
* an invalid term (bad operator, wrong number of values, non-integer Gt/Lt) matches nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kubesched.errors import KubeschedError
from kubesched.model import Node, Pod
from kubesched.model.affinity import NodeAffinity

Matcher = Callable[[Node], bool]
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
_GO_INT = re.compile(r"[+-]?[0-9]+")


def parse_go_int(text: object) -> int | None:
    """Like Go's `strconv.ParseInt(text, 10, 64)`: None when it would fail."""
    if not isinstance(text, str) or not _GO_INT.fullmatch(text):
        return None
    value = int(text)
    return value if -(2**63) <= value < 2**63 else None


class TermError(KubeschedError, ValueError):
    """An invalid node selector requirement."""


def _label_requirement(expr: Mapping[str, Any]) -> Matcher:
    key = expr.get("key", "")
    operator = expr.get("operator", "")
    values = list(expr.get("values") or ())
    if operator in ("In", "NotIn"):
        if not values:
            raise TermError(f"{key}: values set can't be empty for operator {operator}")
        allowed = frozenset(values)
        if operator == "In":
            return lambda node: node.labels.get(key) in allowed
        return lambda node: node.labels.get(key) not in allowed
    if operator in ("Exists", "DoesNotExist"):
        if values:
            raise TermError(f"{key}: values set must be empty for operator {operator}")
        if operator == "Exists":
            return lambda node: key in node.labels
        return lambda node: key not in node.labels
    if operator in ("Gt", "Lt"):
        return _numeric_requirement(key, operator, values)
    raise TermError(f'{key}: unsupported operator "{operator}"')


def _numeric_requirement(key: str, operator: str, values: list[Any]) -> Matcher:
    if len(values) != 1:
        raise TermError(f"{key}: operator {operator} needs exactly one value")
    bound = parse_go_int(values[0])
    if bound is None:
        raise TermError(f"{key}: {values[0]!r} is not an integer")
    greater = operator == "Gt"

    def match(node: Node) -> bool:
        value = parse_go_int(node.labels.get(key))
        if value is None:
            return False
        return value > bound if greater else value < bound

    return match


def _field_requirement(expr: Mapping[str, Any]) -> Matcher:
    key = expr.get("key", "")
    operator = expr.get("operator", "")
    values = list(expr.get("values") or ())
    if operator not in ("In", "NotIn"):
        raise TermError(f'{key}: unsupported field selector operator "{operator}"')
    if len(values) != 1:
        raise TermError(f"{key}: field selector values must have one element")
    wanted = values[0]
    equal = operator == "In"
    if key == "metadata.name":
        return lambda node: (node.name == wanted) is equal
    return lambda _node: (wanted == "") is equal  # unknown fields read as ""


@dataclass(frozen=True, slots=True)
class Term:
    """One compiled term; `error` set means it is invalid and never matches."""

    matchers: tuple[Matcher, ...] = ()
    error: str = ""

    def matches(self, node: Node) -> bool:
        if self.error:
            return False
        return all(match(node) for match in self.matchers)


def compile_term(term: Mapping[str, Any]) -> Term | None:
    """A compiled term, or None for an empty one (which matches nothing)."""
    expressions = term.get("matchExpressions") or ()
    fields = term.get("matchFields") or ()
    if not expressions and not fields:
        return None
    try:
        matchers = [_label_requirement(e) for e in expressions]
        matchers += [_field_requirement(f) for f in fields]
    except TermError as exc:
        return Term(error=str(exc))
    return Term(tuple(matchers))


def compile_selector(selector: Mapping[str, Any]) -> tuple[Term, ...]:
    """`{nodeSelectorTerms: [...]}` -> its non-empty terms (ORed)."""
    compiled = (compile_term(term) for term in selector.get("nodeSelectorTerms") or ())
    return tuple(term for term in compiled if term is not None)


def selector_matches(terms: Sequence[Term], node: Node) -> bool:
    return any(term.matches(node) for term in terms)


def compile_preferred(terms: Sequence[Mapping[str, Any]]) -> tuple[tuple[int, Term], ...]:
    """Preferred terms -> (weight, term); weight-0 and empty terms are dropped; an invalid
    term raises TermError (upstream fails the cycle/plugin on it)."""
    compiled = []
    for item in terms:
        weight = int(item.get("weight") or 0)
        term = compile_term(item.get("preference") or {})
        if weight == 0 or term is None:
            continue
        if term.error:
            raise TermError(term.error)
        compiled.append((weight, term))
    return tuple(compiled)


def preferred_score(terms: Sequence[tuple[int, Term]], node: Node) -> int:
    """Sum of the weights of the matching preferred terms."""
    return sum(weight for weight, term in terms if term.matches(node))


def node_affinity(pod: Pod) -> NodeAffinity:
    """The pod's `spec.affinity.nodeAffinity` (an empty one when unset)."""
    affinity = pod.affinity
    found = affinity.node_affinity if affinity is not None else None
    return _NO_NODE_AFFINITY if found is None else found


_NO_NODE_AFFINITY = NodeAffinity()


@dataclass(frozen=True, slots=True)
class RequiredAffinity:
    """A pod's `nodeSelector` plus its required node affinity (None: no such affinity)."""

    labels: tuple[tuple[str, str], ...]
    terms: tuple[Term, ...] | None

    @classmethod
    def of(cls, pod: Pod) -> RequiredAffinity:
        required = node_affinity(pod).required
        terms = compile_selector(required) if required is not None else None
        return cls(tuple(pod.node_selector.items()), terms)

    def matches(self, node: Node) -> bool:
        labels = node.labels
        for key, value in self.labels:
            if labels.get(key) != value:
                return False
        return self.terms is None or selector_matches(self.terms, node)
