"""The one error type of configuration loading: every problem found, one line each."""

from __future__ import annotations

from collections.abc import Iterable


class ConfigError(Exception):
    """The command line or the config file is invalid.

    `errors` holds every problem found (not just the first), each one line that names the
    flag or the field path and says how to fix it. `str()` joins them with newlines, so a
    command prints it as is and exits 1 without a traceback. `notices` are the notices
    gathered before the failure (aliases used, fields ignored), worth printing first.
    """

    def __init__(self, errors: Iterable[str], *, notices: Iterable[str] = ()) -> None:
        self.errors: tuple[str, ...] = tuple(errors)
        self.notices: tuple[str, ...] = tuple(notices)
        super().__init__("\n".join(self.errors))
