"""Keys for the queue's index of rejected pods by the assigned pods that may help them
(`framework.AddedIndex`): a pending pod's hint can say QUEUE for an added pod only when the
added pod is in one of the namespaces and carries one of the labels the hint looks for.

A key is `(namespace, label key, label value)`; None in the namespace means any namespace,
`(namespace, None, None)` any labels. An added pod has the keys of its namespace and of
any namespace, each with every label of its own and with none: a pending pod's key that
the added pod can satisfy is among them.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator

from kubesched.model import Pod
from kubesched.plugins.helper.selectors import IN, LabelSelector

Key = tuple[str | None, str | None, str | None]


def added_pod_keys(new: object) -> Iterator[Hashable]:
    """Every key an added pod satisfies (none for an object that is no pod)."""
    if not isinstance(new, Pod):
        return
    labels = new.labels.items()
    for namespace in (new.namespace, None):
        yield (namespace, None, None)
        for key, value in labels:
            yield (namespace, key, value)


def selector_keys(namespaces: Iterable[str | None], selector: LabelSelector) -> frozenset[Hashable]:
    """Keys a pod selected by `selector` in one of `namespaces` (None: any) satisfies at
    least one of: one required label (a `key == value`, or the values of an In), else any
    labels; none when the selector selects nothing."""
    if selector.nothing:
        return frozenset()
    labels: list[tuple[str | None, str | None]]
    if selector.equals:
        labels = [selector.equals[0]]
    else:
        ins = [r for r in selector.others if r.operator == IN]
        labels = [(ins[0].key, value) for value in ins[0].values] if ins else [(None, None)]
    return frozenset((ns, key, value) for ns in namespaces for key, value in labels)
