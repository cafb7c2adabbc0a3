"""How the runners turn a plugin's failure into a Status: a raised exception (`raised`, logged
once) or an unexpected status (`as_error`). Both take the plugin's name first, then the
extension point."""

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


def as_error(plugin: str, point: str, status: Status) -> Status:
    """Wrap an unexpected status as upstream does: `running <Point> plugin "X": <message>`."""
    return Status(
        Code.ERROR,
        f'running {point} plugin "{plugin}": {status.message}',
        plugin=plugin,
        error=status.error,
    )
