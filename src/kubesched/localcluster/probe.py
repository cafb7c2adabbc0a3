"""Readiness probes over loopback HTTP(S), with the standard library only.

This is not an API client (that lives in `kubesched.kube`): it only asks "are you up?" of
the components it started, so that `start()` returns a control plane that is ready.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kubesched.kube.connection import unverified_context
from kubesched.localcluster.errors import LocalClusterError
from kubesched.localcluster.process import Process


@dataclass(frozen=True)
class Endpoint:
    """How to reach one component: base URL, CA to trust (None: plain HTTP or unverified)."""

    url: str
    ca_file: Path | None = None
    token: str = ""
    verify: bool = True


def get(endpoint: Endpoint, path: str, *, timeout: float = 3.0) -> tuple[int, str]:
    """GET `path`; the HTTP status (0 when unreachable) and the body."""
    request = urllib.request.Request(endpoint.url + path)  # noqa: S310 - our own loopback URL
    if endpoint.token:
        request.add_header("Authorization", f"Bearer {endpoint.token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=_context(endpoint)) as reply:  # noqa: S310
            return reply.status, reply.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")
    except (urllib.error.URLError, OSError, http.client.HTTPException):
        return 0, ""


def _context(endpoint: Endpoint) -> ssl.SSLContext | None:
    if not endpoint.url.startswith("https:"):
        return None
    if not endpoint.verify:
        return unverified_context()
    return ssl.create_default_context(cafile=str(endpoint.ca_file) if endpoint.ca_file else None)


def wait_until(
    check: Callable[[], bool],
    *,
    what: str,
    processes: Sequence[Process],
    timeout: float,
    last_state: Callable[[], str] = lambda: "",
) -> None:
    """Poll `check` until true; fail fast if one of `processes` exits, or at `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        for process in processes:
            if not process.running():
                raise process.exited_error()
        if check():
            return
        if time.monotonic() > deadline:
            logs = ", ".join(str(p.log_path) for p in processes)
            state = last_state()
            details = "\n".join(p.log_tail(lines=15) for p in processes)
            suffix = f" (last: {state})" if state else ""
            raise LocalClusterError(
                f"timed out after {timeout:.0f} s waiting for {what}{suffix}; logs: {logs}",
                details=details,
            )
        time.sleep(0.2)


def free_ports(count: int) -> list[int]:
    """`count` distinct TCP ports free on 127.0.0.1 right now (callers retry on a clash)."""
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [int(sock.getsockname()[1]) for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()
