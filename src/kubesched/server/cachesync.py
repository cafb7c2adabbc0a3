"""Waiting for the informer caches, and watching them afterwards.

The wait ends when every informer has listed, when `stop` is set (SIGTERM/SIGINT: no
reason to keep a shutting-down process waiting 120 s), or at the timeout; every
`PROGRESS_INTERVAL_SECONDS` and at the timeout it names the informers still missing and
why (their last list error, e.g. `403 Forbidden: pods is forbidden ...`).

Once synced, `watch_informers` logs an informer that stalls or stops, naming the fix;
/livez and /readyz turn red at the same time (see `Informers.alive` / `ready`).
"""

from __future__ import annotations

import asyncio
import logging

from kubesched.errors import FatalError
from kubesched.framework.logkv import kv
from kubesched.server.informers import Informers

log = logging.getLogger(__name__)

PROGRESS_INTERVAL_SECONDS = 15.0
WATCH_INTERVAL_SECONDS = 10.0
INFORMER_RBAC = "list/watch pods, nodes and namespaces, and poddisruptionbudgets when preempting"


class CacheSyncError(FatalError):
    """The caches did not sync in time; the message names the informers and the fix."""


async def wait_synced(informers: Informers, stop: asyncio.Event, *, timeout: float) -> bool:
    """True once every informer has synced; False when `stop` was set first."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    synced = asyncio.ensure_future(informers.wait_synced())
    stopped = asyncio.ensure_future(stop.wait())
    try:
        while not synced.done():
            if stopped.done():
                log.info("stopped while waiting for caches to sync", extra=kv())
                return False
            left = deadline - loop.time()
            if left <= 0:
                raise CacheSyncError(
                    "informer caches did not sync in "
                    f"{timeout:g}s: {'; '.join(informers.not_synced())}; check the API "
                    f"server's health and kubesched's RBAC ({INFORMER_RBAC}); "
                    "`kubesched doctor` checks both"
                )
            await asyncio.wait(
                {synced, stopped},
                timeout=min(PROGRESS_INTERVAL_SECONDS, left),
                return_when=asyncio.FIRST_COMPLETED,
            )
            if not synced.done() and not stopped.done():
                log.info(
                    "waiting for caches to sync",
                    extra=kv(informers="; ".join(informers.not_synced())),
                )
        return True
    finally:
        for future in (synced, stopped):
            future.cancel()


async def watch_informers(
    informers: Informers, *, interval: float = WATCH_INTERVAL_SECONDS
) -> None:
    """Log once when an informer stalls or stops (and when it recovers)."""
    reported: set[str] = set()
    while True:
        await asyncio.sleep(interval)
        for health in informers.health():
            if not health.alive and health.path not in reported:
                reported.add(health.path)
                log.error(
                    "informer is not running; /livez and /readyz fail",
                    extra=kv(
                        informer=health.describe(),
                        fix="kubesched schedules from a stale cache until restarted: let the "
                        "liveness probe restart it (or restart it by hand) and report this line "
                        "as a bug",
                    ),
                )
            elif health.alive and health.path in reported:
                reported.discard(health.path)
                log.info("informer is running again", extra=kv(informer=health.path))
