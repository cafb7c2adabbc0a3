"""Values quoted as klog quotes them: every string argument is escaped Go-style (`\\n`,
`\\"`, `\\\\`, `\\x1b`, ...) before it lands between the template's quotes, so a value holding a
newline or an ESC (a Lease holderIdentity, an error text) can neither forge a log line nor
write terminal control sequences."""

from __future__ import annotations

import logging

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


def _quoted_args(args: object) -> object:
    if not isinstance(args, tuple):
        return args
    return tuple(
        arg if isinstance(arg, int | float | bool) or arg is None else escape_value(str(arg))
        for arg in args
    )


def render_message(record: logging.LogRecord) -> str:
    """The record's message with its arguments escaped; a message without arguments (a
    template or a caller's preformatted text) is escaped as a whole if it spans lines."""
    if not record.args:
        text = str(record.msg)
        return escape_value(text) if "\n" in text else text
    return str(record.msg) % _quoted_args(record.args)
