"""Run kubesched as a real process against the test control plane.

proc = start_kubesched(kubeconfig, "--scheduler-name=my-scheduler", workdir=tmp_path)
proc.wait_ready()            # /readyz on its secure port answers 200
...
proc.stop()                  # SIGTERM, like a Deployment rollout; returns the exit code
"""

from __future__ import annotations

import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

STOP_TIMEOUT_SECONDS = 20.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class KubeschedProcess:
    """One kubesched process; its stderr goes to `log_path`."""

    def __init__(
        self,
        *,
        argv: Sequence[str],
        log_path: Path,
        port: int,
        env: dict[str, str],
        token: str = "",
    ) -> None:
        self.argv = list(argv)
        self.token = token  # sent as a bearer token by `get` (/metrics needs an authorized one)
        self.log_path = log_path
        self.port = port
        self._log = log_path.open("wb")
        self.process = subprocess.Popen(
            self.argv, stdout=self._log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )

    @property
    def pid(self) -> int:
        return self.process.pid

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.log().splitlines()[-lines:])

    def running(self) -> bool:
        return self.process.poll() is None

    def get(self, path: str, *, timeout: float = 2.0, token: str | None = None) -> tuple[int, str]:
        """GET `path` on the secure port (self-signed certificate: not verified), with
        `token` as bearer token (default: `self.token`; "" for an anonymous request)."""
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        request = urllib.request.Request(f"https://127.0.0.1:{self.port}{path}")
        bearer = self.token if token is None else token
        if bearer:
            request.add_header("Authorization", f"Bearer {bearer}")
        try:
            with urllib.request.urlopen(request, timeout=timeout, context=context) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Wait until /readyz is 200 (informers synced); fail with the log tail if it exits."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.running():
                raise AssertionError(
                    f"kubesched exited with {self.process.returncode} before it was ready:\n"
                    f"{self.tail()}"
                )
            try:
                if self.get("/readyz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"kubesched not ready after {timeout:g} s:\n{self.tail()}")

    def wait_log(self, text: str, timeout: float = 30.0) -> str:
        """Wait until `text` appears in the log; return the log."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            log = self.log()
            if text in log:
                return log
            time.sleep(0.2)
        raise AssertionError(f"{text!r} not in kubesched's log after {timeout:g} s:\n{self.tail()}")

    def signal(self, sig: signal.Signals) -> None:
        if self.running():
            os.killpg(self.process.pid, sig)

    def wait(self, timeout: float = STOP_TIMEOUT_SECONDS) -> int:
        return self.process.wait(timeout=timeout)

    def stop(self, timeout: float = STOP_TIMEOUT_SECONDS) -> int:
        """SIGTERM and wait (SIGKILL after `timeout`); returns the exit code."""
        self.signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            code = self.process.wait(timeout=timeout)
        self._log.close()
        return code

    def kill(self) -> int:
        """SIGKILL: a crash, no lease release."""
        self.signal(signal.SIGKILL)
        code = self.process.wait(timeout=STOP_TIMEOUT_SECONDS)
        self._log.close()
        return code


def start_kubesched(
    kubeconfig: Path,
    *args: str,
    workdir: Path,
    name: str = "kubesched",
    extra_env: dict[str, str] | None = None,
    token: str = "",
) -> KubeschedProcess:
    """Start `python -m kubesched ARGS --kubeconfig=... --secure-port=<free>` in `workdir`."""
    port = free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    argv = [
        sys.executable,
        "-m",
        "kubesched",
        *args,
        f"--kubeconfig={kubeconfig}",
        f"--secure-port={port}",
        "--bind-address=127.0.0.1",
        f"--cert-dir={workdir / (name + '-certs')}",
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **(extra_env or {})}
    env.pop("KUBECONFIG", None)
    return KubeschedProcess(
        argv=argv, log_path=workdir / f"{name}.log", port=port, env=env, token=token
    )
