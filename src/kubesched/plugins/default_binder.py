"""DefaultBinder (Bind): bind the pod through the application (`handle.bind`, which POSTs the
pod's `binding` subresource). A failure raises; the framework turns it into an ERROR status
that keeps the exception in `status.error` (e.g. to tell a 409 from a timeout)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.framework import CycleState, Handle, Status
from kubesched.model import Pod
from kubesched.plugins._args import no_args

NAME = "DefaultBinder"


class DefaultBinder:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        no_args(args, plugin=NAME)
        self._handle = handle

    async def bind(self, _state: CycleState, pod: Pod, node_name: str) -> Status | None:
        await self._handle.bind(pod, node_name)
        return None
