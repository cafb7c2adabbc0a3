"""PrioritySort (QueueSort): higher `spec.priority` first, then the pod queued earlier."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.apis import names
from kubesched.framework import Handle, QueuedPodInfo
from kubesched.plugins.helper.args import no_args

NAME = names.PRIORITY_SORT


class PrioritySort:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        no_args(args, plugin=NAME)

    def less(self, first: QueuedPodInfo, second: QueuedPodInfo) -> bool:
        p1 = first.pod.priority
        p2 = second.pod.priority
        return p1 > p2 or (p1 == p2 and first.timestamp < second.timestamp)
