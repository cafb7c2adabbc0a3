"""The one error type of configuration loading: every problem found, one line each.

A problem kube-scheduler also reports is a `Problem`: its exact text (kube-scheduler's
`field.Error` or error string) and kubesched's hint apart, so that the command line prints
every problem in one line as kube-scheduler aggregates them (`[a, b]`, `utilerrors.
NewAggregate`), with kubesched's hints after it: `ConfigError.line`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Self

from kubesched.errors import FatalError

# Everything str.splitlines() breaks at: a message must stay on one line whatever it quotes.
_LINE_BREAKS = {
    ord(c): c.encode("unicode_escape").decode() for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
}


def one_line(text: str) -> str:
    """`text` with its line breaks escaped (`\\n`), so it prints as one line."""
    return text.translate(_LINE_BREAKS)


class Problem(str):  # noqa: SLOT000 - a str subtype cannot have non-empty __slots__
    """One problem: `exact` is kube-scheduler's text, `hint` kubesched's fix (may be empty).
    As a string it reads `exact (hint)`."""

    exact: str
    hint: str
    subject: str
    """What the hint is about when several problems are printed together (default: the
    field path that starts the exact text)."""

    def __new__(cls, exact: str, hint: str = "", *, subject: str = "") -> Self:
        problem = super().__new__(cls, f"{exact} ({hint})" if hint else exact)
        problem.exact, problem.hint = exact, hint
        problem.subject = subject or exact.split(": ", 1)[0]
        return problem


def aggregate(texts: Iterable[str]) -> str:
    """utilerrors' aggregate text: one error alone, several as `[a, b]` (repeats dropped)."""
    unique = list(dict.fromkeys(texts))
    if len(unique) == 1:
        return unique[0]
    return f"[{', '.join(unique)}]"


class ConfigError(FatalError):
    """The command line or the config file is invalid.

    `errors` holds every problem found (not just the first), each one line that names the
    flag or the field path and says how to fix it. `str()` joins them with newlines; `line`
    is what a command prints (then it exits 1, without a traceback): kube-scheduler's
    aggregate of their exact texts, then the hints. `notices` are the notices gathered
    before the failure (aliases used, fields ignored), worth printing first.
    """

    def __init__(self, errors: Iterable[str], *, notices: Iterable[str] = ()) -> None:
        problems = [e if isinstance(e, Problem) else Problem(e) for e in errors]
        self._problems = problems
        self.errors: tuple[str, ...] = tuple(one_line(problem) for problem in problems)
        self.exact: tuple[str, ...] = tuple(one_line(problem.exact) for problem in problems)
        several = len(set(self.exact)) > 1  # then each hint names its field
        self.hints: tuple[str, ...] = tuple(
            dict.fromkeys(
                one_line(f"{p.subject}: {p.hint}" if several else p.hint)
                for p in problems
                if p.hint
            )
        )
        self.notices: tuple[str, ...] = tuple(one_line(notice) for notice in notices)
        super().__init__("\n".join(self.errors))

    def problems(self) -> list[Problem]:
        """The problems again, exact texts and hints apart (to raise them anew)."""
        return list(self._problems)

    @property
    def line(self) -> str:
        """Every problem in one line: `[a, b] (hint of a; hint of b)`."""
        text = aggregate(self.exact)
        return f"{text} ({'; '.join(self.hints)})" if self.hints else text
