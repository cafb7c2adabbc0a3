"""Reflector: keep a local copy of one resource in sync with the API server.

    list (paged) --> diff against the store --> watch from the list's resourceVersion
       ^                                            |  ADDED / MODIFIED / DELETED -> handler
       |                                            |  BOOKMARK -> remember resourceVersion
       +---- 410 Gone (version compacted) ----------+  server timeout / idle -> re-watch from
                                                       the last resourceVersion at once;
                                                       broken -> the same, with backoff

A watch that brought nothing for `inactivity_timeout` is not an error: the API server sends
bookmarks only for resources that changed since it started, so a resource nobody changes
has a quiet watch. It is renewed silently (a dead connection then fails the new watch, and
that is logged).

Every error (API errors, broken connections, an oversized line, a handler that raised) is
retried with jittered exponential backoff, as client-go's reflector does: the loop ends only
when cancelled. `health()` says whether it has synced, is failing (and why), is stalled (no
progress for longer than its own timeouts allow) or has stopped.

The relist after 410 diffs the fresh list against the store, so objects deleted while the
watch was down are reported as deletes and the store ends equal to the API server's state.
Objects are decoded to slim structs at once; only the decoded form is kept.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from kubesched.framework.logkv import kv
from kubesched.framework.verbosity import V
from kubesched.informers.health import InformerHealth, failure_hint
from kubesched.kube.api import WatchApi
from kubesched.kube.errors import ApiError, Gone, WatchIdle

log = logging.getLogger(__name__)

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)


class EventHandler(Protocol[T_contra]):
    def on_add(self, obj: T_contra) -> None: ...
    def on_update(self, old: T_contra, new: T_contra) -> None: ...
    def on_delete(self, obj: T_contra) -> None: ...


class IgnoreEvents:
    """The handler of an informer that is only read from its store (or streams its changes
    elsewhere): its changes trigger nothing."""

    def on_add(self, obj: object) -> None:
        pass

    def on_update(self, old: object, new: object) -> None:
        pass

    def on_delete(self, obj: object) -> None:
        pass


@dataclass(frozen=True, slots=True)
class ReflectorSettings:
    """Timings of one reflector; defaults follow client-go's reflector."""

    page_size: int = 500
    # A watch that sends nothing (not even a bookmark) for this long is renewed: quiet
    # resources get no bookmarks; a dead connection then fails the new watch request.
    inactivity_timeout: float = 120.0
    # Server-side watch timeout is drawn in [min, 2*min) like client-go (5-10 minutes).
    min_watch_timeout: float = 300.0
    initial_backoff: float = 0.8
    max_backoff: float = 30.0
    request_timeout: float = 60.0

    @property
    def stall_after(self) -> float:
        """No progress for this long means stuck: longer than an idle watch, a list page
        and the longest backoff sleep together can take."""
        return self.inactivity_timeout + self.request_timeout + 2 * self.max_backoff + 30.0


