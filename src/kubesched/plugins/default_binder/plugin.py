"""DefaultBinder (Bind): bind the pod through the application (`handle.bind`, which POSTs the
pod's `binding` subresource). A failure is returned as an ERROR status that keeps the
exception in `status.error` (the binder tells a 409/404 from a timeout by it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.apis import names
from kubesched.framework import Code, CycleState, Handle, Status
from kubesched.model import Pod
from kubesched.plugins.helper.args import no_args

NAME = names.DEFAULT_BINDER


class DefaultBinder:
    name = NAME

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        no_args(args, plugin=NAME)
        self._handle = handle

    async def bind(self, _state: CycleState, pod: Pod, node_name: str) -> Status | None:
        try:
            await self._handle.bind(pod, node_name)
        except Exception as exc:
            # An API answer such as 409 (already bound) is an outcome, not a plugin crash:
            # return it (the binder reads `error` to drop or requeue) instead of raising.
            return Status(Code.ERROR, str(exc), error=exc)
        return None
