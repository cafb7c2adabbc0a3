"""`LeaderElector`: client-go's leader election loop on asyncio.

    run ─► acquire: try, then wait retryPeriod x [1, 2.2) (jitter), until we hold the Lease
        ─► lead: start `on_started_leading` as a task; every retryPeriod renew, retrying
           every retryPeriod for at most renewDeadline, else leadership is lost
        ─► wind down (always): fence; if we still hold the Lease, await `before_release`
           and release it; cancel the leading task; `on_stopped_leading(result)`

Differences from client-go, all on the safe side: a renewal that finds another holder stops
leading at once instead of polling until the deadline; release re-checks the freshly read
holder; `fenced()` turns True renewDeadline after the *send* time of the last successful
renewal, so writes stop before a standby (which waits leaseDuration from when it saw
that renewal) can take over. The time is monotonic, so it counts a pause of the process
(SIGSTOP, a VM freeze) too: a leader resumed after its deadline sends nothing more.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from typing import Any

from kubesched.framework.logkv import kv
from kubesched.leaderelection.announce import Announcer, EventSink, OnNewLeader
from kubesched.leaderelection.candidate import Attempt, Candidate
from kubesched.leaderelection.clock import Clock, LoopClock
from kubesched.leaderelection.lock import LeaseLock
from kubesched.leaderelection.outcome import ElectionMetrics, StoppedLeading, StopReason
from kubesched.leaderelection.settings import ElectionConfig, validate_identity
from kubesched.leaderelection.standby import STANDBY_LOG_INTERVAL, StandbyReporter

log = logging.getLogger(__name__)

HEALTH_TOLERANCE = 20.0
"""kube-scheduler's healthz: a leader not renewed for leaseDuration + 20 s is unhealthy."""

OnStartedLeading = Callable[[], Coroutine[Any, Any, None]]
OnStoppedLeading = Callable[[StoppedLeading], None]
BeforeRelease = Callable[[], Awaitable[None]]


