"""klog-style logging to stderr (`I1129 15:04:05.123456  4242 app.py:80] "message" k="v"`),
or JSON lines with `--logging-format=json`; `-v N` raises verbosity (4+ shows debug)."""

from __future__ import annotations

import json
import logging
import os
import sys
import time

_LEVEL_LETTER = {"DEBUG": "I", "INFO": "I", "WARNING": "W", "ERROR": "E", "CRITICAL": "F"}


class KlogFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        moment = time.localtime(record.created)
        micros = int((record.created % 1) * 1_000_000)
        stamp = time.strftime("%m%d %H:%M:%S", moment)
        letter = _LEVEL_LETTER.get(record.levelname, "I")
        line = (
            f"{letter}{stamp}.{micros:06d} {os.getpid():>7} "
            f"{record.filename}:{record.lineno}] {record.getMessage()}"
        )
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


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
