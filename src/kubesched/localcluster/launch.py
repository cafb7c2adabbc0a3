"""Start one component and wait until it is ready, retrying with new ports on a clash.

Free ports are chosen just before a component starts; another process (a parallel test
worker) may take one in between, so a start that fails with "address already in use" is
retried with freshly chosen ports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from kubesched.localcluster.errors import LocalClusterError
from kubesched.localcluster.probe import wait_until
from kubesched.localcluster.process import Process

ATTEMPTS = 3
Launch = Callable[[], tuple[list[str], Callable[[], bool]]]
"""Chooses ports and returns (argv, readiness check)."""


def start_until_ready(
    *,
    name: str,
    launch: Launch,
    running: dict[str, Process],
    log_path: Path,
    detached: bool,
    timeout: float,
    env: Mapping[str, str] | None = None,
) -> Process:
    """Start `name` (with `env`, default: ours) and add it to `running` once ready; fail if
    any of `running` exits."""
    for attempt in range(1, ATTEMPTS + 1):
        argv, ready = launch()
        process = Process(name=name, argv=argv, log_path=log_path)
        running[name] = process
        process.start(env=env, detached=detached)
        try:
            wait_until(
                ready,
                what=f"{name} to become ready",
                processes=list(running.values()),
                timeout=timeout,
            )
        except LocalClusterError as error:
            running.pop(name).stop()
            if attempt < ATTEMPTS and "port already in use" in str(error):
                continue
            raise
        return process
    raise AssertionError("unreachable")  # pragma: no cover


def log_has(log: Path, offset: int, needle: str = "successfully acquired lease") -> bool:
    """True when `needle` (lower case) appears in `log` after byte `offset`."""
    try:
        with log.open("rb") as handle:
            handle.seek(offset)
            return needle in handle.read().decode(errors="replace").lower()
    except OSError:
        return False
