"""`Announcer`: everything the elector tells the world — log lines, `LeaderElection`
events on the Lease ("<identity> became leader" / "<identity> stopped leading", as
client-go's LeaseLock.RecordEvent), the leading metric and `on_new_leader`."""

from __future__ import annotations

import logging
from collections.abc import Callable

from kubesched.framework.logkv import Bare, kv
from kubesched.leaderelection.outcome import ElectionMetrics, StoppedLeading
from kubesched.leaderelection.settings import ElectionConfig

log = logging.getLogger(__name__)

EVENT_REASON = "LeaderElection"

OnNewLeader = Callable[[str], None]
EventSink = Callable[[str, str], None]
"""Called as `sink(reason, message)`; the app records a Normal event on the Lease."""


class Announcer:
    """Logs, events, metrics and new-leader callbacks of one elector."""

    def __init__(
        self,
        *,
        lease: str,
        identity: str,
        event_sink: EventSink | None = None,
        metrics: ElectionMetrics | None = None,
    ) -> None:
        self._lease = lease
        self._identity = identity
        self._event_sink = event_sink
        self._metrics = metrics
        self.on_new_leader: OnNewLeader | None = None
        self._reported_leader = ""

    def starting(self, config: ElectionConfig, scheduler_names: tuple[str, ...]) -> None:
        """The first line of a run: which Lease, who we are, the timings."""
        log.info(
            "starting leader election",
            extra=kv(
                lease=self._lease,
                identity=self._identity,
                schedulers=",".join(scheduler_names),
                leaseDuration=Bare(f"{config.lease_duration:g}s"),
                renewDeadline=Bare(f"{config.renew_deadline:g}s"),
                retryPeriod=Bare(f"{config.retry_period:g}s"),
            ),
        )

    def became_leader(self, transitions: int) -> None:
        """We acquired the Lease."""
        if self._metrics is not None:
            self._metrics.set_leading(True)
        log.info(
            "successfully acquired lease",
            extra=kv(lease=self._lease, identity=self._identity, transitions=transitions),
        )
        self._emit("became leader")

    def losing(self, result: StoppedLeading) -> None:
        """Leadership was just lost (not asked to stop): say so at once, before the wind-down
        (in-flight bindings refused at the socket by the fence, release, clean-up) that can
        take a while before `stopped`."""
        if not result.was_leader or result.exit_code == 0:
            return
        log.warning(
            "stopped leading: no more writes; in-flight bindings are dropped before exiting",
            extra=kv(
                lease=self._lease,
                identity=self._identity,
                reason=result.reason.value,
                detail=result.message,
            ),
        )

    def stopped(self, result: StoppedLeading) -> None:
        """The run ended: metric and event if we led, and the line saying why."""
        if result.was_leader:
            if self._metrics is not None:
                self._metrics.set_leading(False)
            self._emit("stopped leading")
        pairs = kv(
            lease=self._lease,
            identity=self._identity,
            reason=result.reason.value,
            holder=result.holder,
            detail=result.message,
        )
        if result.exit_code == 0:
            log.info("leader election stopped", extra=pairs)
        elif result.was_leader:
            log.error("lost leader lease; stopping so a restart rebuilds state", extra=pairs)
        else:
            log.error("leader election failed", extra=pairs)

    def observed_holder(self, holder: str) -> None:
        """Call `on_new_leader` when the observed holder changes to a non-empty one."""
        if holder == self._reported_leader:
            return
        self._reported_leader = holder
        if holder and self.on_new_leader is not None:
            try:
                self.on_new_leader(holder)
            except Exception:
                log.exception("on_new_leader failed", extra=kv(lease=self._lease))

    def _emit(self, what: str) -> None:
        if self._event_sink is None:
            return
        try:
            self._event_sink(EVENT_REASON, f"{self._identity} {what}")
        except Exception:
            log.exception("could not record leader election event", extra=kv(lease=self._lease))
