"""Pod (anti-)affinity terms compiled from a pod's raw `affinity` (upstream `AffinityTerm`).

A term selects pods by labels (`labelSelector`, with `matchLabelKeys`/`mismatchLabelKeys`
merged, see `_selectors.with_label_keys`) within namespaces: the listed `namespaces` plus
those matched by `namespaceSelector` (`{}`: all namespaces; missing: none); with neither,
the namespace of the pod that owns the term. `topologyKey` names the node label whose value
is the term's domain.

`with_selected_namespaces` turns the incoming pod's `namespaceSelector`s into namespace
names, so its terms read no namespace labels and the indexes kept across cycles hold their
counts (the existing pods' side keys them by the incoming pod's namespace labels).

Terms of pods already on nodes are compiled once per pod object (`TermCache`); the required
terms the queueing hints read, once per pod object and kind (`RequiredTermCache`). Both
forget a pod's terms when its object is freed, so they hold the terms of live pods only.
"""

from __future__ import annotations

import dataclasses
import weakref
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from kubesched.model import ApiObject, Pod
from kubesched.model.affinity import PodAffinityTerm
from kubesched.plugins.helper import selectors as sel

NamespaceLabelsOf = Callable[[str], Mapping[str, str]]


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    selector: sel.LabelSelector
    topology_key: str
    namespaces: frozenset[str]
    namespace_selector: sel.LabelSelector
    weight: int = 0
    """Preferred terms only."""

    @property
    def labels_dependent(self) -> bool:
        """Whether matching reads namespace labels (a non-empty namespace selector)."""
        return not self.namespace_selector.nothing and not self.namespace_selector.empty

    def matches(self, pod: Pod, namespace_labels: NamespaceLabelsOf) -> bool:
        """Upstream `AffinityTerm.Matches`: the pod's namespace is in scope and its labels
        are selected."""
        if pod.namespace not in self.namespaces:
            scope = self.namespace_selector
            if scope.nothing:
                return False
            if not scope.empty and not scope.matches(namespace_labels(pod.namespace)):
                return False
        return self.selector.matches(pod.labels)


def matches_all(terms: Sequence[AffinityTerm], pod: Pod, labels_of: NamespaceLabelsOf) -> bool:
    """Upstream `podMatchesAllAffinityTerms`: False for no terms."""
    if not terms:
        return False
    return all(term.matches(pod, labels_of) for term in terms)


def matches_any(terms: Sequence[AffinityTerm], pod: Pod, labels_of: NamespaceLabelsOf) -> bool:
    """Upstream `podMatchesAnyAffinityTerms`: False for no terms."""
    return any(term.matches(pod, labels_of) for term in terms)


@dataclass(frozen=True, slots=True)
class PodTerms:
    required_affinity: tuple[AffinityTerm, ...] = ()
    required_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred_affinity: tuple[AffinityTerm, ...] = ()
    preferred_anti_affinity: tuple[AffinityTerm, ...] = ()


NO_TERMS = PodTerms()


def with_selected_namespaces(
    terms: PodTerms, listed: Callable[[], Iterable[ApiObject]]
) -> PodTerms:
    """The incoming pod's terms with each `namespaceSelector` turned into the names of the
    namespaces it selects among `listed()` (joined to the term's own namespaces; the
    selector then selects nothing), as upstream's `mergeAffinityTermNamespacesIfNotEmpty`
    does in PreFilter and PreScore. A term without one (or with `{}`) is kept as it is.
    Matching then reads no namespace labels, so the indexes can hold the term's counts."""
    groups = (
        terms.required_affinity,
        terms.required_anti_affinity,
        terms.preferred_affinity,
        terms.preferred_anti_affinity,
    )
    if not any(term.labels_dependent for group in groups for term in group):
        return terms
    namespaces = list(listed())

    def resolve(term: AffinityTerm) -> AffinityTerm:
        if not term.labels_dependent:
            return term
        scope = term.namespace_selector
        picked = {ns.name for ns in namespaces if scope.matches(ns.labels)}
        return dataclasses.replace(
            term, namespaces=term.namespaces | picked, namespace_selector=sel.NOTHING
        )

    return PodTerms(*(tuple(resolve(term) for term in group) for group in groups))


def pod_terms(pod: Pod, *, strict: bool = True) -> PodTerms:
    """The pod's terms; an invalid selector raises SelectorError, or with `strict=False`
    drops that group of terms (as upstream's cache does for pods already placed)."""
    affinity = pod.affinity
    if affinity is None or not (affinity.pod_affinity or affinity.pod_anti_affinity):
        return NO_TERMS
    groups = []
    for kind in (affinity.pod_affinity, affinity.pod_anti_affinity):
        for group in (kind.required, kind.preferred) if kind else ((), ()):
            try:
                groups.append(_compiled(pod, group))
            except sel.SelectorError:
                if strict:
                    raise
                groups.append(())
    return PodTerms(groups[0], groups[2], groups[1], groups[3])


