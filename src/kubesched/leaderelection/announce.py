"""`Announcer`: everything the elector tells the world — log lines, `LeaderElection`
events on the Lease ("<identity> became leader" / "<identity> stopped leading", as
client-go's LeaseLock.RecordEvent), the leading metric and `on_new_leader`."""

from __future__ import annotations

import logging
from collections.abc import Callable

from kubesched.leaderelection.outcome import ElectionMetrics, StoppedLeading
from kubesched.leaderelection.settings import ElectionConfig

log = logging.getLogger("kubesched.leaderelection")

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
            '"starting leader election" lease="%s" identity="%s" schedulers="%s" '
            "leaseDuration=%gs renewDeadline=%gs retryPeriod=%gs",
            self._lease,
            self._identity,
            ",".join(scheduler_names),
            config.lease_duration,
            config.renew_deadline,
            config.retry_period,
        )

    def became_leader(self, transitions: int) -> None:
        """We acquired the Lease."""
        if self._metrics is not None:
            self._metrics.set_leading(True)
        log.info(
            '"successfully acquired lease" lease="%s" identity="%s" transitions=%d',
            self._lease,
            self._identity,
            transitions,
        )
        self._emit("became leader")

    def losing(self, result: StoppedLeading) -> None:
        """Leadership was just lost (not asked to stop): say so at once, before the wind-down
        (in-flight bindings, release, clean-up) that can take a while before `stopped`."""
        if not result.was_leader or result.exit_code == 0:
            return
        log.warning(
            '"stopped leading: no new bindings; finishing in-flight work before exiting" '
            'lease="%s" identity="%s" reason="%s" detail="%s"',
            self._lease,
            self._identity,
            result.reason.value,
            result.message,
        )

    def stopped(self, result: StoppedLeading) -> None:
        """The run ended: metric and event if we led, and the line saying why."""
        if result.was_leader:
            if self._metrics is not None:
                self._metrics.set_leading(False)
            self._emit("stopped leading")
        fields = (self._lease, self._identity, result.reason.value, result.holder, result.message)
        line = '"%s" lease="%s" identity="%s" reason="%s" holder="%s" detail="%s"'
        if result.exit_code == 0:
            log.info(line, "leader election stopped", *fields)
        elif result.was_leader:
            log.error(line, "lost leader lease; stopping so a restart rebuilds state", *fields)
        else:
            log.error(line, "leader election failed", *fields)

    def observed_holder(self, holder: str) -> None:
        """Call `on_new_leader` when the observed holder changes to a non-empty one."""
        if holder == self._reported_leader:
            return
        self._reported_leader = holder
        if holder and self.on_new_leader is not None:
            try:
                self.on_new_leader(holder)
            except Exception:
                log.exception('"on_new_leader failed" lease="%s"', self._lease)

    def _emit(self, what: str) -> None:
        if self._event_sink is None:
            return
        try:
            self._event_sink(EVENT_REASON, f"{self._identity} {what}")
        except Exception:
            log.exception('"could not record leader election event" lease="%s"', self._lease)
