"""`LocalCluster`: a real etcd + kube-apiserver (+ kube-scheduler) on 127.0.0.1.

    with LocalCluster() as cluster:
        cluster.start_default_scheduler()
        cluster.kubectl("get", "nodes")

Everything lives in one workdir: `pki/`, `etcd-data/`, `logs/<component>.log`, the admin
`kubeconfig`. `stop()` deletes a temporary workdir unless `keep_logs` is set or something
failed; a workdir the caller passed in is never deleted.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from kubesched.localcluster import flags
from kubesched.localcluster.binaries import Binaries, ensure_binaries
from kubesched.localcluster.components import (
    Addresses,
    ApiserverFiles,
    SchedulerFiles,
    apiserver_launch,
    etcd_launch,
    scheduler_launch,
    write_apiserver_files,
)
from kubesched.localcluster.errors import LocalClusterError, tail_file
from kubesched.localcluster.gobuild import Progress, default_progress
from kubesched.localcluster.launch import Launch, start_until_ready
from kubesched.localcluster.probe import Endpoint, get, wait_until
from kubesched.localcluster.process import Process

SCHEDULER = "kube-scheduler"
APISERVER = "kube-apiserver"


class LocalCluster:
    """A local control plane; a context manager that starts it and always stops it."""

    def __init__(
        self,
        *,
        binaries: Binaries | None = None,
        workdir: Path | None = None,
        apiserver_args: Sequence[str] = (),
        keep_logs: bool = False,
        detached: bool = False,
        start_timeout: float = 90.0,
        progress: Progress = default_progress,
    ) -> None:
        """`apiserver_args` (`--name=value`) add to or override kube-apiserver's flags;
        `detached` processes outlive this Python process (for `dev-cluster up`)."""
        self.binaries = binaries
        self.keep_logs = keep_logs
        self.failed = False
        self.detached = detached
        self.start_timeout = start_timeout
        self.server = ""
        self.admin_token = secrets.token_urlsafe(32)
        self.scheduler_port: int | None = None
        self._scheduler_token = secrets.token_urlsafe(32)
        self._extra_apiserver_args = tuple(apiserver_args)
        self._given_workdir = workdir
        self._workdir: Path | None = None
        self._processes: dict[str, Process] = {}
        self._progress = progress
        self._addresses = Addresses()
        self._files: ApiserverFiles | None = None

    # -- where things are -------------------------------------------------------------
    @property
    def workdir(self) -> Path:
        """The folder holding pki, data, logs and kubeconfig (exists once started)."""
        if self._workdir is None:
            raise LocalClusterError("the local cluster is not started: call start() first")
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
            raise LocalClusterError("the local cluster is not started: call start() first")
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

    # -- lifecycle ----------------------------------------------------------------------
    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is not None:
            self.failed = True
        self.stop()

    def start(self) -> None:
        """Start etcd and kube-apiserver; return once the API is ready and the `default`
        and `kube-system` namespaces exist. On failure everything started is stopped, the
        logs are kept, and a `LocalClusterError` says which component failed."""
        if self._processes:
            raise LocalClusterError("the local cluster is already started")
        if self.binaries is None:
            self.binaries = ensure_binaries(progress=self._progress)
        try:
            self._start_control_plane(self.binaries)
        except BaseException:
            self.failed = True
            self.stop()
            raise

    def stop(self) -> None:
        """Stop every process (newest first); delete a temporary workdir unless kept."""
        for name in reversed(list(self._processes)):
            self._processes.pop(name).stop()
        keep = self.keep_logs or self.failed or self._given_workdir is not None
        if self._workdir is not None and not keep:
            shutil.rmtree(self._workdir, ignore_errors=True)

    def stop_apiserver(self, *, grace: float = 5.0) -> None:
        """Stop kube-apiserver only (SIGTERM, SIGKILL after `grace` s); etcd and every other
        process keep running."""
        if (process := self._processes.pop(APISERVER, None)) is not None:
            process.stop(grace=grace)

    def start_apiserver(self) -> None:
        """Start kube-apiserver again after `stop_apiserver()`, on the same port and etcd
        (so clients reconnect with the same kubeconfig); return once it is ready."""
        if APISERVER in self._processes:
            raise LocalClusterError("kube-apiserver is already running")
        self._launch(APISERVER, self._apiserver_launch(self._require_binaries(), restart=True))

    def start_default_scheduler(self, *, extra_args: Sequence[str] = ()) -> None:
        """Start the real kube-scheduler (leader election on, Lease kube-system/kube-scheduler,
        its own identity `system:kube-scheduler`); return once it holds the Lease."""
        if SCHEDULER in self._processes:
            raise LocalClusterError("kube-scheduler is already running")
        files = SchedulerFiles(
            config=self.workdir / "kube-scheduler.yaml",
            kubeconfig=self.workdir / "kube-scheduler.kubeconfig",
            cert_dir=self.workdir / "kube-scheduler-certs",
            log=self.logs_dir / f"{SCHEDULER}.log",
        )
        self._write_kubeconfig(
            files.kubeconfig, token=self._scheduler_token, user=flags.SCHEDULER_USER
        )
        files.config.write_text(flags.scheduler_config(kubeconfig_path=files.kubeconfig))
        launch = scheduler_launch(
            self._require_binaries(), files=files, addresses=self._addresses, extra=extra_args
        )
        self._launch(SCHEDULER, launch)
        self.scheduler_port = self._addresses.scheduler_port

    def stop_default_scheduler(self) -> None:
        """Stop kube-scheduler gracefully (it releases its Lease on the way out)."""
        process = self._processes.pop(SCHEDULER, None)
        if process is not None:
            process.stop(grace=10.0)

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

    # -- internals ------------------------------------------------------------------------
    def _require_binaries(self) -> Binaries:
        if self.binaries is None or self._workdir is None:
            raise LocalClusterError("the local cluster is not started: call start() first")
        return self.binaries

    def _start_control_plane(self, binaries: Binaries) -> None:
        if self._given_workdir is not None:
            self._given_workdir.mkdir(parents=True, exist_ok=True)
        self._workdir = self._given_workdir or Path(tempfile.mkdtemp(prefix="kubesched-cluster-"))
        tokens = {"admin_token": self.admin_token, "scheduler_token": self._scheduler_token}
        self._files = write_apiserver_files(self.workdir / "pki", **tokens)
        data_dir = self.workdir / "etcd-data"
        self._launch("etcd", etcd_launch(binaries, data_dir=data_dir, addresses=self._addresses))
        self._launch(APISERVER, self._apiserver_launch(binaries, restart=False))
        self.server = self._addresses.server
        self._write_kubeconfig(self.kubeconfig_path, token=self.admin_token, user=flags.ADMIN_USER)
        wait_until(
            lambda: all(
                self._api_status(f"/api/v1/namespaces/{ns}") == 200
                for ns in ("default", "kube-system")
            ),
            what="the default and kube-system namespaces",
            processes=list(self._processes.values()),
            timeout=self.start_timeout,
        )

    def _apiserver_launch(self, binaries: Binaries, *, restart: bool) -> Launch:
        if self._files is None:
            raise LocalClusterError("the local cluster is not started: call start() first")
        return apiserver_launch(
            binaries,
            files=self._files,
            addresses=self._addresses,
            extra=self._extra_apiserver_args,
            restart=restart,
        )

    def _launch(self, name: str, launch: Launch) -> Process:
        return start_until_ready(
            name=name,
            launch=launch,
            running=self._processes,
            log_path=self.logs_dir / f"{name}.log",
            detached=self.detached,
            timeout=self.start_timeout,
        )

    def _api_status(self, path: str) -> int:
        return get(Endpoint(self.server, ca_file=self.ca_file, token=self.admin_token), path)[0]

    def _write_kubeconfig(self, path: Path, *, token: str, user: str) -> None:
        spec = flags.KubeconfigSpec(
            server=self.server, ca_file=self.ca_file, token=token, user=user
        )
        path.write_text(flags.kubeconfig(spec))
        path.chmod(0o600)
