"""Structured log calls: `log.info("connected", extra=kv(server=url, port=6443))`.

As klog's `InfoS("connected", "server", url, "port", 6443)`, a call passes its message and its
key/value pairs apart; kubesched's formatters (`kubesched.server.logs`) write them as klog
does: `"connected" server="https://..." port=6443` in text, `"msg":"connected",
"server":"https://...","port":6443` in JSON. The pairs ride on the record as one ordered
dict, `record.kv`, so that no key can collide with an attribute of `logging.LogRecord`
(`name`, `msg`, `args`, ...).
"""

from __future__ import annotations

import logging

PAIRS = "kv"
"""The record attribute holding a structured call's pairs."""


class Bare(str):
    """A value written without quotes in text (`leaseDuration=15s`); JSON holds it as a string.
    Only for text without spaces or quotes."""

    __slots__ = ()


def kv(**pairs: object) -> dict[str, object]:
    """The `extra=` of a structured log call: its key/value pairs, in this order."""
    return {PAIRS: pairs}


def pairs_of(record: logging.LogRecord) -> dict[str, object] | None:
    """The pairs of a structured call; None for a plain message (e.g. a library's)."""
    pairs = getattr(record, PAIRS, None)
    return pairs if isinstance(pairs, dict) else None
