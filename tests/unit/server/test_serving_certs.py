"""The serving certificate: a fresh in-memory pair by default, a --cert-dir pair written
safely and renewed when expired, --tls-* files loaded or refused with one line; and bind
failures (port in use, an address of another host) reported as one line naming the flag."""

from __future__ import annotations

import asyncio
import datetime as dt
import socket
import ssl
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from cryptography import x509

from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.server import certs
from kubesched.server.auth import DelegatedAuth
from kubesched.server.certs import CertError, ensure_self_signed, serving_context
from kubesched.server.serving import HealthServer, ServingError, ServingOptions
from tests.unit.server.serving_fakes import FakeReviewer


def make_server(**options: object) -> HealthServer:
    return HealthServer(
        options=ServingOptions(bind_address="127.0.0.1", **options),  # type: ignore[arg-type]
        metrics=SchedulerMetrics(),
        ready=lambda: True,
        live=lambda: True,
        configz=lambda: "",
        auth=DelegatedAuth(FakeReviewer()),
    )


async def served_cert(port: int) -> bytes:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    _, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
    der = writer.get_extra_info("ssl_object").getpeercert(binary_form=True)
    writer.close()
    return bytes(der)


@pytest.fixture
async def started() -> AsyncIterator[Callable[..., HealthServer]]:
    servers: list[HealthServer] = []

    def start(**options: object) -> HealthServer:
        server = make_server(secure_port=0, **options)
        servers.append(server)
        return server

    yield start
    for server in servers:
        await server.stop()


async def test_default_is_a_fresh_pair_in_memory_at_every_start(
    started: Callable[..., HealthServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    first, second = started(), started()
    await first.start()
    await second.start()
    assert await served_cert(first.port) != await served_cert(second.port)
    assert list(tmp_path.iterdir()) == []  # nothing left behind, nothing shared


def test_cert_dir_pair_is_written_0600_and_reused(tmp_path: Path) -> None:
    cert, key = ensure_self_signed(tmp_path / "certs")
    assert (key.stat().st_mode & 0o777) == 0o600
    assert (cert.stat().st_mode & 0o777) == 0o600
    assert (tmp_path / "certs").stat().st_mode & 0o777 == 0o700
    before = cert.read_bytes()
    assert ensure_self_signed(tmp_path / "certs") == (cert, key)
    assert cert.read_bytes() == before


def test_expired_cert_in_cert_dir_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(certs, "VALIDITY", dt.timedelta(hours=-1) + dt.timedelta(minutes=30))
    cert, _ = ensure_self_signed(tmp_path)
    monkeypatch.setattr(certs, "VALIDITY", dt.timedelta(days=365))
    ensure_self_signed(tmp_path)
    fresh = x509.load_pem_x509_certificate(cert.read_bytes())
    assert fresh.not_valid_after_utc > dt.datetime.now(dt.UTC) + dt.timedelta(days=300)


@pytest.mark.parametrize("name", ["kubesched.key", "kubesched.crt"])
def test_planted_symlink_is_refused_not_followed(tmp_path: Path, name: str) -> None:
    target = tmp_path / "elsewhere"
    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / name).symlink_to(target)  # dangling
    with pytest.raises(CertError, match="is a symbolic link; remove it"):
        ensure_self_signed(tmp_path / "certs")
    assert not target.exists()


def test_cert_dir_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(CertError, match=r"--cert-dir=.*file is not a directory"):
        serving_context(cert_dir=tmp_path / "file")


def test_tls_files_missing_garbage_or_half_given(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.crt"
    garbage.write_text("not a certificate")
    with pytest.raises(CertError, match=r"absent\.crt does not exist"):
        serving_context(tls_cert_file=str(tmp_path / "absent.crt"), tls_private_key_file="k")
    with pytest.raises(CertError, match="pass a PEM certificate and its matching PEM"):
        serving_context(tls_cert_file=str(garbage), tls_private_key_file=str(garbage))
    with pytest.raises(CertError, match="--tls-cert-file needs --tls-private-key-file"):
        serving_context(tls_cert_file=str(garbage))
    with pytest.raises(CertError, match="--tls-private-key-file needs --tls-cert-file"):
        serving_context(tls_private_key_file=str(garbage))


async def test_port_in_use_is_one_line_naming_the_flag() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ServingError, match=rf"--secure-port={port}: .* already in use"):
            await make_server(secure_port=port).start()


async def test_address_of_another_host_is_one_line_naming_the_flag() -> None:
    server = HealthServer(
        options=ServingOptions(bind_address="192.0.2.10", secure_port=0),
        metrics=SchedulerMetrics(),
        ready=lambda: True,
        live=lambda: True,
        configz=lambda: "",
        auth=DelegatedAuth(FakeReviewer()),
    )
    with pytest.raises(ServingError, match=r"--bind-address=192\.0\.2\.10: cannot listen there"):
        await server.start()
