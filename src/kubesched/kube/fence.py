"""The write fence: no write leaves the scheduling client while the leader elector says its
Lease may be someone else's (`LeaderElector.fenced`). `KubeClient` asks it at the moment a
request would be written to the socket (`kubesched.kube.http11.Pool.request`'s guard), after
the rate limiter and the wait for a connection, so a write queued before a pause of the
process is checked again when it would go out."""

from __future__ import annotations

from collections.abc import Callable

from kubesched.kube.errors import Fenced
from kubesched.kube.http11 import Guard

WriteFence = Callable[[], bool]
"""True while no write may be sent."""


def write_guard(fence: WriteFence | None, method: str, path: str) -> Guard | None:
    """The check made right before `method path` is sent: None for a read (GET) or without
    a fence; else a callable that raises Fenced while the fence says True."""
    if fence is None or method == "GET":
        return None

    def check() -> None:
        if fence():
            raise Fenced(
                f"{method} {path}: not sent: the leader lease was not renewed within "
                "its renew deadline (another replica may lead now)",
                path=path,
            )

    return check
