"""Child processes of the local control plane: started in their own group, always ended."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from kubesched.localcluster import LocalClusterError, Process
from kubesched.localcluster.probe import free_ports, wait_until


def test_stop_ends_the_whole_process_group(tmp_path: Path) -> None:
    # The shell starts a grandchild; stopping the process must end it too.
    pid_file = tmp_path / "child.pid"
    script = f"sleep 60 & echo $! > {pid_file}; wait"
    process = Process(name="sh", argv=["sh", "-c", script], log_path=tmp_path / "sh.log")
    process.start()
    wait_until(
        lambda: pid_file.exists() and pid_file.read_text().strip() != "",
        what="child",
        processes=[process],
        timeout=10,
    )
    child = int(pid_file.read_text())
    assert process.running()
    assert process.pid is not None
    assert os.getpgid(process.pid) == process.pid

    process.stop(grace=2.0)

    assert not process.running()
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)
    assert (
        not Path(f"/proc/{child}").exists()
        or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]
    )


def test_early_exit_names_the_component_its_log_and_a_port_clash(tmp_path: Path) -> None:
    argv = [
        sys.executable,
        "-c",
        "print('listen tcp 127.0.0.1:1: bind: address already in use'); raise SystemExit(1)",
    ]
    process = Process(
        name="kube-apiserver", argv=argv, log_path=tmp_path / "logs" / "kube-apiserver.log"
    )
    process.start()

    with pytest.raises(LocalClusterError) as caught:
        wait_until(
            lambda: False, what="kube-apiserver to become ready", processes=[process], timeout=10
        )

    message = str(caught.value)
    assert message.startswith("kube-apiserver exited with code 1 (port already in use); log: ")
    assert message.endswith("kube-apiserver.log")
    assert "address already in use" in caught.value.details


def test_timeout_shows_the_last_state_and_logs(tmp_path: Path) -> None:
    process = Process(name="etcd", argv=["sleep", "30"], log_path=tmp_path / "etcd.log")
    process.start()
    try:
        with pytest.raises(
            LocalClusterError, match=r"timed out after 0 s waiting for etcd \(last: 503\); logs: "
        ):
            wait_until(
                lambda: False,
                what="etcd",
                processes=[process],
                timeout=0.3,
                last_state=lambda: "503",
            )
    finally:
        process.stop()


def test_free_ports_are_distinct() -> None:
    ports = free_ports(3)

    assert len(set(ports)) == 3
