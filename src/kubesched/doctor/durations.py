"""Short human durations for the tables (`1.2s`, `42s`, `3m10s`, `5h2m`, `3d`) and counts."""

from __future__ import annotations


def short(seconds: float) -> str:
    """A compact duration; sub-10s values keep one decimal."""
    value = abs(seconds)
    if value < 10:
        return f"{value:.1f}s"
    whole = int(value)
    if whole < 120:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60}s"
    if whole < 48 * 3600:
        return f"{whole // 3600}h{whole % 3600 // 60}m"
    return f"{whole // 86400}d"


# A renewTime up to this far ahead of our clock is a renewal that happened while we read
# (or ordinary clock drift): shown as "just now", never as a renewal "in" the future.
SKEW_TOLERANCE_SECONDS = 2.0


def ago(seconds: float | None) -> str:
    """`3.2s ago`, `just now`, or `never` when unknown; a renewTime clearly ahead of this
    machine's clock is named as clock skew between the two machines."""
    if seconds is None:
        return "never"
    if seconds < -SKEW_TOLERANCE_SECONDS:
        return f"{short(seconds)} ahead of this machine's clock (clock skew)"
    if seconds < 0.05:
        return "just now"
    return f"{short(seconds)} ago"


def expires(seconds: float | None) -> str:
    """`in 12s`, `expired 5m0s ago`, or `-` when unknown."""
    if seconds is None:
        return "-"
    return f"in {short(seconds)}" if seconds > 0 else f"expired {short(seconds)} ago"


def plural(count: int, noun: str) -> str:
    """`1 pod`, `3 pods`."""
    return f"{count} {noun}" + ("" if count == 1 else "s")
