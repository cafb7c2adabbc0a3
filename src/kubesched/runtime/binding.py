"""Runners of the end of the scheduling cycle (Reserve, Permit) and of the binding cycle
(WaitOnPermit, PreBind, Bind, PostBind), with upstream's semantics:

* Reserve stops at the first failure; the caller must then run Unreserve, which calls every
  reserve plugin in reverse order and never fails.
* Permit: a rejection wins; otherwise any WAIT parks the pod in `handle.waiting_pods`
  (timeouts capped at 15 min) and `wait_on_permit` awaits the decision.
* Bind: plugins are asked in order until one does not return SKIP.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from kubesched.apis.gotext import go_quote
from kubesched.framework.cycle_state import CycleState
from kubesched.framework.plugin_failures import PLUGIN_ERRORS, as_error, cancelled_by_plugin, raised
from kubesched.framework.status import SUCCESS, Code, Status
from kubesched.framework.waiting import MAX_PERMIT_TIMEOUT, WaitingPod
from kubesched.model import Pod
from kubesched.runtime.instrument import ExtensionPointObserver, timed, timed_async
from kubesched.runtime.plugin_metrics import PluginMetrics, timed_await, timed_call

F = TypeVar("F", bound=Callable[..., Any])

if TYPE_CHECKING:
    from kubesched.framework.handle import Handle
    from kubesched.runtime.framework import PluginLists


async def _resolve(value: Any) -> Any:
    """Await `value` if the plugin method was a coroutine function."""
    if inspect.isawaitable(value):
        return await value
    return value


class BindingCycle:
    """Mixin of `Framework` with the Reserve..PostBind runners."""

    plugins: PluginLists
    handle: Handle
    observe: ExtensionPointObserver
    plugin_metrics: PluginMetrics | None

    def metered(self, state: CycleState, plugin: str, point: str, call: F) -> F:
        """`call`, timed into the plugin metrics when this cycle is sampled (every runner of
        the Framework calls plugins through it)."""
        if self.plugin_metrics is None or not state.record_plugin_metrics:
            return call
        return timed_call(self.plugin_metrics, plugin, point, call)

    async def _awaited(self, state: CycleState, plugin: str, point: str, value: Any) -> Any:
        """A PreBind/Bind result, awaited if the method was a coroutine function, and timed
        on sampled cycles."""
        metrics = self.plugin_metrics if state.record_plugin_metrics else None
        return await timed_await(metrics, plugin, point, _resolve(value))

    @timed("Reserve")
    def run_reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Reserve on the chosen node; a failure means the caller must run `run_unreserve`."""
        for pl in self.plugins.reserve:
            try:
                status = self.metered(state, pl.name, "Reserve", pl.reserve)(state, pod, node_name)
            except PLUGIN_ERRORS as exc:
                return raised(pl.name, "Reserve", exc)
            if status is None or status.code is Code.SUCCESS:
                continue
            if status.is_rejected():
                return status.with_plugin(pl.name)
            return as_error(pl.name, "Reserve", status)
        return SUCCESS

    @timed("Unreserve")
    def run_unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Unreserve in reverse order; plugin errors are logged and skipped."""
        for pl in reversed(self.plugins.reserve):
            try:
                self.metered(state, pl.name, "Unreserve", pl.unreserve)(state, pod, node_name)
            except PLUGIN_ERRORS as exc:
                raised(pl.name, "Unreserve", exc)

    @timed("Permit")
    def run_permit(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """SUCCESS, a rejection/ERROR, or WAIT (then `await wait_on_permit(pod)`)."""
        waits: dict[str, float] = {}
        for pl in self.plugins.permit:
            try:
                permit = self.metered(state, pl.name, "Permit", pl.permit)
                status, timeout = permit(state, pod, node_name)
            except PLUGIN_ERRORS as exc:
                return raised(pl.name, "Permit", exc)
            if status is None or status.code is Code.SUCCESS:
                continue
            if status.is_rejected():
                return status.with_plugin(pl.name)
            if status.code is not Code.WAIT:
                return as_error(pl.name, "Permit", status)
            waits[pl.name] = min(timeout, MAX_PERMIT_TIMEOUT)
        if not waits:
            return SUCCESS
        waiting = WaitingPod(pod=pod, plugin_timeouts=waits, node_name=node_name)
        self.handle.waiting_pods.add(waiting)
        return Status(
            Code.WAIT, f"one or more plugins asked to wait and no plugin rejected pod {pod.name!r}"
        )

    async def wait_on_permit(self, pod: Pod) -> Status:
        """Wait until the pod's Permit plugins allow it (SUCCESS) or one rejects it."""
        waiting = self.handle.waiting_pods.get(pod.uid)
        if waiting is None:
            return SUCCESS
        try:
            status = await waiting.wait()
        finally:
            self.handle.waiting_pods.remove(pod.uid)
        if status.is_success() or status.is_rejected():
            return status
        return Status(
            Code.ERROR, f"waiting on permit for pod: {status.message}", plugin=status.plugin
        )

    @timed("PreBindPreFlight")
    def run_pre_bind_pre_flights(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """Upstream `RunPreBindPreFlights`: SUCCESS when any PreBind plugin will do work
        (a plugin without `pre_bind_pre_flight` will), SKIP when none will, else ERROR (a
        rejection is unsupported there, as upstream). Records the skipping plugins in
        `state`, so `run_pre_bind` does not call them."""
        result: Status = Status(Code.SKIP)
        skipped: set[str] = set()
        for pl in self.plugins.pre_bind:
            pre_flight = getattr(pl, "pre_bind_pre_flight", None)
            if pre_flight is None:
                result = SUCCESS
                continue
            try:
                status = self.metered(state, pl.name, "PreBindPreFlight", pre_flight)(
                    state, pod, node_name
                )
            except PLUGIN_ERRORS as exc:
                return raised(pl.name, "PreBindPreFlight", exc)
            if status is None or status.code is Code.SUCCESS:
                result = SUCCESS
            elif status.code is Code.SKIP:
                skipped.add(pl.name)
            elif status.code is Code.ERROR:
                message = f"running PreBindPreFlight {go_quote(pl.name)}: {status.message}"
                return Status(Code.ERROR, message, plugin=pl.name, error=status.error)
            else:
                return Status(
                    Code.ERROR,
                    f"PreBindPreFlight {pl.name} returned {go_quote(str(status.code))}, which"
                    " is unsupported. It is supposed to return Success, Skip, or Error status",
                    plugin=pl.name,
                )
        state.skip_pre_bind_plugins = frozenset(skipped)
        return result

    def will_wait_on_permit(self, pod: Pod) -> bool:
        """Whether a Permit plugin holds the pod (upstream `WillWaitOnPermit`)."""
        return self.handle.waiting_pods.get(pod.uid) is not None

    @timed_async("PreBind")
    async def run_pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        skipped = state.skip_pre_bind_plugins
        for pl in self.plugins.pre_bind:
            if skipped and pl.name in skipped:
                continue
            try:
                status: Status | None = await self._awaited(
                    state, pl.name, "PreBind", pl.pre_bind(state, pod, node_name)
                )
            except asyncio.CancelledError as exc:
                if not cancelled_by_plugin():
                    raise
                return raised(pl.name, "PreBind", exc)
            except PLUGIN_ERRORS as exc:
                return raised(pl.name, "PreBind", exc)
            if status is None or status.code is Code.SUCCESS:
                continue
            if status.is_rejected():
                return status.with_plugin(pl.name)
            return as_error(pl.name, "PreBind", status)
        return SUCCESS

    @timed_async("Bind")
    async def run_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        """The first bind plugin that does not SKIP binds the pod (SKIP if none did)."""
        status: Status = Status(Code.SKIP)
        for pl in self.plugins.bind:
            try:
                result: Status | None = await self._awaited(
                    state, pl.name, "Bind", pl.bind(state, pod, node_name)
                )
            except asyncio.CancelledError as exc:
                if not cancelled_by_plugin():
                    raise
                return raised(pl.name, "Bind", exc)
            except PLUGIN_ERRORS as exc:
                return raised(pl.name, "Bind", exc)
            status = SUCCESS if result is None else result
            if status.code is Code.SKIP:
                continue
            if status.code is Code.SUCCESS:
                return SUCCESS
            if status.is_rejected():
                return status.with_plugin(pl.name)
            return as_error(pl.name, "Bind", status)
        return status

    @timed("PostBind")
    def run_post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Informational; errors are logged."""
        for pl in self.plugins.post_bind:
            try:
                self.metered(state, pl.name, "PostBind", pl.post_bind)(state, pod, node_name)
            except PLUGIN_ERRORS as exc:
                raised(pl.name, "PostBind", exc)
