"""Running a docs page's commands: its background `kubesched ...&` line started as the
other e2e modules start kubesched, and the wait after each command with kubesched's log
tail on failure (docs/quotas.md, docs/topology.md), and the page's blocks read."""

from __future__ import annotations

import re
import shlex
import subprocess
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


def page_blocks(page: Path) -> tuple[list[str], dict[str, str], list[str]]:
    """A page's commands (its `sh` blocks, in order), its files (`yaml` blocks naming a
    file) and the lines of its `text` blocks."""
    blocks = re.findall(r"```(\w+)\n(.*?)```", page.read_text(), flags=re.DOTALL)
    commands = [line for lang, body in blocks if lang == "sh" for line in body.splitlines()]
    files = {}
    for language, body in blocks:
        first = body.splitlines()[0]
        if language == "yaml" and first.startswith("# ") and first.endswith(".yaml"):
            files[first[2:]] = body
    shown = [line for lang, body in blocks if lang == "text" for line in body.splitlines()]
    return [line for line in commands if line.strip()], files, shown


def run_page_command(command: str, cwd: Path, env: dict[str, str], *, timeout: float) -> str:
    """One of the page's commands through /bin/sh; its stdout (it must exit 0)."""
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{command}: exit {done.returncode}\n{done.stdout}{done.stderr}"
    return done.stdout
