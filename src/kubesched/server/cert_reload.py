"""`--tls-cert-file`/`--tls-private-key-file` are reloaded when they change, as
kube-scheduler's DynamicServingCertificateController does: new connections get the new pair,
and a pair that does not load (half written, mismatched) is logged and the old one kept."""

from __future__ import annotations

import asyncio
import logging
import ssl
from pathlib import Path

from kubesched.framework.logkv import kv

log = logging.getLogger(__name__)

POLL_SECONDS = 2.0


def _stamp(paths: tuple[Path, Path]) -> tuple[float, ...]:
    try:
        return tuple(path.stat().st_mtime_ns for path in paths)
    except OSError:
        return ()


async def reload_forever(
    context: ssl.SSLContext, cert: Path, key: Path, *, poll: float = POLL_SECONDS
) -> None:
    """Load `cert` and `key` into `context` again each time either file changes."""
    seen = _stamp((cert, key))
    while True:
        await asyncio.sleep(poll)
        now = _stamp((cert, key))
        if not now or now == seen:
            continue
        try:
            context.load_cert_chain(str(cert), str(key))
        except (ssl.SSLError, OSError, ValueError) as exc:
            log.warning(
                "serving certificate not reloaded; keeping the previous one",
                extra=kv(cert=cert, err=exc),
            )
            continue
        seen = now
        log.info("serving certificate reloaded", extra=kv(cert=cert))
