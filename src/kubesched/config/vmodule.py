"""`--vmodule=pattern=N,...`: klog's per-file verbosity."""

from __future__ import annotations

from collections.abc import Iterable


def parse_vmodule(items: Iterable[str]) -> list[tuple[str, int]]:
    """`--vmodule` values (`pattern=N`, comma lists) -> (pattern, verbosity); ValueError names
    the item that is not `pattern=N`."""
    parsed = []
    for item in items:
        for entry in item.split(","):
            pattern, sep, level = entry.strip().partition("=")
            if not entry.strip():
                continue
            if not sep or not pattern or not level.strip().isdigit():
                raise ValueError(f"--vmodule: {entry!r} is not pattern=N, e.g. schedule_one=4")
            parsed.append((pattern, int(level)))
    return parsed
