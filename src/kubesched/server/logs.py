"""klog-style logging to stderr (`I1129 15:04:05.123456  4242 app.py:80] "message" k="v"`),
or JSON lines with `--logging-format=json`; `-v N` raises verbosity (4+ shows debug).

Values are quoted as klog quotes them: every string argument is escaped Go-style (`\n`,
`\"`, `\\`, `\x1b`, ...) before it lands between the template's quotes, so a value
holding a newline or an ESC (a Lease holderIdentity, an error text) can neither forge a
log line nor write terminal control sequences.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time

_LEVEL_LETTER = {"DEBUG": "I", "INFO": "I", "WARNING": "W", "ERROR": "E", "CRITICAL": "F"}


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


class KlogFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        moment = time.localtime(record.created)
        micros = int((record.created % 1) * 1_000_000)
        stamp = time.strftime("%m%d %H:%M:%S", moment)
        letter = _LEVEL_LETTER.get(record.levelname, "I")
        line = (
            f"{letter}{stamp}.{micros:06d} {os.getpid():>7} "
            f"{record.filename}:{record.lineno}] {self._message(record)}"
        )
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line

    @staticmethod
    def _message(record: logging.LogRecord) -> str:
        """The message with its arguments escaped; a message without arguments (a
        template or a caller's preformatted text) is escaped as a whole."""
        if not record.args:
            return escape_value(str(record.msg)) if "\n" in str(record.msg) else str(record.msg)
        return str(record.msg) % _quoted_args(record.args)


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": record.created,
            "caller": f"{record.filename}:{record.lineno}",
            "level": record.levelname.lower(),
            "msg": record.getMessage(),
        }
        if record.exc_info:
            entry["err"] = self.formatException(record.exc_info)
        return json.dumps(entry)


def setup_logging(*, verbosity: int = 0, logging_format: str = "text") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if logging_format == "json" else KlogFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if verbosity >= 4 else logging.INFO)
    logging.getLogger("aiohttp").setLevel(logging.WARNING)
