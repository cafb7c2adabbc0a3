"""Accounting for events that could not be written: every drop is counted (a metric, via
`on_drop`), summarised in the log at most once per interval, and a 403 (no RBAC to write
events) is explained once, naming the fix."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable

from kubesched.framework.logkv import kv

log = logging.getLogger(__name__)

DROP_LOG_INTERVAL_SECONDS = 60.0
QUEUE_FULL = "queue_full"
WRITE_FAILED = "write_failed"
FORBIDDEN = "forbidden"

EVENTS_RBAC_FIX = (
    "grant create and patch on events (apiGroup events.k8s.io) to kubesched's identity; "
    "`kubesched manifests` prints the RBAC and `kubesched doctor` checks it"
)


class DropReport:
    """Counts dropped events by reason and logs a summary at most every `interval` s."""

    def __init__(
        self,
        *,
        on_drop: Callable[[str], None] | None = None,
        interval: float = DROP_LOG_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._on_drop = on_drop
        self._interval = interval
        self._clock = clock
        self._pending: Counter[str] = Counter()
        self._last_logged = -interval
        self._forbidden_explained = False
        self.total = 0

    def dropped(self, reason: str, *, err: str = "") -> None:
        """One event was lost for `reason` (QUEUE_FULL, WRITE_FAILED or FORBIDDEN)."""
        self.total += 1
        self._pending[reason] += 1
        if self._on_drop is not None:
            self._on_drop(reason)
        if reason == FORBIDDEN and not self._forbidden_explained:
            self._forbidden_explained = True
            log.error(
                "kubesched may not write events; they are dropped",
                extra=kv(err=err, fix=EVENTS_RBAC_FIX),
            )
        self.flush()

    def flush(self) -> None:
        """Log the drops since the last summary, if the interval has passed."""
        now = self._clock()
        if not self._pending or now - self._last_logged < self._interval:
            return
        counts = ", ".join(f"{reason}={count}" for reason, count in sorted(self._pending.items()))
        log.warning(
            "events dropped",
            extra=kv(
                count=sum(self._pending.values()),
                reasons=counts,
                since="start" if self._last_logged < 0 else f"{now - self._last_logged:.0f}s ago",
                total=self.total,
            ),
        )
        self._pending.clear()
        self._last_logged = now
