"""Go duration strings (`15s`, `1m30s`, `500ms`), as `time.ParseDuration` and
`time.Duration.String` read and write them; kubesched keeps durations as float seconds.

A duration is a possibly signed sequence of decimal numbers, each with an optional fraction
and a unit (`ns`, `us`/`µs`, `ms`, `s`, `m`, `h`), such as `300ms`, `-1.5h` or `2h45m`.
`0` alone needs no unit. Values beyond Go's int64 nanoseconds (about 292 years) are invalid.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from kubesched.errors import KubeschedError

_UNITS_NS = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,  # micro sign, as Go accepts and prints
    "\u03bcs": 1_000,  # Greek small letter mu
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60 * 1_000_000_000,
    "h": 3600 * 1_000_000_000,
}
_PART = re.compile(r"(\d*(?:\.\d*)?)([^\d.]*)")
_MAX_NS = 2**63 - 1
_NS_PER_S = 1_000_000_000
EXAMPLES = "a Go duration such as 15s, 1m30s or 500ms"


class DurationError(KubeschedError, ValueError):
    """The text is not a Go duration; the message says why (without the fix)."""


def parse_duration(text: str) -> float:
    """Return the seconds that a Go duration string stands for, or raise DurationError."""
    return parse_duration_ns(text) / _NS_PER_S


def parse_duration_ns(text: str) -> int:
    """Return the nanoseconds of a Go duration string, or raise DurationError."""
    body, sign = text, 1
    if body and body[0] in "+-":
        sign, body = (-1 if body[0] == "-" else 1), body[1:]
    if body == "0":
        return 0
    if not body:
        raise DurationError(f"invalid duration {text!r}")
    total = sum(_part_ns(number, unit, text) for number, unit in _parts(body, text))
    if total > _MAX_NS:
        raise DurationError(f"invalid duration {text!r}: out of range")
    return sign * total


def _parts(body: str, text: str) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = []
    position = 0
    while position < len(body):
        match = _PART.match(body, position)
        if match is None or match.end() == position:  # pragma: no cover - the regex always moves
            raise DurationError(f"invalid duration {text!r}")
        parts.append((match.group(1), match.group(2)))
        position = match.end()
    return parts


def _part_ns(number: str, unit: str, text: str) -> int:
    if number in ("", "."):
        raise DurationError(f"invalid duration {text!r}")
    if not unit:
        raise DurationError(f"missing unit in duration {text!r}")
    if unit not in _UNITS_NS:
        raise DurationError(f"unknown unit {unit!r} in duration {text!r}")
    try:
        value = Decimal(number) * _UNITS_NS[unit]
    except InvalidOperation as error:  # pragma: no cover - the regex admits only decimals
        raise DurationError(f"invalid duration {text!r}") from error
    return int(value)


def format_duration(seconds: float) -> str:
    """Write seconds the way Go's `time.Duration.String` does: `15s`, `1m30s`, `500ms`, `1h0m0s`."""
    nanoseconds = round(seconds * _NS_PER_S)
    sign = "-" if nanoseconds < 0 else ""
    nanoseconds = abs(nanoseconds)
    if nanoseconds == 0:
        return "0s"
    if nanoseconds < _NS_PER_S:
        return sign + _format_small(nanoseconds)
    hours, rest = divmod(nanoseconds, 3600 * _NS_PER_S)
    minutes, rest = divmod(rest, 60 * _NS_PER_S)
    text = _decimal(rest, _NS_PER_S) + "s"
    if hours or minutes:
        text = f"{minutes}m{text}"
    if hours:
        text = f"{hours}h{text}"
    return sign + text


def _format_small(nanoseconds: int) -> str:
    if nanoseconds < 1_000:
        return f"{nanoseconds}ns"
    if nanoseconds < 1_000_000:
        return _decimal(nanoseconds, 1_000) + "\u00b5s"
    return _decimal(nanoseconds, 1_000_000) + "ms"


def _decimal(value: int, scale: int) -> str:
    whole, fraction = divmod(value, scale)
    if not fraction:
        return str(whole)
    digits = str(fraction).rjust(len(str(scale)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}"
