"""KubeClient: raw JSON over keep-alive HTTP/1.1, with timeouts, a QPS/burst limiter and watches.

Ordinary requests go through `kubesched.kube.http11`'s lean pool; watches, which stream,
through one aiohttp session. Both open their connections the same way (`Connection.route`:
directly, or through the kubeconfig's or the environment's proxy).

Request bodies of the kinds `kubesched.kube.protobuf` knows (the Binding and the Event) are
sent as protobuf when `clientConnection.contentType` says so (its default, as kube-scheduler's).

No generated model classes: bodies are decoded with orjson into dicts and turned into slim
objects by the caller. Every request has a total timeout, its retries included; a watch has
an inactivity timeout (no event, not even a bookmark, for that long ends it with WatchIdle:
the reflector renews it). With a write fence, no write is sent while the fence is closed
(`kubesched.kube.fence`). A 429 or 5xx answer with `Retry-After` is waited out and sent
again, as client-go does (`kubesched.kube.retry`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any, NamedTuple

import aiohttp
import orjson

from kubesched.apis.config import JSON_CONTENT_TYPE as JSON
from kubesched.framework.logkv import kv
from kubesched.framework.verbosity import V
from kubesched.kube.api import STRATEGIC_MERGE_PATCH
from kubesched.kube.connection import Connection
from kubesched.kube.errors import ApiError, ConnectionFailed
from kubesched.kube.fence import WriteFence, write_guard
from kubesched.kube.http11 import HttpError, Pool
from kubesched.kube.observers import RequestObserver, RetryObserver, ignore_request, ignore_retry
from kubesched.kube.protobuf import PROTOBUF, encode_body
from kubesched.kube.ratelimit import TokenBucket
from kubesched.kube.request_head import RequestHead
from kubesched.kube.retry import RetryPolicy
from kubesched.kube.watch_connector import watch_session
from kubesched.kube.watchlines import watch_lines

log = logging.getLogger(__name__)

# An attempt started at the very end of its call's timeout still gets this long (aiohttp
# reads a total of 0 as "no timeout").
_MIN_ATTEMPT_SECONDS = 0.001


class _Answer(NamedTuple):
    status: int
    body: bytes
    retry_after: str | None


class KubeClient:
    """The one HTTP client of the process; implements `kubesched.kube.api.KubeApi`."""

    def __init__(
        self,
        connection: Connection,
        *,
        qps: float = 50.0,
        burst: int = 100,
        timeout: float = 30.0,
        max_connections: int = 64,
        observe: RequestObserver = ignore_request,
        observe_retry: RetryObserver = ignore_retry,
        retry: RetryPolicy = RetryPolicy(),  # noqa: B008 - frozen, shared safely
        content_type: str = JSON,
        write_fence: WriteFence | None = None,
    ) -> None:
        """`timeout`: seconds for a whole request, its retries and their waits included
        (a call's own `timeout` replaces it); `retry`: how Retry-After answers are retried;
        `content_type`: `clientConnection.contentType`: with protobuf, the bodies of the
        kinds `kubesched.kube.protobuf` knows (Binding, Event) are sent as protobuf, the
        rest as JSON; answers are always asked for as JSON. `write_fence` (the leader
        elector's `fenced`): every request but a GET asks it at the moment the request
        would be written to the socket, after the rate limiter and the wait for a
        connection, and is not sent (raises `Fenced`) while it says True."""
        self._write_fence = write_fence
        self._protobuf = content_type == PROTOBUF
        self._connection = connection
        self._observe = observe
        self._observe_retry = observe_retry
        self._retry = retry
        self._route = connection.route()
        forward_to = self._route.proxy if self._route.forwarded else None
        self._head = RequestHead(connection.server, forward_to=forward_to)
        self._host = self._head.host
        self._limiter = TokenBucket(qps=qps, burst=burst)
        self._timeout = timeout
        self._max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None
        self._pool: Pool | None = None
        self._closed = False
        self._closing: asyncio.Event | None = None  # wakes the retry waits on close()

    @property
    def server(self) -> str:
        return self._connection.server

    def _ensure_pool(self) -> Pool:
        self._check_open()
        if self._pool is None:
            self._pool = Pool(
                self._route, limit=self._max_connections, connect_timeout=self._timeout
            )
        return self._pool

    def _check_open(self) -> None:
        if self._closed:
            # Shutting down: a late request (a binding's error path, a status patch) gets an
            # ordinary API error, not aiohttp's "Session is closed" RuntimeError.
            raise ConnectionFailed("the API client is closed (kubesched is shutting down)")

    def _ensure_session(self) -> aiohttp.ClientSession:
        self._check_open()
        if self._session is None:
            self._session = watch_session(
                self._route, limit=self._max_connections, connect_timeout=self._timeout
            )
        return self._session

    async def close(self) -> None:
        """Close the session; later requests, and those waiting to retry, raise
        ConnectionFailed."""
        self._closed = True
        if self._closing is not None:
            self._closing.set()
        if self._session is not None:
            await self._session.close()
            self._session = None
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    async def _headers(self, content_type: str | None) -> dict[str, str]:
        headers = {"Accept": JSON}
        authorization = await self._connection.authorization()
        if authorization:
            headers["Authorization"] = authorization
        if content_type:
            headers["Content-Type"] = content_type
        return headers

    async def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, str] | None = None,
        content_type: str = JSON,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """One rate-limited request; returns the decoded JSON body or raises ApiError.

        A 401 is sent again once when the credential could be refreshed (an exec plugin); a
        Retry-After answer is retried as `kubesched.kube.retry` says. `timeout` bounds the
        whole call, retries included."""
        status, raw = await self.request_raw(
            method, path, body=body, params=params, content_type=content_type, timeout=timeout
        )
        return decode_answer(status, raw, path=path)

    async def request_raw(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, str] | None = None,
        content_type: str = JSON,
        timeout: float | None = None,
        fence: WriteFence | None = None,
    ) -> tuple[int, bytes]:
        """`request`'s final answer, undecoded: its HTTP status and body (any status);
        raises ApiError only when no answer came (ConnectionFailed, Fenced). `fence`: this
        call's write fence instead of the client's."""
        self._check_open()
        data, content_type = encode_body(body, content_type, protobuf=self._protobuf)
        answer = await self._exchange(
            method,
            path,
            data=data,
            params=params,
            content_type=content_type if data is not None else None,
            budget=timeout or self._timeout,
            fence=fence or self._write_fence,
        )
        return answer.status, answer.body

    async def _exchange(
        self,
        method: str,
        path: str,
        *,
        data: bytes | None,
        params: Mapping[str, str] | None,
        content_type: str | None,
        budget: float,
        fence: WriteFence | None,
    ) -> _Answer:
        """Send until the answer is final: the last answer, whatever its status."""
        deadline: float | None = None
        refreshed, retries = False, 0
        while True:
            await self._limiter.acquire()
            headers = await self._headers(content_type)
            if deadline is None:  # the first token's wait is not part of the timeout
                deadline = time.monotonic() + budget
            answer = await self._send(
                method,
                path,
                data=data,
                params=params,
                headers=headers,
                timeout=max(deadline - time.monotonic(), _MIN_ATTEMPT_SECONDS),
                retry=retries > 0,
                fence=fence,
            )
            if answer.status == 401 and not refreshed:
                refreshed = True
                if await self._connection.unauthorized(headers.get("Authorization")):
                    continue
            delay = self._retry_delay(answer, retries=retries, until=deadline)
            if delay is None:
                return answer
            retries += 1
            await self._wait_to_retry(method, path, answer, delay=delay, attempt=retries)

    def _retry_delay(self, answer: _Answer, *, retries: int, until: float | None) -> float | None:
        """The wait before sending again, or None: final (or the wait would end after `until`)."""
        delay = self._retry.delay(
            status=answer.status, retry_after=answer.retry_after, retries=retries
        )
        if delay is None or (until is not None and time.monotonic() + delay >= until):
            return None
        return delay

    async def _wait_to_retry(
        self, method: str, path: str, answer: _Answer, *, delay: float, attempt: int
    ) -> None:
        """Log the retry (client-go's V(4) line) and wait `delay` seconds; a task cancel ends
        the wait (CancelledError), so does close() (ConnectionFailed)."""
        log.log(
            V(4),
            "Got a Retry-After response",
            extra=kv(
                delay=f"{delay:g}s", attempt=attempt, code=answer.status, verb=method, path=path
            ),
        )
        if self._closing is None:
            self._closing = asyncio.Event()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(delay):
                await self._closing.wait()
        self._check_open()

    async def _send(
        self,
        method: str,
        path: str,
        *,
        data: bytes | None,
        params: Mapping[str, str] | None,
        headers: dict[str, str],
        timeout: float,
        retry: bool,
        fence: WriteFence | None,
    ) -> _Answer:
        """One attempt; `retry` when it is not the first (counted as a retry too)."""
        started, code = time.monotonic(), "<error>"
        try:
            pool = self._ensure_pool()
            payload = self._head.payload(method, self._head.target(path, params), headers, data)
            guard = write_guard(fence, method, path)
            answer = await pool.request(method, payload, timeout=timeout, guard=guard)
            code = str(answer.status)
            return _Answer(answer.status, answer.body, answer.headers.get("retry-after"))
        except (HttpError, TimeoutError, OSError) as exc:
            raise ConnectionFailed(f"{method} {path}: {_describe(exc)}", path=path) from exc
        finally:
            self._observe(method, self._host, code, time.monotonic() - started)
            if retry:
                self._observe_retry(method, self._host, code)

    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        return await self.request("GET", path, params=params, timeout=timeout)

    async def post(
        self, path: str, body: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]:
        return await self.request("POST", path, body=body, timeout=timeout)

    async def put(
        self, path: str, body: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]:
        return await self.request("PUT", path, body=body, timeout=timeout)

    async def patch(
        self,
        path: str,
        body: dict[str, Any] | list[Any],
        *,
        content_type: str = STRATEGIC_MERGE_PATCH,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        return await self.request(
            "PATCH", path, body=body, content_type=content_type, timeout=timeout
        )

    async def delete(
        self, path: str, *, body: dict[str, Any] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        return await self.request("DELETE", path, body=body, timeout=timeout)

    async def watch(
        self,
        path: str,
        *,
        params: dict[str, str],
        inactivity_timeout: float,
    ) -> AsyncIterator[dict[str, Any]]:
        """Stream watch events (`{"type": ..., "object": {...}}`) until the server ends it.

        A Retry-After answer to the watch request is retried as any request's. Raises
        WatchIdle when nothing arrives for `inactivity_timeout` seconds, ConnectionFailed
        when the answer's head does not come within the client's timeout or the
        connection breaks, and ApiError when the server refuses the watch.
        """
        query = {**params, "watch": "true"}
        try:
            response = await self._open_watch(path, query)
            async with response:
                async for line in watch_lines(response.content, inactivity_timeout):
                    event = _loads(line)
                    if isinstance(event, dict):
                        yield event
        except (aiohttp.ClientError, OSError) as exc:
            raise ConnectionFailed(f"watch {path}: {_describe(exc)}", path=path) from exc

    async def _open_watch(self, path: str, query: dict[str, str]) -> aiohttp.ClientResponse:
        """The watch's response once the server accepts it (status < 300)."""
        retries = 0
        while True:
            await self._limiter.acquire()
            headers = await self._headers(None)
            response, answer = await self._watch_attempt(path, query, headers, retry=retries > 0)
            if response is not None:
                return response
            if answer.status == 401:  # the reflector retries with a fresh token
                await self._connection.unauthorized(headers.get("Authorization"))
            delay = self._retry_delay(answer, retries=retries, until=None)
            if delay is None:
                raise ApiError.from_status(
                    answer.status, _loads(answer.body) or answer.body, path=path
                )
            retries += 1
            await self._wait_to_retry("GET", path, answer, delay=delay, attempt=retries)

    async def _watch_attempt(
        self, path: str, query: dict[str, str], headers: dict[str, str], *, retry: bool
    ) -> tuple[aiohttp.ClientResponse | None, _Answer]:
        """Send the watch request: the open response, or None and the refusal."""
        session = self._ensure_session()
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=self._timeout)
        started = time.monotonic()
        # The head of a watch's answer comes at once; a server that accepts the connection
        # and never answers is a failure, not a quiet watch.
        async with asyncio.timeout(self._timeout):
            response = await session.get(
                self._head.url(path), params=query, headers=headers, timeout=timeout
            )
        code = str(response.status)
        self._observe("GET", self._host, code, time.monotonic() - started)
        if retry:
            self._observe_retry("GET", self._host, code)
        if response.status < 300:
            return response, _Answer(response.status, b"", None)
        async with response:
            body = await response.read()
        return None, _Answer(response.status, body, response.headers.get("Retry-After"))


def _describe(exc: BaseException) -> str:
    """`Type: message` for a log line (a repr of aiohttp's errors is a screenful); our own
    HttpError's message alone (it names what failed: the connection, the proxy, TLS)."""
    text = str(exc)
    if isinstance(exc, HttpError) and text:
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def decode_answer(status: int, raw: bytes, *, path: str) -> dict[str, Any]:
    """An answer's JSON object; raises the ApiError its status and Status body say."""
    decoded = _loads(raw)
    if status >= 300:
        raise ApiError.from_status(status, decoded if decoded is not None else raw, path=path)
    return decoded if isinstance(decoded, dict) else {}


def _loads(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
