"""The one error type of the local control plane: a one-line message that says the fix."""

from __future__ import annotations

from pathlib import Path

from kubesched.errors import FatalError


class LocalClusterError(FatalError):
    """Building or running the local control plane failed.

    `str(error)` is one line naming what failed and what to do; `details` holds the
    supporting text (a build or component log tail) to show below it, possibly empty.
    """

    def __init__(self, message: str, *, details: str = "") -> None:
        super().__init__(message)
        self.details = details


def tail(text: str, *, lines: int = 30) -> str:
    """The last `lines` lines of `text`."""
    return "\n".join(text.splitlines()[-lines:])


def tail_file(path: Path, *, lines: int = 30) -> str:
    """The last `lines` lines of a text file, or a note when it cannot be read."""
    try:
        text = path.read_text(errors="replace")
    except OSError as error:
        return f"(cannot read {path}: {error.strerror})"
    return tail(text, lines=lines)
