"""klog's JSON format (`--logging-format=json`): one object per line with `ts`, `caller`,
`msg`, `v` (or `err` for errors) and the key/value pairs of the call as JSON fields.

A structured call (`log.info("Successfully bound pod to node", extra=kv(pod=..., node=...))`)
gives its message and pairs directly, so that `"pod"`, `"node"`, `"err"` ... are real JSON
keys as kube-scheduler writes them, numbers JSON numbers; any other record's message (a
library's) is `msg` whole.
"""

from __future__ import annotations

import json
import logging

from kubesched.framework.logkv import pairs_of
from kubesched.framework.verbosity import verbosity_of
from kubesched.server.logs_quote import plain_value, render_message


class KlogJsonFormatter(logging.Formatter):
    """`{"ts":..., "caller":"file.py:12", "msg":"...", "v":0, "pod":"ns/p", ...}`."""

    def __init__(self, extras: tuple[str, ...]) -> None:
        super().__init__()
        self._extras = extras

    def format(self, record: logging.LogRecord) -> str:
        structured = pairs_of(record)
        pairs = {key: plain_value(value) for key, value in (structured or {}).items()}
        entry: dict[str, object] = {
            "ts": round(record.created, 6),
            "caller": f"{record.filename}:{record.lineno}",
            "msg": record.getMessage() if structured is not None else render_message(record),
        }
        if record.levelno >= logging.ERROR:
            entry["err"] = pairs.pop("err", None) or (
                self.formatException(record.exc_info) if record.exc_info else None
            )
        else:
            entry["v"] = verbosity_of(record.levelno)
        entry.update(pairs)
        entry.update({key: getattr(record, key) for key in self._extras if hasattr(record, key)})
        if record.exc_info and record.levelno < logging.ERROR:
            entry["err"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)
