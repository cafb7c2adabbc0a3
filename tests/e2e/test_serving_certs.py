"""Without --cert-dir and --tls-* flags, each kubesched start serves a fresh self-signed
certificate made in memory: two starts serve different certificates, and nothing is read
from or left in a shared directory (TMPDIR stays empty; no /tmp/kubesched-serving)."""

from __future__ import annotations

import os
import socket
import ssl
import sys
from pathlib import Path

from harness.kubesched import KubeschedProcess, free_port

from kubesched.localcluster import LocalCluster


def served_certificate(port: int) -> bytes:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with (
        socket.create_connection(("127.0.0.1", port), timeout=5) as raw,
        context.wrap_socket(raw) as tls,
    ):
        return bytes(tls.getpeercert(binary_form=True) or b"")


def start(cluster: LocalCluster, workdir: Path, name: str) -> KubeschedProcess:
    port = free_port()
    tmpdir = workdir / f"{name}-tmp"
    tmpdir.mkdir()
    argv = [
        sys.executable,
        "-m",
        "kubesched",
        "--scheduler-name=serving-certs",
        "--leader-elect=false",
        f"--kubeconfig={cluster.kubeconfig_path}",
        f"--secure-port={port}",
        "--bind-address=127.0.0.1",
    ]
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"} | {"TMPDIR": str(tmpdir)}
    return KubeschedProcess(argv=argv, log_path=workdir / f"{name}.log", port=port, env=env)


def test_each_start_serves_a_fresh_in_memory_certificate(
    local_cluster: LocalCluster, tmp_path: Path
) -> None:
    certificates = []
    for name in ("first", "second"):
        proc = start(local_cluster, tmp_path, name)
        try:
            proc.wait_ready()
            certificates.append(served_certificate(proc.port))
        finally:
            assert proc.stop() == 0, proc.tail()
        assert list((tmp_path / f"{name}-tmp").iterdir()) == [], "left files behind"
        assert "Traceback" not in proc.log()
    assert certificates[0] != certificates[1]
