"""klog's verbosity on stdlib logging: `log.log(V(2), ...)` is klog's `V(2).Info(...)`.

V(0) is INFO; V(n) is the level `INFO - n`, shown with `-v n` or more (or a `--vmodule`
entry for the file). A plain `log.debug` counts as V(4).
"""

from __future__ import annotations

import logging

DEBUG_VERBOSITY = 4
"""The verbosity a plain `logging.DEBUG` record has."""


def V(level: int) -> int:  # noqa: N802 - klog's name
    """The stdlib log level of klog verbosity `level` (0-9)."""
    return logging.INFO - max(0, min(level, 9))


def verbosity_of(levelno: int) -> int:
    """The klog verbosity of a record at stdlib level `levelno` (0 for INFO and above)."""
    if levelno >= logging.INFO:
        return 0
    if levelno <= logging.DEBUG:
        return DEBUG_VERBOSITY
    return logging.INFO - levelno
