"""`ProcessWritingClient`: a KubeClient whose writes go out through the writer process.

Reads (GET) and watches stay in this process; every other request takes one token of this
client's QPS/burst budget here and is then sent by `kubesched.kube.writer_process`, whose
child encodes it (protobuf for the Binding, as `clientConnection.contentType` says),
sends it, retries Retry-After answers and returns the raw answer. The answer is
decoded and raised here exactly as `KubeClient.request` does, and the child's
`rest_client_*` samples go to this client's observers, so callers and metrics see no
difference. The write fence is the child's: each request carries `fence_deadline()`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubesched.apis.config import JSON_CONTENT_TYPE as JSON
from kubesched.kube.client import KubeClient, decode_answer
from kubesched.kube.connection import Connection
from kubesched.kube.writer_process import WriterProcess

FenceDeadline = Callable[[], float | None]
"""The monotonic time until which a write may be sent (0: fenced now; None: no fence)."""


class ProcessWritingClient(KubeClient):
    """A KubeClient that reads here and writes through `writer`."""

    def __init__(
        self,
        connection: Connection,
        *,
        writer: WriterProcess,
        fence_deadline: FenceDeadline | None = None,
        **options: Any,
    ) -> None:
        """`options` as KubeClient's (`write_fence` is not one: the child fences)."""
        super().__init__(connection, **options)
        self._writer = writer
        self._fence_deadline = fence_deadline

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
        if method == "GET":
            return await super().request(
                method, path, body=body, params=params, content_type=content_type, timeout=timeout
            )
        self._check_open()
        await self._limiter.acquire()
        fence = None if self._fence_deadline is None else self._fence_deadline()
        status, raw, observed = await self._writer.write(
            method,
            path,
            body=body,
            params=params,
            content_type=content_type,
            timeout=timeout or self._timeout,
            fence=fence,
        )
        for verb, host, code, seconds, retry in observed:
            self._observe(verb, host, code, seconds)
            if retry:
                self._observe_retry(verb, host, code)
        return decode_answer(status, raw, path=path)
