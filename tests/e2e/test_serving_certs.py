"""Without --cert-dir and --tls-* flags, each kubesched start serves a fresh self-signed
certificate made in memory: two starts serve different certificates, and nothing is read
from or left in a shared directory (TMPDIR stays empty; no /tmp/kubesched-serving)."""

from __future__ import annotations

import os
import socket
import ssl
import sys
import time
from pathlib import Path

from harness.kubesched import KubeschedProcess, free_port

from kubesched.localcluster import LocalCluster
from kubesched.server.certs import self_signed_pem


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


def test_a_changed_tls_cert_file_is_served_without_a_restart(kubesched, tmp_path: Path) -> None:
    """As kube-scheduler's dynamic serving certificate: rewrite --tls-cert-file and its key,
    and new connections get the new pair; a half-written pair keeps the old one."""
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    first = self_signed_pem(host="first")
    cert.write_bytes(first[0])
    key.write_bytes(first[1])
    proc = kubesched(
        "--scheduler-name=reload-certs",
        "--leader-elect=false",
        f"--tls-cert-file={cert}",
        f"--tls-private-key-file={key}",
    )
    served = served_certificate(proc.port)
    assert served == ssl.PEM_cert_to_DER_cert(first[0].decode())
    cert.write_bytes(b"not a certificate")  # half written: the old pair stays
    time.sleep(3)
    assert served_certificate(proc.port) == served
    second = self_signed_pem(host="second")
    key.write_bytes(second[1])
    cert.write_bytes(second[0])
    wanted = ssl.PEM_cert_to_DER_cert(second[0].decode())
    deadline = time.monotonic() + 15
    while served_certificate(proc.port) != wanted:
        assert time.monotonic() < deadline, "the new certificate was never served"
        time.sleep(0.5)
    proc.wait_log('"serving certificate reloaded"')
