"""How the runners turn plugin failures into statuses (and log them once)."""

from __future__ import annotations

import logging

from kubesched.framework.status import Code, Status

logger = logging.getLogger("kubesched.framework")


def raised(plugin: str, point: str, exc: BaseException) -> Status:
    """The ERROR status for a plugin that raised (logged once, with the traceback)."""
    logger.error(
        "Plugin raised an exception", extra={"plugin": plugin, "point": point}, exc_info=exc
    )
    return Status(
        Code.ERROR,
        f'plugin "{plugin}" raised {type(exc).__name__} at {point}: {exc}',
        plugin=plugin,
        error=exc,
    )


def as_error(point: str, plugin: str, status: Status) -> Status:
    """Wrap an unexpected status as upstream does: `running <Point> plugin "X": <message>`."""
    return Status(
        Code.ERROR,
        f'running {point} plugin "{plugin}": {status.message}',
        plugin=plugin,
        error=status.error,
    )
