"""The one error type of configuration loading: every problem found, one line each."""

from __future__ import annotations

from collections.abc import Iterable

from kubesched.errors import FatalError

# Everything str.splitlines() breaks at: a message must stay on one line whatever it quotes.
_LINE_BREAKS = {
    ord(c): c.encode("unicode_escape").decode() for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
}


def one_line(text: str) -> str:
    """`text` with its line breaks escaped (`\\n`), so it prints as one line."""
    return text.translate(_LINE_BREAKS)


class ConfigError(FatalError):
    """The command line or the config file is invalid.

    `errors` holds every problem found (not just the first), each one line that names the
    flag or the field path and says how to fix it. `str()` joins them with newlines, so a
    command prints it as is and exits 1 without a traceback. `notices` are the notices
    gathered before the failure (aliases used, fields ignored), worth printing first.
    """

    def __init__(self, errors: Iterable[str], *, notices: Iterable[str] = ()) -> None:
        self.errors: tuple[str, ...] = tuple(one_line(error) for error in errors)
        self.notices: tuple[str, ...] = tuple(one_line(notice) for notice in notices)
        super().__init__("\n".join(self.errors))
