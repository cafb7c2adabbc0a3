"""CPU time and peak memory of a process (with its child processes, and of its main
thread alone), read from Linux's /proc."""

from __future__ import annotations

import os
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")


def _stat_fields(path: str) -> list[str] | None:
    try:
        stat = Path(path).read_text()
    except OSError:
        return None
    # Fields after the command name (which may hold spaces) start at field 3 (state).
    return stat.rpartition(")")[2].split()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds the process has used so far (0.0 if it is gone)."""
    fields = _stat_fields(f"/proc/{pid}/stat")
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / _TICKS


def thread_cpu_seconds(pid: int, tid: int | None = None) -> float:
    """User + system CPU seconds of one thread (the main thread by default: the one that
    runs kubesched's scheduling loop), 0.0 if it is gone."""
    fields = _stat_fields(f"/proc/{pid}/task/{tid or pid}/stat")
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / _TICKS


def descendants(pid: int) -> list[int]:
    """The pids of the process's live children, their children, and so on."""
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in _tasks(parent):
            try:
                children = Path(f"/proc/{parent}/task/{task}/children").read_text().split()
            except OSError:
                continue
            kids = [int(child) for child in children]
            found += kids
            todo += kids
    return found


def _tasks(pid: int) -> list[str]:
    try:
        return [entry.name for entry in Path(f"/proc/{pid}/task").iterdir()]
    except OSError:
        return []


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of the process and every process it started: the live ones read one by
    one, the ended and reaped ones from the process's cutime/cstime."""
    fields = _stat_fields(f"/proc/{pid}/stat")
    if fields is None:
        return 0.0
    reaped = (int(fields[13]) + int(fields[14])) / _TICKS
    return cpu_seconds(pid) + reaped + sum(cpu_seconds(child) for child in descendants(pid))


def tree_peak_rss_bytes(pid: int) -> int:
    """The peak resident sets (VmHWM) of the process and its live descendants, added up
    (an upper bound of their peak together)."""
    return peak_rss_bytes(pid) + sum(peak_rss_bytes(child) for child in descendants(pid))


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
