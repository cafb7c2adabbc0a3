"""Exec credential plugins, re-run as client-go re-runs them: when the token they gave has
expired (`status.expirationTimestamp`), and when the API server answers 401 to it.

kubernetes_asyncio runs the plugin once while loading the kubeconfig; this class keeps the
token it gave, and asks the loader again when needed. Concurrent callers share one run;
a 401 for a token that has already been replaced does not run the plugin again.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
from collections.abc import Callable
from typing import Any

from kubesched.framework.logkv import kv

log = logging.getLogger(__name__)


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class ExecCredentials:
    """The current `Authorization` value from an exec plugin (via kubernetes_asyncio's loader)."""

    def __init__(self, loader: Any, *, now: Callable[[], dt.datetime] = _utcnow) -> None:
        self._loader = loader
        self._now = now
        self._lock = asyncio.Lock()
        self._header: str | None = getattr(loader, "token", None) or None
        self._expiry: dt.datetime | None = getattr(loader, "exec_plugin_expiry", None)

    @staticmethod
    def applies_to(loader: Any) -> bool:
        """True when the kubeconfig's user authenticates with an exec plugin."""
        user = getattr(loader, "_user", None)
        return user is not None and "exec" in user

    def _expired(self) -> bool:
        return self._expiry is not None and self._expiry <= self._now()

    async def header(self) -> str | None:
        """The `Authorization` header value, re-running the plugin when it has expired."""
        if self._header is None or self._expired():
            await self._rerun(stale=self._header)
        return self._header

    async def unauthorized(self, sent: str | None) -> bool:
        """The API server refused `sent` (401): re-run the plugin unless another caller
        already did. True when there is a different token to retry with."""
        await self._rerun(stale=sent)
        return self._header is not None and self._header != sent

    async def _rerun(self, *, stale: str | None) -> None:
        async with self._lock:
            if self._header != stale and not self._expired():
                return  # someone else refreshed meanwhile
            # The loader skips the plugin while its own expiry (if any) lies ahead.
            with contextlib.suppress(AttributeError):
                del self._loader.exec_plugin_expiry
            ok = await self._loader.load_from_exec_plugin()
            token = getattr(self._loader, "token", None)
            if not ok or not token:
                log.warning("exec credential plugin failed; keeping the previous token", extra=kv())
                return
            self._header = str(token)
            self._expiry = getattr(self._loader, "exec_plugin_expiry", None)
            log.info("exec credential refreshed", extra=kv(expires=self._expiry or "never"))
