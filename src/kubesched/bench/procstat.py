"""CPU time and peak memory of a process, read from Linux's /proc."""

from __future__ import annotations

import os
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds the process has used so far (0.0 if it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    # Fields after the command name (which may hold spaces) start at field 3 (state).
    fields = stat.rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def peak_rss_bytes(pid: int) -> int:
    """The process's peak resident set size (VmHWM), 0 if it is gone."""
    return _status_bytes(pid, "VmHWM:")


def rss_bytes(pid: int) -> int:
    """The process's resident set size now (VmRSS), 0 if it is gone."""
    return _status_bytes(pid, "VmRSS:")


def _status_bytes(pid: int, field: str) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith(field):
            return int(line.split()[1]) * 1024
    return 0


def load_average() -> tuple[float, float, float]:
    """The 1, 5 and 15 minute load averages."""
    one, five, fifteen = os.getloadavg()
    return one, five, fifteen
