"""Without --cert-dir and --tls-* flags, each kubesched start serves a fresh self-signed
certificate made in memory: two starts serve different certificates, and nothing is read
from or left in a shared directory (TMPDIR stays empty; no /tmp/kubesched-serving)."""

from __future__ import annotations

import datetime as dt
import os
import socket
import ssl
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from kubesched.localcluster import LocalCluster
from kubesched.server.certs import self_signed_pem
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.harness.kubesched import KubeschedProcess, free_port


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


def test_a_changed_tls_cert_file_is_served_without_a_restart(
    kubesched: StartKubesched, tmp_path: Path
) -> None:
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


def _ca_and_client(tmp_path: Path, *, user: str, group: str) -> tuple[Path, Path, Path]:
    """A CA (written to ca.crt) and a client certificate it signed for `user` in `group`."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test-client-ca")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, group),
            x509.NameAttribute(NameOID.COMMON_NAME, user),
        ]
    )
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    paths = tmp_path / f"{user}-ca.crt", tmp_path / f"{user}.crt", tmp_path / f"{user}.key"
    paths[0].write_bytes(ca.public_bytes(pem))
    paths[1].write_bytes(cert.public_bytes(pem))
    paths[2].write_bytes(
        key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return paths


def _get_with_certificate(port: int, path: str, cert: Path, key: Path) -> int:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.load_cert_chain(str(cert), str(key))
    try:
        with urllib.request.urlopen(
            f"https://127.0.0.1:{port}{path}", context=context, timeout=10
        ) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_client_certificates_of_client_ca_file_authenticate(
    kubesched: StartKubesched, tmp_path: Path
) -> None:
    """`--client-ca-file`: a certificate it signed is the caller (CN the user, O the groups),
    authorized by the API server; one from another CA fails the handshake (as Go's
    VerifyClientCertIfGiven); tokens still work."""
    ca, cert, key = _ca_and_client(tmp_path, user="metrics-admin", group="system:masters")
    _, stranger_cert, stranger_key = _ca_and_client(tmp_path, user="x", group="system:masters")
    proc = kubesched("--scheduler-name=client-ca", "--leader-elect=false", f"--client-ca-file={ca}")
    assert _get_with_certificate(proc.port, "/metrics", cert, key) == 200
    with pytest.raises((ssl.SSLError, ConnectionError, urllib.error.URLError)):
        _get_with_certificate(proc.port, "/metrics", stranger_cert, stranger_key)
    assert proc.get("/metrics")[0] == 200  # the admin's bearer token
