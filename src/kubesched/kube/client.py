"""KubeClient: raw JSON over one aiohttp session, with timeouts, a QPS/burst limiter and watches.

No generated model classes: bodies are decoded with orjson into dicts and turned into slim
objects by the caller. Every request has a total timeout; a watch has an inactivity timeout
(no event, not even a bookmark, for that long means the connection is dead).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Mapping
from typing import Any, Protocol
from urllib.parse import urlsplit

import aiohttp
import orjson
from aiohttp.http_exceptions import LineTooLong
from yarl import URL

from kubesched.kube.api import STRATEGIC_MERGE_PATCH
from kubesched.kube.connection import Connection
from kubesched.kube.errors import ApiError, ConnectionFailed
from kubesched.kube.ratelimit import TokenBucket

USER_AGENT = "kubesched/0.1"
# One watch event is one JSON line. etcd stores objects up to 1.5 MiB; as JSON (escaped
# strings, base64 data) such an object can be several times larger, and aiohttp's default
# line limit (2 x 64 KiB read buffer) would fail the watch on any object over 128 KiB.
MAX_WATCH_EVENT_BYTES = 16 * 1024 * 1024
# A path of only these characters needs no percent-encoding: object names and namespaces
# are DNS names, so every path kubesched builds is one. Others go through yarl's encoder.
_PLAIN_PATH = re.compile(r"/[A-Za-z0-9._~/-]*")


class RequestObserver(Protocol):
    """Told of every finished request (`rest_client_*` metrics): HTTP method, `host:port`,
    status code (`<error>` when no answer came), seconds."""

    def __call__(self, method: str, host: str, code: str, seconds: float) -> None: ...


def _ignore(method: str, host: str, code: str, seconds: float) -> None:
    """The default observer."""


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
        observe: RequestObserver = _ignore,
    ) -> None:
        self._connection = connection
        self._observe = observe
        self._host = urlsplit(connection.server).netloc
        base = URL(connection.server)
        # Joined without a re-parse of the whole URL per request (the binding POST, events,
        # status patches: one new path per pod); a server URL with a path prefix keeps the
        # plain concatenation.
        plain = base.absolute and base.raw_path in {"", "/"} and not base.query_string
        self._base_url = base if plain else None
        self._limiter = TokenBucket(qps=qps, burst=burst)
        self._timeout = timeout
        self._max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None
        self._closed = False

    @property
    def server(self) -> str:
        return self._connection.server

    def _url(self, path: str) -> URL | str:
        """The request URL of `path` (which starts with `/`)."""
        if self._base_url is not None and _PLAIN_PATH.fullmatch(path):
            return self._base_url.with_path(path, encoded=True)
        return self.server + path

    def _check_open(self) -> None:
        if self._closed:
            # Shutting down: a late request (a binding's error path, a status patch) gets an
            # ordinary API error, not aiohttp's "Session is closed" RuntimeError.
            raise ConnectionFailed("the API client is closed (kubesched is shutting down)")

    def _ensure_session(self) -> aiohttp.ClientSession:
        self._check_open()
        if self._session is None:
            connector = aiohttp.TCPConnector(
                ssl=self._connection.ssl_context, limit=self._max_connections
            )
            self._session = aiohttp.ClientSession(
                connector=connector, headers={"User-Agent": USER_AGENT}, json_serialize=_dumps
            )
        return self._session

    async def close(self) -> None:
        """Close the session; later requests raise ConnectionFailed."""
        self._closed = True
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _headers(self, content_type: str | None) -> dict[str, str]:
        headers = {"Accept": "application/json"}
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
        content_type: str = "application/json",
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """One rate-limited request; returns the decoded JSON body or raises ApiError.

        A 401 is retried once when the credential could be refreshed (an exec plugin)."""
        self._check_open()
        data = None if body is None else orjson.dumps(body)
        for attempt in (1, 2):
            await self._limiter.acquire()
            headers = await self._headers(content_type if data is not None else None)
            status, raw = await self._send(
                method, path, data=data, params=params, headers=headers, timeout=timeout
            )
            if status != 401 or attempt == 2:
                break
            if not await self._connection.unauthorized(headers.get("Authorization")):
                break
        decoded = _loads(raw)
        if status >= 300:
            raise ApiError.from_status(status, decoded if decoded is not None else raw, path=path)
        return decoded if isinstance(decoded, dict) else {}

    async def _send(
        self,
        method: str,
        path: str,
        *,
        data: bytes | None,
        params: Mapping[str, str] | None,
        headers: dict[str, str],
        timeout: float | None,
    ) -> tuple[int, bytes]:
        session = self._ensure_session()
        client_timeout = aiohttp.ClientTimeout(total=timeout or self._timeout)
        started, code = time.monotonic(), "<error>"
        try:
            async with session.request(
                method,
                self._url(path),
                data=data,
                params=params,
                headers=headers,
                timeout=client_timeout,
            ) as response:
                code = str(response.status)
                return response.status, await response.read()
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            raise ConnectionFailed(f"{method} {path}: {_describe(exc)}", path=path) from exc
        except RuntimeError as exc:  # the session was closed while the request waited
            raise ConnectionFailed(f"{method} {path}: {exc}", path=path) from exc
        finally:
            self._observe(method, self._host, code, time.monotonic() - started)

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

        Raises ConnectionFailed when nothing arrives for `inactivity_timeout` seconds or the
        connection breaks, and ApiError when the server refuses the watch.
        """
        await self._limiter.acquire()
        session = self._ensure_session()
        headers = await self._headers(None)
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=self._timeout)
        query = {**params, "watch": "true"}
        try:
            started = time.monotonic()
            async with session.get(
                self._url(path), params=query, headers=headers, timeout=timeout
            ) as response:
                self._observe("GET", self._host, str(response.status), time.monotonic() - started)
                if response.status >= 300:
                    raw = await response.read()
                    if response.status == 401:  # the reflector retries with a fresh token
                        await self._connection.unauthorized(headers.get("Authorization"))
                    raise ApiError.from_status(response.status, _loads(raw) or raw, path=path)
                async for line in _lines(response.content, inactivity_timeout):
                    event = _loads(line)
                    if isinstance(event, dict):
                        yield event
        except (aiohttp.ClientError, OSError) as exc:
            raise ConnectionFailed(f"watch {path}: {_describe(exc)}", path=path) from exc


async def _lines(content: aiohttp.StreamReader, inactivity_timeout: float) -> AsyncIterator[bytes]:
    while True:
        try:
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation.
            async with asyncio.timeout(inactivity_timeout):
                line = await content.readline(max_line_length=MAX_WATCH_EVENT_BYTES)
        except TimeoutError as exc:
            raise ConnectionFailed(f"watch idle for {inactivity_timeout:.0f}s") from exc
        except LineTooLong as exc:
            raise ConnectionFailed(
                f"watch event larger than {MAX_WATCH_EVENT_BYTES} bytes"
            ) from exc
        if not line:
            return
        if line.strip():
            yield line


def _describe(exc: BaseException) -> str:
    """`Type: message` for a log line (a repr of aiohttp's errors is a screenful)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _loads(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def _dumps(obj: Any) -> str:
    return orjson.dumps(obj).decode()
