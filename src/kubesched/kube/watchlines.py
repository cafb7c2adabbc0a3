"""The lines of a watch's answer: one JSON event per line, with an inactivity limit."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import aiohttp
from aiohttp.http_exceptions import LineTooLong

from kubesched.kube.errors import ConnectionFailed, WatchIdle

# One watch event is one JSON line. etcd stores objects up to 1.5 MiB; as JSON (escaped
# strings, base64 data) such an object can be several times larger, and aiohttp's default
# line limit (2 x 64 KiB read buffer) would fail the watch on any object over 128 KiB.
MAX_WATCH_EVENT_BYTES = 16 * 1024 * 1024


async def watch_lines(
    content: aiohttp.StreamReader, inactivity_timeout: float
) -> AsyncIterator[bytes]:
    """The non-empty lines of `content` until it ends; WatchIdle when none comes for
    `inactivity_timeout` seconds, ConnectionFailed for a line over MAX_WATCH_EVENT_BYTES."""
    while True:
        try:
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation.
            async with asyncio.timeout(inactivity_timeout):
                line = await content.readline(max_line_length=MAX_WATCH_EVENT_BYTES)
        except TimeoutError as exc:
            raise WatchIdle(f"watch idle for {inactivity_timeout:.0f}s") from exc
        except LineTooLong as exc:
            raise ConnectionFailed(
                f"watch event larger than {MAX_WATCH_EVENT_BYTES} bytes"
            ) from exc
        if not line:
            return
        if line.strip():
            yield line
