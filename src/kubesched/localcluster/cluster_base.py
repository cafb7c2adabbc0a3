"""What every component of a `LocalCluster` shares: its folders, its processes, its client
identities, and helpers to launch a process, write a kubeconfig or run kubectl."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kubesched.localcluster import flags
from kubesched.localcluster.binaries import Binaries
from kubesched.localcluster.components import Addresses
from kubesched.localcluster.errors import LocalClusterError, tail_file
from kubesched.localcluster.gobuild import Progress
from kubesched.localcluster.launch import Launch, start_until_ready
from kubesched.localcluster.process import Process

NOT_STARTED = "the local cluster is not started: call start() first"


class ClusterBase:
    """Folders, processes and identities of a local control plane (see `LocalCluster`)."""

    def __init__(
        self,
        *,
        binaries: Binaries | None,
        workdir: Path | None,
        keep_logs: bool,
        detached: bool,
        start_timeout: float,
        progress: Progress,
    ) -> None:
        """See `LocalCluster`."""
        self.binaries = binaries
        self.keep_logs = keep_logs
        self.failed = False
        self.detached = detached
        self.start_timeout = start_timeout
        self.server = ""
        self.tokens = flags.Tokens.new()
        self.admin_token = self.tokens.admin
        self._given_workdir = workdir
        self._workdir: Path | None = None
        self._processes: dict[str, Process] = {}
        self._progress = progress
        self._addresses = Addresses()

    # -- where things are -------------------------------------------------------------
    @property
    def workdir(self) -> Path:
        """The folder holding pki, data, logs and kubeconfig (exists once started)."""
        if self._workdir is None:
            raise LocalClusterError(NOT_STARTED)
        return self._workdir

    @property
    def kubeconfig_path(self) -> Path:
        """Admin kubeconfig (token in group system:masters, CA embedded)."""
        return self.workdir / "kubeconfig"

    @property
    def ca_file(self) -> Path:
        """The CA that signed kube-apiserver's serving certificate."""
        return self.workdir / "pki" / "ca.crt"

    @property
    def logs_dir(self) -> Path:
        """One `<component>.log` per process."""
        return self.workdir / "logs"

    @property
    def etcd_url(self) -> str:
        """etcd's client URL (plain HTTP on loopback; also serves etcd's v3 JSON gateway)."""
        if not self._addresses.etcd_url:
            raise LocalClusterError(NOT_STARTED)
        return self._addresses.etcd_url

    @property
    def processes(self) -> Mapping[str, Process]:
        """The running processes by name (etcd, kube-apiserver, kube-scheduler, ...)."""
        return dict(self._processes)

    def log_tails(self, *, lines: int = 40) -> str:
        """The end of every component log, each under a header naming the file."""
        if self._workdir is None or not self.logs_dir.is_dir():
            return ""
        parts = [
            f"==> {log} <==\n{tail_file(log, lines=lines)}"
            for log in sorted(self.logs_dir.glob("*.log"))
        ]
        return "\n\n".join(parts)

    def describe(self) -> dict[str, Any]:
        """A JSON-able summary: server, kubeconfig, workdir and each process's pid and log."""
        processes = {
            name: {"pid": p.pid, "argv0": p.argv[0], "log": str(p.log_path)}
            for name, p in self._processes.items()
        }
        return {
            "server": self.server,
            "kubeconfig": str(self.kubeconfig_path),
            "workdir": str(self.workdir),
            "processes": processes,
        }

    # -- processes --------------------------------------------------------------------
    def spawn(
        self, name: str, argv: Sequence[str], *, env: Mapping[str, str] | None = None
    ) -> Process:
        """Start another process tied to this cluster: logged to `logs/<name>.log`, stopped
        by `stop()`. The caller waits for it to be ready."""
        if name in self._processes:
            raise LocalClusterError(f"a process named {name} is already running")
        process = Process(name=name, argv=argv, log_path=self.logs_dir / f"{name}.log")
        process.start(env=env, detached=self.detached)
        self._processes[name] = process
        return process

    def kubectl(
        self, *args: str, check: bool = True, stdin: str | None = None, timeout: float = 60.0
    ) -> subprocess.CompletedProcess[str]:
        """Run the built kubectl with the admin kubeconfig; raise on failure if `check`."""
        argv = [
            str(self._require_binaries().kubectl),
            f"--kubeconfig={self.kubeconfig_path}",
            *args,
        ]
        result = subprocess.run(
            argv, input=stdin, capture_output=True, text=True, timeout=timeout, check=False
        )
        if check and result.returncode != 0:
            first = (result.stderr.strip().splitlines() or ["no output"])[0]
            message = f"kubectl {' '.join(args)} failed (exit {result.returncode}): {first}"
            raise LocalClusterError(message, details=result.stderr)
        return result

    def _require_binaries(self) -> Binaries:
        if self.binaries is None or self._workdir is None:
            raise LocalClusterError(NOT_STARTED)
        return self.binaries

    def _require_stopped(self, name: str) -> None:
        if name in self._processes:
            raise LocalClusterError(f"{name} is already running")

    def _stop_process(self, name: str, *, grace: float) -> None:
        if (process := self._processes.pop(name, None)) is not None:
            process.stop(grace=grace)

    def _launch(
        self, name: str, launch: Launch, *, env: Mapping[str, str] | None = None
    ) -> Process:
        return start_until_ready(
            name=name,
            launch=launch,
            running=self._processes,
            log_path=self.logs_dir / f"{name}.log",
            detached=self.detached,
            timeout=self.start_timeout,
            env=env,
        )

    def _write_kubeconfig(self, path: Path, *, token: str, user: str) -> None:
        spec = flags.KubeconfigSpec(
            server=self.server, ca_file=self.ca_file, token=token, user=user
        )
        path.write_text(flags.kubeconfig(spec))
        path.chmod(0o600)
