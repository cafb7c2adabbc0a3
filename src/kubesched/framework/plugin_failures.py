"""How the runners turn a plugin's failure into a Status: a raised exception (`raised`, logged
once) or an unexpected status (`as_error`). Both take the plugin's name first, then the
extension point."""

from __future__ import annotations

import asyncio
import logging

from kubesched.framework.logkv import kv
from kubesched.framework.status import Code, Status

logger = logging.getLogger(__name__)


PLUGIN_ERRORS: tuple[type[BaseException], ...] = (Exception, asyncio.CancelledError, SystemExit)
"""What a plugin may raise from a synchronous call and cost only its pod a retry: any error,
and also CancelledError and SystemExit, which no synchronous call can receive from us (a
plugin that raises them must not end the scheduling loop, or the process, silently)."""


def cancelled_by_plugin() -> bool:
    """Inside `except CancelledError` around an awaited plugin call: True when the plugin
    raised it, False when our own task is being cancelled (then it must propagate)."""
    task = asyncio.current_task()
    return task is None or task.cancelling() == 0


def raised(plugin: str, point: str, exc: BaseException) -> Status:
    """The ERROR status for a plugin that raised (logged once, with the traceback)."""
    logger.error("Plugin raised an exception", extra=kv(plugin=plugin, point=point), exc_info=exc)
    return Status(
        Code.ERROR,
        f'plugin "{plugin}" raised {type(exc).__name__} at {point}: {exc}',
        plugin=plugin,
        error=exc,
    )


def as_error(plugin: str, point: str, status: Status) -> Status:
    """Wrap an unexpected status as upstream does: `running <Point> plugin "X": <message>`
    (`running "X" filter plugin: <message>` for Filter)."""
    prefix = (
        f'running "{plugin}" filter plugin'
        if point == "Filter"
        else (f'running {point} plugin "{plugin}"')
    )
    return Status(
        Code.ERROR,
        f"{prefix}: {status.message}",
        plugin=plugin,
        error=status.error,
    )
