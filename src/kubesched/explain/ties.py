"""Which other nodes preemption could pick as well.

Upstream's DefaultPreemption finds its candidates in parallel, from a random offset, and
takes the first of the candidates its criteria rank highest: among equally ranked ones the
pick is random. A PostFilter plugin that can `evaluate(state, pod, statuses)` without acting
(kubesched's DefaultPreemption) tells explain those equals (`Evaluation.ties`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubesched.apis import names
from kubesched.framework import CycleState
from kubesched.framework.interfaces import NodeToStatusReader
from kubesched.model import Pod
from kubesched.runtime import Framework

PREEMPTION_PLUGIN = names.DEFAULT_PREEMPTION


def preemption_choices(
    fw: Framework, state: CycleState, pod: Pod, statuses: NodeToStatusReader
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(node, victims' `namespace/name`) of every candidate ranked highest; () when the
    profile's preemption plugin cannot say."""
    for plugin in fw.plugins.post_filter:
        evaluate = getattr(plugin, "evaluate", None)
        if plugin.name != PREEMPTION_PLUGIN or not callable(evaluate):
            continue
        evaluation: Any = evaluate(state.clone(), pod, statuses)
        best = getattr(evaluation, "candidate", None)
        if best is None:
            return ()
        candidates: Sequence[Any] = (best, *getattr(evaluation, "ties", ()))
        return tuple(
            sorted((c.node_name, tuple(victim.key for victim in c.victims)) for c in candidates)
        )
    return ()
