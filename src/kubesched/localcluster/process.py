"""One child process of the local control plane, with its log file and a sure way to end it.

Each process starts in its own session (process group), so stopping it also ends any
children. Unless detached, every live process is ended at interpreter exit; when started
from the main thread also on SIGTERM (if no other handler is set) and by the kernel if
this Python process dies (PR_SET_PDEATHSIG), so interrupted test runs leak nothing.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import FrameType

from kubesched.localcluster.errors import LocalClusterError, tail_file

_LIVE: set[Process] = set()
_PR_SET_PDEATHSIG = 1


class Process:
    """A named child process whose stdout and stderr go to `log_path`."""

    def __init__(self, *, name: str, argv: Sequence[str], log_path: Path) -> None:
        self.name = name
        self.argv = list(argv)
        self.log_path = log_path
        self._popen: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        """The process id, once started."""
        return self._popen.pid if self._popen else None

    def start(self, *, env: Mapping[str, str] | None = None, detached: bool = False) -> None:
        """Start the process; a detached one outlives this Python process."""
        _install_cleanup()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        on_main = threading.current_thread() is threading.main_thread()
        preexec: Callable[[], None] | None = None if detached or not on_main else _die_with_parent
        with self.log_path.open("ab") as log:
            self._popen = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=dict(env) if env is not None else None,
                start_new_session=True,
                preexec_fn=preexec,  # noqa: PLW1509 - only calls prctl, safe before exec
            )
        if not detached:
            _LIVE.add(self)

    def running(self) -> bool:
        """True while the process has not exited."""
        return self._popen is not None and self._popen.poll() is None

    def returncode(self) -> int | None:
        """The exit code once it exited (negative: killed by that signal)."""
        return self._popen.poll() if self._popen else None

    def stop(self, *, grace: float = 5.0) -> None:
        """SIGTERM the process group, SIGKILL it after `grace` seconds; idempotent."""
        _LIVE.discard(self)
        if self._popen is None:
            return
        stop_group(self._popen.pid, grace=grace, reap=self._popen.wait)

    def log_tail(self, *, lines: int = 30) -> str:
        """The end of the process's log."""
        return tail_file(self.log_path, lines=lines)

    def exited_error(self) -> LocalClusterError:
        """The one-line error for a process that exited when it should be running."""
        hint = ""
        log = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        if "address already in use" in log:
            hint = " (port already in use)"
        message = f"{self.name} exited with code {self.returncode()}{hint}; log: {self.log_path}"
        return LocalClusterError(message, details=self.log_tail())


def stop_group(pid: int, *, grace: float, reap: Callable[..., object] | None = None) -> None:
    """End the process group led by `pid`: SIGTERM, then SIGKILL after `grace` seconds."""
    if not _signal_group(pid, signal.SIGTERM):
        return
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if reap is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                reap(timeout=0.1)
        else:
            time.sleep(0.1)
        if not _group_alive(pid):
            return
    _signal_group(pid, signal.SIGKILL)
    if reap is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            reap(timeout=grace)


def _signal_group(pid: int, signum: int) -> bool:
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        return False
    return True


def _group_alive(pid: int) -> bool:
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie leader (not yet reaped) still counts; it is gone from the table once reaped.
    return not _is_zombie(pid)


def _is_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]


# Resolved before any fork, so that the child only makes the call (Linux only).
_prctl = getattr(ctypes.CDLL(None, use_errno=True), "prctl", None)


def _die_with_parent() -> None:
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def stop_all() -> None:
    """End every live, non-detached process (at exit and on SIGTERM)."""
    for process in list(_LIVE):
        process.stop(grace=2.0)


_installed = False


def _install_cleanup() -> None:
    global _installed  # noqa: PLW0603 - installed once per interpreter
    if _installed:
        return
    _installed = True
    atexit.register(stop_all)
    if threading.current_thread() is threading.main_thread():
        previous = signal.getsignal(signal.SIGTERM)
        if previous in (signal.SIG_DFL, None):
            signal.signal(signal.SIGTERM, _on_sigterm)


def _on_sigterm(signum: int, _frame: FrameType | None) -> None:
    stop_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
