"""Values quoted as klog quotes them: every string value is escaped Go-style (`\\n`, `\\"`,
`\\\\`, `\\x1b`, ...) between its quotes, so a value holding a newline or an ESC (a Lease
holderIdentity, an error text) can neither forge a log line nor write terminal control
sequences. Numbers and booleans are written bare (`n=3`, `ok=true`), as klog writes them."""

from __future__ import annotations

import logging
import math
import numbers

from kubesched.framework.logkv import Bare, pairs_of

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_value(text: str) -> str:
    """`text` safe between double quotes on one line: quotes, backslashes and every control
    character escaped (as Go's strconv.Quote, without the surrounding quotes)."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return text
    return "".join(_escape_char(char) for char in text)


def _escape_char(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if char.isprintable():
        return char
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def plain_value(value: object) -> object:
    """A pair's value as JSON holds it: a bool, an int or a finite float (numpy's too) as
    such, None as None, anything else as its text."""
    if value is None:
        return None
    if isinstance(value, bool) or _is_numpy_bool(value):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        return number if math.isfinite(number) else str(number)
    return str(value)


def _is_numpy_bool(value: object) -> bool:
    """numpy's bool (not a `numbers` type), known by its type: numpy is not a dependency of
    the installed package, so it is never imported here."""
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ in ("bool_", "bool")


def render_pair(key: str, value: object) -> str:
    """`key="text"` for a string (escaped), `key=3` for a number, `key=true` for a bool."""
    plain = plain_value(value)
    if isinstance(plain, bool):
        return f"{key}={'true' if plain else 'false'}"
    if isinstance(plain, int | float):
        return f"{key}={plain!r}"
    if isinstance(value, Bare):
        return f"{key}={escape_value(value)}"
    return f'{key}="{escape_value(str(value))}"'


def _quoted_args(args: object) -> object:
    if not isinstance(args, tuple):
        return args
    return tuple(
        arg if isinstance(arg, int | float | bool) or arg is None else escape_value(str(arg))
        for arg in args
    )


def render_message(record: logging.LogRecord) -> str:
    """A structured call as `"message" key="value" n=3`. Any other record (a library's) is its
    message with its arguments escaped; a message without arguments is escaped as a whole if
    it spans lines."""
    pairs = pairs_of(record)
    if pairs is not None:
        rendered = (render_pair(key, value) for key, value in pairs.items())
        return " ".join((f'"{escape_value(record.getMessage())}"', *rendered))
    if not record.args:
        text = str(record.msg)
        return escape_value(text) if "\n" in text else text
    return str(record.msg) % _quoted_args(record.args)
