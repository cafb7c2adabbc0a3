"""What a standby replica says while it waits: who holds the Lease, when it was renewed,
when *we* will consider it expired and which schedulers the holder serves.

Logged when the holder changes and otherwise at most every 30 s, instead of client-go's
bare `attempting to acquire leader lease ns/name...`, which left the users of the guide on
leader-election conflicts between a custom scheduler and kube-scheduler staring at a line
that never changed.

The expiry is ours, not the holder's: like client-go, a standby counts leaseDuration from
the moment *it* last saw the Lease record change (renewTime is the holder's wall clock and
is never compared with ours), and the line says so.
"""

from __future__ import annotations

import logging

from kubesched.framework.logkv import kv
from kubesched.leaderelection.candidate import Candidate
from kubesched.leaderelection.clock import Clock
from kubesched.leaderelection.record import LeaseRecord

log = logging.getLogger(__name__)

STANDBY_LOG_INTERVAL = 30.0


def _age(seconds: float) -> str:
    return f"{seconds:.1f}s ago" if seconds >= 0 else f"in {-seconds:.1f}s (holder clock ahead)"


def describe_renewed(record: LeaseRecord, clock: Clock) -> str:
    """The holder's renewTime relative to our wall clock, for display only."""
    if record.renew_time is None:
        return "never"
    return _age((clock.now() - record.renew_time).total_seconds())


def describe_expiry(seconds_left: float, seen_ago: float) -> str:
    """When the Lease expires by our monotonic clock, and from when that counts."""
    when = f"in {seconds_left:.1f}s" if seconds_left > 0 else "now"
    return f"{when} (leaseDuration from when this replica last saw it change, {seen_ago:.1f}s ago)"


def describe_schedulers(record: LeaseRecord) -> str:
    """The holder's scheduler names, or a note that the holder is not kubesched."""
    if record.scheduler_names is None:
        return "unknown (not a kubesched holder)"
    return ",".join(record.scheduler_names)


class StandbyReporter:
    """Rate-limited "waiting for leader lease" lines."""

    def __init__(self, *, clock: Clock, interval: float = STANDBY_LOG_INTERVAL) -> None:
        self._clock = clock
        self._interval = interval
        self._last_holder: str | None = None
        self._last_logged: float | None = None

    def due(self, holder: str) -> bool:
        """Whether to log now: a new holder, or `interval` since the last line."""
        if holder != self._last_holder or self._last_logged is None:
            return True
        return self._clock.monotonic() - self._last_logged >= self._interval

    def report(self, candidate: Candidate) -> None:
        """Log the wait on `candidate`'s observed record if it is due."""
        record = candidate.observed
        if record is None or not self.due(record.holder_identity):
            return
        now = self._clock.monotonic()
        self._last_holder = record.holder_identity
        self._last_logged = now
        log.info(
            "waiting for leader lease",
            extra=kv(
                lease=candidate.lock.describe(),
                holder=record.holder_identity,
                renewed=describe_renewed(record, self._clock),
                expires=describe_expiry(candidate.expires_in(now), now - candidate.observed_time),
                schedulers=describe_schedulers(record),
                transitions=record.lease_transitions,
            ),
        )
