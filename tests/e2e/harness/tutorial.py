"""Running a docs page's commands: its background `kubesched ...&` line started as the
other e2e modules start kubesched, and the wait after each command with kubesched's log
tail on failure (docs/quotas.md, docs/topology.md)."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from tests.e2e.harness.kubesched import KubeschedProcess, free_port


def start_page_scheduler(
    command: str, env: dict[str, str], workdir: Path, token: str, *, name: str
) -> KubeschedProcess:
    """The page's background line with a free `--secure-port` and a `--cert-dir` added,
    and the page's KUBECONFIG: with `--config`, kubesched (as kube-scheduler) reads the
    connection from the file or from KUBECONFIG, never from `--kubeconfig`."""
    argv = shlex.split(command.removesuffix("&"))
    assert argv[0] == "kubesched", command
    port = free_port()
    proc = KubeschedProcess(
        argv=[
            sys.executable,
            "-m",
            "kubesched",
            *(_absolute(arg, workdir) for arg in argv[1:]),
            f"--secure-port={port}",
            "--bind-address=127.0.0.1",
            f"--cert-dir={workdir / f'{name}-certs'}",
        ],
        log_path=workdir / f"{name}.log",
        port=port,
        env={**env, "PYTHONUNBUFFERED": "1"},
        token=token,
    )
    proc.wait_ready()
    return proc


def _absolute(arg: str, workdir: Path) -> str:
    """`--config=FILE` relative to the page's folder (the process runs elsewhere)."""
    if not arg.startswith("--config="):
        return arg
    return f"--config={workdir / arg.removeprefix('--config=')}"


def wait_with_log_tail(wait: Callable[[], None], scheduler: KubeschedProcess | None) -> None:
    """`wait()`; on failure the assertion carries kubesched's log tail."""
    try:
        wait()
    except AssertionError as failed:
        tail = scheduler.tail(60) if scheduler is not None else "(kubesched not started)"
        raise AssertionError(f"{failed}\nkubesched's log:\n{tail}") from None
