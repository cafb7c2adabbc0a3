"""klog's formats on stdlib logging, to stderr: text (`I1129 15:04:05.123456  4242 app.py:80]
"message" k="v"`) by default, JSON with `--logging-format=json` (`logs_json`).

Verbosity as klog: `-v N` shows V(N) and below (`kubesched.framework.verbosity.V`), and
`--vmodule=pattern=N,...` sets it per file (the pattern matches the file name without `.py`,
`*` and `?` as globs). A structured call (`extra=kv(...)`, `kubesched.framework.logkv`) is
written `"message" key="value" n=3`, its values quoted as klog quotes them (`logs_quote`); any
other record (a library's) is its message, its arguments escaped. The `extra=` attributes of
`EXTRA_KEYS` (`plugin`, `pod`, ...) that a caller sets one by one are written as key/value
pairs after it.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import sys
import time
from collections.abc import Iterable

from kubesched.config.vmodule import parse_vmodule
from kubesched.framework.verbosity import V, verbosity_of
from kubesched.server.logs_json import KlogJsonFormatter
from kubesched.server.logs_quote import escape_value, render_message, render_pair

_LEVEL_LETTER = {"DEBUG": "I", "INFO": "I", "WARNING": "W", "ERROR": "E", "CRITICAL": "F"}
EXTRA_KEYS = ("plugin", "point", "pod", "node", "profile")
"""`extra=` attributes written after the message."""

__all__ = ["KlogFormatter", "escape_value", "setup_logging"]


def _extras(record: logging.LogRecord) -> str:
    pairs = [render_pair(key, getattr(record, key)) for key in EXTRA_KEYS if hasattr(record, key)]
    return (" " + " ".join(pairs)) if pairs else ""


class KlogFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        moment = time.localtime(record.created)
        micros = int((record.created % 1) * 1_000_000)
        stamp = time.strftime("%m%d %H:%M:%S", moment)
        letter = _LEVEL_LETTER.get(record.levelname, "I")
        line = (
            f"{letter}{stamp}.{micros:06d} {os.getpid():>7} "
            f"{record.filename}:{record.lineno}] {render_message(record)}{_extras(record)}"
        )
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class _Verbosity(logging.Filter):
    """Lets a record through when its V level is within the file's verbosity."""

    def __init__(self, verbosity: int, vmodule: list[tuple[str, int]]) -> None:
        super().__init__()
        self._verbosity = verbosity
        self._vmodule = vmodule
        self._by_file: dict[str, int] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.INFO:
            return True
        limit = self._by_file.get(record.filename)
        if limit is None:
            stem = record.filename.removesuffix(".py")
            matches = [n for pattern, n in self._vmodule if fnmatch.fnmatchcase(stem, pattern)]
            limit = self._by_file[record.filename] = matches[0] if matches else self._verbosity
        return verbosity_of(record.levelno) <= limit


def setup_logging(
    *, verbosity: int = 0, logging_format: str = "text", vmodule: Iterable[str] = ()
) -> None:
    """Log to stderr in klog's `text` or `json` format at `-v verbosity` (and `--vmodule`)."""
    modules = parse_vmodule(vmodule)
    text = KlogFormatter()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(KlogJsonFormatter(EXTRA_KEYS) if logging_format == "json" else text)
    handler.addFilter(_Verbosity(verbosity, modules))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    most = max([verbosity, *(n for _, n in modules)])
    root.setLevel(V(most) if most < 4 else min(V(most), logging.DEBUG))
    logging.getLogger("aiohttp").setLevel(logging.WARNING)
