"""State of the background dev cluster of `kubesched dev-cluster up|status|env|down`.

`up` starts a detached `LocalCluster` in `<cache>/dev-cluster/run/` and records its
processes in `<cache>/dev-cluster/state.json`; `down` ends them from that record (checking
that each pid still runs the same binary, so a reused pid is never signalled).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubesched.localcluster import gates
from kubesched.localcluster.cluster import LocalCluster
from kubesched.localcluster.errors import LocalClusterError
from kubesched.localcluster.paths import dev_cluster_dir
from kubesched.localcluster.process import stop_group


@dataclass(frozen=True)
class ProcessState:
    """One recorded process and whether it still runs."""

    name: str
    pid: int
    argv0: str
    log: str
    alive: bool


def state_file() -> Path:
    """`<cache>/dev-cluster/state.json`."""
    return dev_cluster_dir() / "state.json"


def run_dir() -> Path:
    """The workdir of the dev cluster (pki, data, logs, kubeconfig)."""
    return dev_cluster_dir() / "run"


def reset_run_dir() -> Path:
    """Empty the workdir (a failed `up` may have left data and logs there); return it."""
    shutil.rmtree(run_dir(), ignore_errors=True)
    return run_dir()


def save(cluster: LocalCluster) -> Path:
    """Record a started detached cluster; the file is private (it holds the admin token)."""
    state = {
        **cluster.describe(),
        "ca_file": str(cluster.ca_file),
        "token": cluster.admin_token,
        "feature_gates": gates.render(cluster.gates),
    }
    path = state_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state, indent=2) + "\n")
    path.chmod(0o600)
    return path


def load() -> dict[str, Any] | None:
    """The recorded state, or None when no dev cluster was started."""
    path = state_file()
    if not path.is_file():
        return None
    try:
        state: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise LocalClusterError(
            f"cannot read {path} ({error}): delete it and run `up` again"
        ) from None
    return state


def processes(state: dict[str, Any]) -> list[ProcessState]:
    """The recorded processes, each checked for being alive."""
    return [
        ProcessState(name, int(p["pid"]), p["argv0"], p["log"], runs(int(p["pid"]), p["argv0"]))
        for name, p in state.get("processes", {}).items()
    ]


def runs(pid: int, argv0: str) -> bool:
    """True when `pid` is alive and still runs the binary `argv0`."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    if stat.rpartition(")")[2].split()[:1] == ["Z"]:
        return False
    return cmdline.split(b"\0", 1)[0].decode(errors="replace") == argv0


def stop(state: dict[str, Any]) -> list[str]:
    """End the recorded processes (newest first), delete the workdir and the state file;
    return the names of the processes that were still running."""
    stopped = []
    for process in reversed(processes(state)):
        if process.alive:
            stop_group(process.pid, grace=10.0)
            stopped.append(process.name)
    shutil.rmtree(run_dir(), ignore_errors=True)
    state_file().unlink(missing_ok=True)
    return stopped
