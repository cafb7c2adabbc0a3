"""What the image builder tells its user: one error type whose message is one line saying the
fix, and progress lines on stderr."""

from __future__ import annotations

import sys
from collections.abc import Callable

Progress = Callable[[str], None]


def stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class ImageError(Exception):
    """Building the image failed.

    `str(error)` is one line naming what failed and what to do; `details` holds supporting
    text (the tail of a tool's output) to show below it, possibly empty.
    """

    def __init__(self, message: str, *, details: str = "") -> None:
        super().__init__(message)
        self.details = details


def tail(text: str, *, lines: int = 20) -> str:
    """The last `lines` lines of `text`."""
    return "\n".join(text.strip().splitlines()[-lines:])
