"""klog's JSON format (`--logging-format=json`): one object per line with `ts`, `caller`,
`msg`, `v` (or `err` for errors) and the structured keys of the message as JSON fields.

A structured call (`extra=kv(pod=..., node=...)`) gives its message and pairs directly; a
klog-style template (`'"Successfully bound pod to node" pod="%s"'`) is split back into the
message and its key/value pairs. Either way `"pod"`, `"node"`, `"err"` ... are real JSON keys
as kube-scheduler writes them.
"""

from __future__ import annotations

import json
import logging
import re

from kubesched.framework.logkv import pairs_of
from kubesched.framework.verbosity import verbosity_of
from kubesched.server.logs_quote import plain_value, render_message

_MESSAGE = re.compile(r'^"((?:[^"\\]|\\.)*)"\s*(.*)$', re.DOTALL)
_PAIR = re.compile(r'([A-Za-z_][\w.-]*)=("(?:[^"\\]|\\.)*"|\S+)')
_GO_HEX = re.compile(r"\\x([0-9a-fA-F]{2})")
_NUMBER = re.compile(r"-?\d+(\.\d+)?([eE][-+]?\d+)?")
_LITERALS = {"true": True, "false": False, "null": None, "<nil>": None}


def _unquote(text: str) -> str:
    """A Go-quoted value (as `escape_value` writes it) back to its text."""
    try:
        return str(json.loads(_GO_HEX.sub(r"\\u00\1", text)))
    except json.JSONDecodeError:
        return text[1:-1]


def _value(raw: str) -> object:
    if raw.startswith('"'):
        return _unquote(raw)
    if raw in _LITERALS:
        return _LITERALS[raw]
    if _NUMBER.fullmatch(raw):
        return float(raw) if any(c in raw for c in ".eE") else int(raw)
    return raw


def split_message(text: str) -> tuple[str, dict[str, object]]:
    """`"msg" k="v" n=3` -> ("msg", {"k": "v", "n": 3}); other text is the message whole."""
    match = _MESSAGE.match(text)
    if match is None:
        return text, {}
    pairs = {key: _value(raw) for key, raw in _PAIR.findall(match.group(2))}
    return _unquote(f'"{match.group(1)}"'), pairs


class KlogJsonFormatter(logging.Formatter):
    """`{"ts":..., "caller":"file.py:12", "msg":"...", "v":0, "pod":"ns/p", ...}`."""

    def __init__(self, extras: tuple[str, ...]) -> None:
        super().__init__()
        self._extras = extras

    def format(self, record: logging.LogRecord) -> str:
        structured = pairs_of(record)
        if structured is None:
            msg, pairs = split_message(render_message(record))
        else:
            msg = record.getMessage()
            pairs = {key: plain_value(value) for key, value in structured.items()}
        entry: dict[str, object] = {
            "ts": round(record.created, 6),
            "caller": f"{record.filename}:{record.lineno}",
            "msg": msg,
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