def required_terms(pod: Pod, kind: str) -> tuple[AffinityTerm, ...]:
    """The pod's required `podAffinity` or `podAntiAffinity` terms alone (upstream
    `GetAffinityTerms(pod, GetPod[Anti]AffinityTerms(...))`); raises SelectorError."""
    spec = pod.affinity.of_kind(kind) if pod.affinity is not None else None
    return _compiled(pod, spec.required) if spec else ()


def _compiled(pod: Pod, terms: Sequence[PodAffinityTerm]) -> tuple[AffinityTerm, ...]:
    return tuple(compile_term(pod, term) for term in terms)


def compile_term(owner: Pod, term: PodAffinityTerm) -> AffinityTerm:
    """One term of `owner`'s, compiled (its weight kept); raises SelectorError."""
    selector = sel.with_label_keys(
        term.label_selector,
        match_keys=term.match_label_keys,
        mismatch_keys=term.mismatch_label_keys,
        labels=owner.labels,
    )
    namespace_selector = term.namespace_selector
    if not term.namespaces and namespace_selector is None:
        namespaces = frozenset({owner.namespace})
    else:
        namespaces = frozenset(term.namespaces)
    return AffinityTerm(
        selector=sel.compile_selector(selector),
        topology_key=term.topology_key,
        namespaces=namespaces,
        namespace_selector=sel.compile_selector(namespace_selector),
        weight=term.weight,
    )


_K = TypeVar("_K", bound=Hashable)
_HintKey = tuple[int, str]
"""(id of the pod object, `podAffinity` or `podAntiAffinity`)."""


class _PodRef(weakref.KeyedRef[_K, Pod]):
    """A weak reference to a cached pod object, with its entry's key."""

    __slots__ = ()


class TermCache:
    """Compiled terms of pods already placed, per pod object (a changed pod is a new object).

    An entry lives as long as its pod object: keyed by the object's identity, it is dropped
    by a weak reference's callback when the object is freed (once the cache, the snapshot
    and the queue have let go of a deleted or replaced pod). So the cache holds the terms of
    the pods alive now, never of every pod ever placed; a hit is one look-up by `id(pod)`
    (an id is reused only after its object is freed, and its entry with it)."""

    __slots__ = ("_drop", "_pods")

    def __init__(self) -> None:
        self._pods: dict[int, tuple[PodTerms, _PodRef[int]]] = {}
        self._drop = _dropper(self._pods)

    def __len__(self) -> int:
        return len(self._pods)

    def of(self, pod: Pod) -> PodTerms:
        hit = self._pods.get(id(pod))
        if hit is not None:
            return hit[0]
        terms = pod_terms(pod, strict=False)
        if terms is not NO_TERMS:
            key = id(pod)
            self._pods[key] = (terms, _PodRef(pod, self._drop, key))
        return terms


class RequiredTermCache:
    """`required_terms` per pod object and kind: the hints ask for the same pending pod's
    (and the same deleted pod's) terms once per unschedulable pod and event. An invalid
    selector is not cached: it raises SelectorError each time. An entry goes with its pod
    object, as in `TermCache`."""

    __slots__ = ("_drop", "_terms")

    def __init__(self) -> None:
        self._terms: dict[_HintKey, tuple[tuple[AffinityTerm, ...], _PodRef[_HintKey]]] = {}
        self._drop = _dropper(self._terms)

    def __len__(self) -> int:
        return len(self._terms)

    def of(self, pod: Pod, kind: str) -> tuple[AffinityTerm, ...]:
        if pod.affinity is None or not pod.affinity.of_kind(kind):
            return ()
        key = (id(pod), kind)
        hit = self._terms.get(key)
        if hit is not None:
            return hit[0]
        terms = required_terms(pod, kind)
        self._terms[key] = (terms, _PodRef(pod, self._drop, key))
        return terms


def _dropper(
    entries: dict[_K, tuple[Any, _PodRef[_K]]],
) -> Callable[[_PodRef[_K]], None]:
    """The callback of the entries' weak references: a freed pod's entry leaves `entries`."""

    def drop(ref: _PodRef[_K]) -> None:
        entry = entries.get(ref.key)
        if entry is not None and entry[1] is ref:
            del entries[ref.key]

    return drop
