"""`Candidate`: one attempt to acquire or renew the Lease, and one release (client-go's
`tryAcquireOrRenew` and `release`), plus what the candidate has observed.

Expiry is judged only by our monotonic clock: a Lease is valid until leaseDurationSeconds
(the holder's, from the record) after the moment *we* last saw the record change. The
holder's renewTime may be hours off our wall clock; it is never compared with it.
"""

from __future__ import annotations

import enum
import logging
import random

from kubesched.framework.logkv import kv
from kubesched.kube.errors import ApiError, Conflict, Forbidden, NotFound
from kubesched.leaderelection.clock import Clock, jittered
from kubesched.leaderelection.lock import LeaseLock
from kubesched.leaderelection.outcome import ElectionMetrics
from kubesched.leaderelection.rbac_hint import LeaseCreateHint
from kubesched.leaderelection.record import LeaseRecord
from kubesched.leaderelection.settings import JITTER_FACTOR, ElectionConfig

log = logging.getLogger(__name__)

_EXPIRY_MARGIN = 0.001
"""Seconds past a Lease's expiry at which a standby tries again (beats float rounding)."""


class Attempt(enum.Enum):
    """The result of one `try_acquire_or_renew`."""

    SUCCEEDED = "succeeded"
    """We hold the Lease (created, taken over or renewed)."""
    HELD = "held"
    """Another holder has a Lease that has not expired by our clock."""
    FAILED = "failed"
    """A request failed (conflict, timeout, API error); try again later."""


class Candidate:
    """A participant in the election over one `LeaseLock`."""

    def __init__(
        self,
        lock: LeaseLock,
        *,
        config: ElectionConfig,
        clock: Clock,
        metrics: ElectionMetrics | None = None,
    ) -> None:
        self.lock = lock
        self._config = config
        self._clock = clock
        self._metrics = metrics
        self.observed: LeaseRecord | None = None
        """The last record read or written."""
        self.observed_time = 0.0
        """Monotonic time when `observed` last changed."""
        self.last_renew_start: float | None = None
        """Monotonic time when our last successful acquire/renew request was sent."""
        self._create_hint = LeaseCreateHint()

    def holds(self) -> bool:
        """Whether the last record seen names us as the holder (client-go's IsLeader)."""
        return self.observed is not None and self.observed.holder_identity == self.lock.identity

    def lease_valid(self, now: float) -> bool:
        """Whether the observed Lease has not expired at monotonic time `now`."""
        if self.observed is None:
            return False
        return self.observed_time + self.observed.lease_duration_seconds > now

    def expires_in(self, now: float) -> float:
        """Seconds until the observed Lease expires by our clock (negative when expired)."""
        if self.observed is None:
            return 0.0
        return self.observed_time + self.observed.lease_duration_seconds - now

    def retry_wait(self, attempt: Attempt, *, rng: random.Random | None = None) -> float:
        """How long to wait before the next acquire attempt: retryPeriod jittered by 1.2 as
        client-go, but no later than when a held Lease expires by our clock, so a failover
        takes at most leaseDuration plus one polling interval after the last change seen."""
        wait = jittered(self._config.retry_period, JITTER_FACTOR, rng=rng)
        if attempt is not Attempt.HELD:
            return wait
        expires_in = self.expires_in(self._clock.monotonic())
        return min(wait, max(expires_in, 0.0) + _EXPIRY_MARGIN)

    def observe(self, record: LeaseRecord) -> None:
        """Note `record`; its time counts from now only if it differs from the last one."""
        if record != self.observed:
            self.observed = record
            self.observed_time = self._clock.monotonic()

    async def try_acquire_or_renew(self) -> Attempt:
        """Renew by the fast path when we lead, else read, judge and take or renew."""
        start = self._clock.monotonic()
        if self.holds() and self.lease_valid(start) and await self._fast_renew(start):
            return Attempt.SUCCEEDED
        try:
            current = await self.lock.get()
        except NotFound:
            return await self._create(start)
        except ApiError as exc:
            log.warning("error retrieving lease", extra=kv(lease=self.lock.describe(), err=exc))
            return Attempt.FAILED
        self.observe(current)
        if current.held and self.lease_valid(start) and not self.holds():
            return Attempt.HELD
        return await self._write(self._successor_of(current), start)

    def _new_record(self, **fields: object) -> LeaseRecord:
        wall = self._clock.now()
        values: dict[str, object] = {
            "holder_identity": self.lock.identity,
            "lease_duration_seconds": self._config.lease_duration_seconds,
            "acquire_time": wall,
            "renew_time": wall,
        }
        return self.lock.our_record(**(values | fields))

    def _successor_of(self, current: LeaseRecord) -> LeaseRecord:
        """Our record to write over `current`: a renewal keeps acquireTime and transitions,
        a take-over counts one more transition."""
        if self.holds():
            if self._metrics is not None:
                self._metrics.slowpath_exercised()
            return self._new_record(
                acquire_time=current.acquire_time, lease_transitions=current.lease_transitions
            )
        return self._new_record(lease_transitions=current.lease_transitions + 1)

    async def _fast_renew(self, start: float) -> bool:
        """Update over our cached Lease without reading it first."""
        assert self.observed is not None
        record = self._new_record(
            acquire_time=self.observed.acquire_time,
            lease_transitions=self.observed.lease_transitions,
        )
        try:
            self._wrote(await self.lock.update(record), start)
        except ApiError as exc:
            log.info(
                "failed to update lease optimistically, falling back to slow path",
                extra=kv(lease=self.lock.describe(), err=exc),
            )
            return False
        return True

    async def _create(self, start: float) -> Attempt:
        try:
            self._wrote(await self.lock.create(self._new_record()), start)
        except Forbidden as exc:
            self._create_hint.forbidden(self.lock.describe(), exc, now=start)
            return Attempt.FAILED
        except ApiError as exc:
            log.warning("error creating lease", extra=kv(lease=self.lock.describe(), err=exc))
            return Attempt.FAILED
        return Attempt.SUCCEEDED

    async def _write(self, record: LeaseRecord, start: float) -> Attempt:
        try:
            self._wrote(await self.lock.update(record), start)
        except Conflict as exc:
            log.info("lease changed meanwhile", extra=kv(lease=self.lock.describe(), err=exc))
            return Attempt.FAILED
        except ApiError as exc:
            log.warning("failed to update lease", extra=kv(lease=self.lock.describe(), err=exc))
            return Attempt.FAILED
        return Attempt.SUCCEEDED

    def _wrote(self, record: LeaseRecord, start: float) -> None:
        self.observed = record
        self.observed_time = self._clock.monotonic()
        self.last_renew_start = start

    async def release(self) -> bool:
        """Give the Lease up (empty holder, leaseDurationSeconds 1, transitions kept) if the
        current record still names us; retried on conflict. True when nothing is left to do.
        """
        while True:
            try:
                current = await self.lock.get()
            except ApiError as exc:
                log.warning(
                    "could not read lease to release it",
                    extra=kv(lease=self.lock.describe(), err=exc),
                )
                return False
            self.observe(current)
            if current.holder_identity != self.lock.identity:
                return True
            record = self._new_record(
                holder_identity="",
                lease_duration_seconds=1,
                lease_transitions=current.lease_transitions,
            )
            try:
                self.observe(await self.lock.update(record))
            except Conflict:
                log.info("conflict releasing lease, retrying", extra=kv(lease=self.lock.describe()))
                continue
            except ApiError as exc:
                log.warning(
                    "failed to release lease", extra=kv(lease=self.lock.describe(), err=exc)
                )
                return False
            return True