class Reflector(Generic[T]):
    """Lists and watches `path` (e.g. `/api/v1/pods`), feeding decoded objects to `handler`."""

    def __init__(
        self,
        api: WatchApi,
        *,
        path: str,
        decode: Callable[[dict[str, Any]], T],
        key: Callable[[T], str],
        version: Callable[[T], str],
        handler: EventHandler[T],
        field_selector: str = "",
        settings: ReflectorSettings | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._api = api
        self._path = path
        self._decode = decode
        self._key = key
        self._version = version
        self._handler = handler
        self._field_selector = field_selector
        self._settings = settings or ReflectorSettings()
        self.store: dict[str, T] = {}
        self.resource_version = ""
        self.synced = asyncio.Event()
        self.relists = 0
        self._clock = clock
        self._progress = clock()
        self._running = False
        self._stopped = False
        self._error = ""
        self._failing_since = 0.0
        self._fresh: dict[str, T] = {}

    @property
    def path(self) -> str:
        return self._path

    def health(self) -> InformerHealth:
        """Synced, failing (with the last error), stalled or stopped: see `InformerHealth`."""
        now = self._clock()
        return InformerHealth(
            path=self._path,
            synced=self.synced.is_set(),
            dead=self._stopped,
            stalled=self._running and now - self._progress > self._settings.stall_after,
            error=self._error,
            failing_for=now - self._failing_since if self._error else 0.0,
        )

    async def run(self) -> None:
        """List and watch until cancelled; never returns on errors, it backs off and retries.

        A reflector that already has a `resource_version` (it ran before and was cancelled)
        resumes watching from it, keeping its store; if that version has been compacted
        away meanwhile, the 410 makes it relist and report what it missed as a diff."""
        self._running, self._stopped = True, False
        try:
            await self._loop()
        finally:
            self._running, self._stopped = False, True

    async def _loop(self) -> None:
        backoff = self._settings.initial_backoff
        need_list = not self.resource_version
        while True:
            self._progress = self._clock()
            try:
                if need_list:
                    await self._list()
                    need_list = False
                await self._watch()
                backoff = self._settings.initial_backoff
                self._recovered()
            except WatchIdle as exc:
                # Healthy but quiet (no bookmarks for a resource nobody changes): watch
                # again from where it was, as client-go renews a watch the server ended.
                log.log(V(4), "renewing an idle watch", extra=kv(path=self._path, err=exc))
            except Gone as exc:
                log.info("watch expired, relisting", extra=kv(path=self._path))
                if need_list:  # the list itself was refused: do not hammer the server
                    self._failed(exc)
                    await self._sleep(backoff)
                    backoff = min(backoff * 2, self._settings.max_backoff)
                need_list = True
            except Exception as exc:  # an informer must never die: retry everything
                self._failed(exc)
                await self._sleep(backoff)
                backoff = min(backoff * 2, self._settings.max_backoff)

    async def _sleep(self, backoff: float) -> None:
        await asyncio.sleep(backoff * (1 + random.random()))  # noqa: S311 - jitter

    def _failed(self, exc: Exception) -> None:
        if not self._error:
            self._failing_since = self._clock()
        self._error = _describe(exc)
        log.warning(
            "list/watch failed",
            extra=kv(path=self._path, err=self._error, fix=failure_hint(exc, self._path)),
        )

    def _recovered(self) -> None:
        if self._error:
            log.info("list/watch recovered", extra=kv(path=self._path))
        self._error = ""

    def _params(self) -> dict[str, str]:
        return {"fieldSelector": self._field_selector} if self._field_selector else {}

    async def _list(self) -> None:
        self._list_started()
        params = {**self._params(), "limit": str(self._settings.page_size)}
        while True:
            page = await self._api.get(
                self._path, params=params, timeout=self._settings.request_timeout
            )
            self._progress = self._clock()
            decoded = (self._safe_decode(raw) for raw in page.get("items") or ())
            self._listed([obj for obj in decoded if obj is not None])
            metadata = page.get("metadata") or {}
            if not metadata.get("continue"):
                break
            params["continue"] = metadata["continue"]
        self.resource_version = str(metadata.get("resourceVersion", ""))
        self._list_ended()
        self.relists += 1
        self.synced.set()
        self._recovered()

    def _safe_decode(self, raw: Any) -> T | None:
        """Decode one object; a malformed object is logged and skipped, never fatal."""
        try:
            return self._decode(_as_object(raw))
        except Exception as exc:
            meta = _metadata(raw)
            log.warning(
                "skipping malformed object",
                extra=kv(
                    path=self._path,
                    object=f"{meta.get('namespace', '')}/{meta.get('name', '')}",
                    err=exc,
                ),
            )
            return None

    # The three steps of a list and the one of a watch event, apart so that
    # `kubesched.informers.stream` can send them to another process instead.
    def _list_started(self) -> None:
        self._fresh = {}

    def _listed(self, objects: list[T]) -> None:
        """One page of a list, decoded (malformed objects already left out)."""
        for obj in objects:
            self._fresh[self._key(obj)] = obj

    def _list_ended(self) -> None:
        fresh, self._fresh = self._fresh, {}
        self._replace(fresh)

    def _replace(self, fresh: dict[str, T]) -> None:
        """Make the store equal to `fresh`, emitting the adds, updates and deletes between."""
        for key in [k for k in self.store if k not in fresh]:
            self._handler.on_delete(self.store.pop(key))
        for key, obj in fresh.items():
            old = self.store.get(key)
            self.store[key] = obj
            if old is None:
                self._handler.on_add(obj)
            elif self._version(old) != self._version(obj):
                self._handler.on_update(old, obj)

    async def _watch(self) -> None:
        timeout = self._settings.min_watch_timeout * (1 + random.random())  # noqa: S311
        params = {
            **self._params(),
            "resourceVersion": self.resource_version,
            "allowWatchBookmarks": "true",
            "timeoutSeconds": str(int(timeout)),
        }
        events = self._api.watch(
            self._path, params=params, inactivity_timeout=self._settings.inactivity_timeout
        )
        async for event in events:
            self._progress = self._clock()
            self._apply(event)

    def _apply(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        raw = event.get("object") or {}
        if kind == "ERROR":
            raise ApiError.from_status(_error_code(raw), raw, path=self._path)
        version = _metadata(raw).get("resourceVersion")
        if version:
            self.resource_version = str(version)
        if kind == "BOOKMARK":
            return
        obj = self._safe_decode(raw)
        if obj is not None:
            self._changed(str(kind), obj)

    def _changed(self, kind: str, obj: T) -> None:
        """A decoded ADDED, MODIFIED or DELETED object: into the store, then the handler."""
        key = self._key(obj)
        if kind == "DELETED":
            old = self.store.pop(key, None)
            self._handler.on_delete(old if old is not None else obj)
            return
        old = self.store.get(key)
        self.store[key] = obj
        if old is None:
            self._handler.on_add(obj)
        else:
            self._handler.on_update(old, obj)


def _describe(exc: BaseException) -> str:
    """The error for a log line: its message, or its type when it has none."""
    text = str(exc)
    return text if isinstance(exc, ApiError) and text else f"{type(exc).__name__}: {text}"


def _as_object(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise TypeError(f"expected a JSON object, got {type(raw).__name__}")
    return raw


def _metadata(raw: Any) -> dict[str, Any]:
    """`raw.metadata` if both are JSON objects, else {} (malformed input never raises)."""
    meta = raw.get("metadata") if isinstance(raw, dict) else None
    return meta if isinstance(meta, dict) else {}


def _error_code(raw: Any) -> int:
    """The HTTP code of a watch ERROR event's Status (500 when missing or malformed)."""
    try:
        return int(raw.get("code") or 500)
    except (AttributeError, TypeError, ValueError):
        return 500