class LeaderElector:
    """Elects one leader among the replicas sharing `lock`'s Lease. `run` once."""

    def __init__(
        self,
        lock: LeaseLock,
        *,
        config: ElectionConfig | None = None,
        clock: Clock | None = None,
        before_release: BeforeRelease | None = None,
        event_sink: EventSink | None = None,
        metrics: ElectionMetrics | None = None,
        rng: random.Random | None = None,
        standby_log_interval: float = STANDBY_LOG_INTERVAL,
    ) -> None:
        validate_identity(lock.identity)
        self.config = config or ElectionConfig()
        self._clock = clock or LoopClock()
        self._candidate = Candidate(lock, config=self.config, clock=self._clock, metrics=metrics)
        self._standby = StandbyReporter(clock=self._clock, interval=standby_log_interval)
        self._announcer = Announcer(
            lease=lock.describe(), identity=lock.identity, event_sink=event_sink, metrics=metrics
        )
        self._before_release = before_release
        self._rng = rng
        self._leading = False
        self._stopping = False
        self._stop_cause: tuple[StopReason, BaseException | None] | None = None
        self._inner: asyncio.Task[StoppedLeading] | None = None
        self._leading_task: asyncio.Task[None] | None = None
        self._on_started: OnStartedLeading | None = None

    @property
    def identity(self) -> str:
        """Our holder identity."""
        return self._candidate.lock.identity

    @property
    def lease(self) -> str:
        """`namespace/name` of the Lease."""
        return self._candidate.lock.describe()

    def is_leader(self) -> bool:
        """Whether we lead: from acquiring until leading stops (or stopping starts)."""
        return self._leading and not self._stopping

    def get_leader(self) -> str:
        """The holder in the last record seen ("" when none seen or released)."""
        observed = self._candidate.observed
        return observed.holder_identity if observed else ""

    def last_renew_monotonic(self) -> float | None:
        """Monotonic send time of our last successful acquire or renew, None before."""
        return self._candidate.last_renew_start

    def fenced(self) -> bool:
        """True when no binding may start (see `Leadership.fenced`)."""
        last = self._candidate.last_renew_start
        if not self.is_leader() or last is None:
            return True
        return self._clock.monotonic() - last > self.config.renew_deadline

    def fence_deadline(self) -> float:
        """The monotonic time until which a write may still be sent (0 when not leading):
        renewDeadline after the send time of the last successful renewal, on the clock
        `fenced` reads (the event loop's: the host's CLOCK_MONOTONIC in production, so
        another process can hold a write to it)."""
        last = self._candidate.last_renew_start
        if not self.is_leader() or last is None:
            return 0.0
        return last + self.config.renew_deadline

    def check(self, *, tolerance: float = HEALTH_TOLERANCE) -> str | None:
        """A health problem, or None: a leader silent for leaseDuration + `tolerance`."""
        last = self._candidate.last_renew_start
        if not self._leading or last is None:
            return None
        if self._clock.monotonic() - last > self.config.lease_duration + tolerance:
            return f"failed election to renew leadership on lease {self.lease}"
        return None

    def stop(self) -> None:
        """Ask `run` to stop (e.g. on SIGTERM): it releases the Lease and returns STOPPED."""
        self._request_stop(StopReason.STOPPED, None)

    def _request_stop(self, reason: StopReason, error: BaseException | None) -> None:
        if self._stop_cause is None:
            self._stop_cause = (reason, error)
        if self._inner is not None:
            self._inner.cancel()

    async def run(
        self,
        *,
        on_started_leading: OnStartedLeading | None = None,
        on_stopped_leading: OnStoppedLeading | None = None,
        on_new_leader: OnNewLeader | None = None,
        before_release: BeforeRelease | None = None,
    ) -> StoppedLeading:
        """Campaign, lead and wind down; return why it ended (see module docstring).

        `on_started_leading` runs as a task while we lead and is cancelled when leading
        stops; `on_stopped_leading` is called once at the end, leader or not (as client-go);
        `on_new_leader` gets each new holder we observe; `before_release` (if given, in place
        of the constructor's) is awaited before the Lease is released. Cancelling the task
        running `run` winds down like `stop()` and then re-raises CancelledError.
        """
        if self._inner is not None:
            raise RuntimeError("LeaderElector.run may be called only once")
        self._on_started, self._announcer.on_new_leader = on_started_leading, on_new_leader
        if before_release is not None:
            self._before_release = before_release
        self._announcer.starting(self.config, self._candidate.lock.scheduler_names)
        self._inner = asyncio.create_task(self._elect(), name=f"leader-election {self.lease}")
        if self._stop_cause is not None:
            self._inner.cancel()
        outer_cancelled = False
        try:
            result = await self._inner
        except asyncio.CancelledError:
            current = asyncio.current_task()
            outer_cancelled = current is not None and current.cancelling() > 0
            result = self._stopped_result()
        except Exception as exc:
            log.exception("leader election failed", extra=kv(lease=self.lease))
            result = self._result(StopReason.ELECTION_FAILED, f"internal error: {exc!r}", exc)
        self._announcer.losing(result)
        result = await self._wind_down(result)
        if on_stopped_leading is not None:
            on_stopped_leading(result)
        if outer_cancelled:
            raise asyncio.CancelledError
        return result

    async def _elect(self) -> StoppedLeading:
        await self._acquire()
        self._start_leading()
        return await self._renew()

    async def _acquire(self) -> None:
        while True:
            attempt = await self._candidate.try_acquire_or_renew()
            self._report_transition()
            if attempt is Attempt.SUCCEEDED:
                return
            if attempt is Attempt.HELD:
                self._standby.report(self._candidate)
            await self._clock.sleep(self._candidate.retry_wait(attempt, rng=self._rng))

    def _start_leading(self) -> None:
        self._leading = True
        observed = self._candidate.observed
        self._announcer.became_leader(observed.lease_transitions if observed else 0)
        if self._on_started is not None:
            self._leading_task = asyncio.create_task(self._on_started(), name="leading")
            self._leading_task.add_done_callback(self._leading_task_done)

    def _leading_task_done(self, task: asyncio.Task[None]) -> None:
        if task.cancelled() or self._stopping:
            return
        error = task.exception()
        if error is None:
            log.info(
                "the leading task finished; still holding the lease", extra=kv(lease=self.lease)
            )
            return
        log.error("the leading task failed", extra=kv(lease=self.lease, err=repr(error)))
        self._request_stop(StopReason.LEADING_TASK_FAILED, error)

    async def _renew(self) -> StoppedLeading:
        while True:
            await self._clock.sleep(self.config.retry_period)
            lost = await self._renew_within_deadline()
            if lost is not None:
                return lost

    async def _renew_within_deadline(self) -> StoppedLeading | None:
        try:
            async with asyncio.timeout(self.config.renew_deadline):
                while True:
                    attempt = await self._candidate.try_acquire_or_renew()
                    self._report_transition()
                    if attempt is Attempt.SUCCEEDED:
                        return None
                    if attempt is Attempt.HELD:
                        taken = f"the lease {self.lease} is now held by {self.get_leader()}"
                        return self._result(StopReason.LEASE_TAKEN, taken)
                    await self._clock.sleep(self.config.retry_period)
        except TimeoutError:
            return self._result(StopReason.RENEW_DEADLINE_EXCEEDED, self._deadline_detail())

    def _deadline_detail(self) -> str:
        last = self._candidate.last_renew_start
        age = "never" if last is None else f"{self._clock.monotonic() - last:.1f}s ago"
        return (
            f"could not renew the lease {self.lease} within the renew deadline "
            f"({self.config.renew_deadline:g}s; last successful renewal sent {age}); "
            "a standby may take it over "
            f"{self.config.lease_duration:g}s after it last saw it renewed"
        )

    def _stopped_result(self) -> StoppedLeading:
        reason, error = self._stop_cause or (StopReason.STOPPED, None)
        if reason is StopReason.LEADING_TASK_FAILED:
            return self._result(reason, f"the work done while leading failed: {error!r}", error)
        return self._result(
            reason,
            "asked to stop" if self._leading else "asked to stop while waiting for the lease",
        )

    def _result(
        self, reason: StopReason, message: str, error: BaseException | None = None
    ) -> StoppedLeading:
        return StoppedLeading(
            reason=reason,
            message=message,
            was_leader=self._leading,
            holder=self.get_leader(),
            error=error,
        )

    async def _wind_down(self, result: StoppedLeading) -> StoppedLeading:
        self._stopping = True
        released = False
        if self._leading and self._candidate.holds() and self.config.release_on_cancel:
            await self._await_before_release()
            await self._stop_leading_task()
            released = await self._release()
        await self._stop_leading_task()
        suffix = f"; released the lease {self.lease}" if released else ""
        result = replace(
            result, message=result.message + suffix, holder=self.get_leader(), released=released
        )
        self._leading = False
        self._announcer.stopped(result)
        return result

    async def _await_before_release(self) -> None:
        if self._before_release is None:
            return
        try:
            await self._before_release()
        except Exception:
            log.exception("before_release failed; releasing anyway", extra=kv(lease=self.lease))

    async def _stop_leading_task(self) -> None:
        task = self._leading_task
        if task is None or task.done():
            return
        task.cancel()
        _, pending = await asyncio.wait([task], timeout=self.config.renew_deadline)
        if pending:
            log.error("the leading task ignores cancellation", extra=kv(lease=self.lease))

    async def _release(self) -> bool:
        try:
            async with asyncio.timeout(self.config.renew_deadline):
                return await self._candidate.release()
        except TimeoutError:
            log.warning("timed out releasing lease", extra=kv(lease=self.lease))
            return False

    def _report_transition(self) -> None:
        self._announcer.observed_holder(self.get_leader())
