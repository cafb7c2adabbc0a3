"""The serving certificate, chosen as kube-scheduler chooses it.

* `--tls-cert-file` + `--tls-private-key-file`: that pair (both, or it is an error);
* else `--cert-dir=DIR`: `DIR/kubesched.crt` + `.key`, made self-signed when absent,
  unreadable or expired, and reused while valid;
* else a fresh self-signed pair at every start, kept in memory: nothing is read from or
  left in a shared directory (Python's ssl module loads keys only from files, so the pair
  exists for a moment in a private 0700 directory that is removed at once).

Files are written safely: created with O_EXCL and mode 0600 next to their destination,
never through a symbolic link, then renamed into place.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import secrets
import ssl
import stat
import tempfile
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from kubesched.errors import FatalError

CERT_NAME = "kubesched.crt"
KEY_NAME = "kubesched.key"
VALIDITY = dt.timedelta(days=365)


class CertError(FatalError):
    """The serving certificate cannot be set up; the message is one line naming the fix."""


def serving_context(
    *, tls_cert_file: str = "", tls_private_key_file: str = "", cert_dir: Path | None = None
) -> ssl.SSLContext:
    """The server-side TLS context for the secure port (see the module docstring)."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    if tls_cert_file or tls_private_key_file:
        _load_given(context, tls_cert_file, tls_private_key_file)
    elif cert_dir is not None:
        cert, key = ensure_self_signed(cert_dir)
        _load(context, cert, key, origin=f"--cert-dir={cert_dir}")
    else:
        _load_in_memory(context)
    return context


def _load_given(context: ssl.SSLContext, cert: str, key: str) -> None:
    if not cert:
        raise CertError("--tls-private-key-file needs --tls-cert-file: pass both or neither")
    if not key:
        raise CertError("--tls-cert-file needs --tls-private-key-file: pass both or neither")
    _load(context, Path(cert), Path(key), origin="--tls-cert-file/--tls-private-key-file")


def _load(context: ssl.SSLContext, cert: Path, key: Path, *, origin: str) -> None:
    for path in (cert, key):
        if not path.is_file():
            raise CertError(f"{origin}: {path} does not exist; pass an existing file")
    try:
        context.load_cert_chain(str(cert), str(key))
    except (ssl.SSLError, OSError, ValueError) as exc:
        raise CertError(
            f"{origin}: cannot load {cert} with key {key} ({exc}); pass a PEM certificate "
            "and its matching PEM private key"
        ) from exc


def _load_in_memory(context: ssl.SSLContext) -> None:
    cert_pem, key_pem = self_signed_pem()
    with tempfile.TemporaryDirectory(prefix="kubesched-serving-") as private:
        cert, key = Path(private) / CERT_NAME, Path(private) / KEY_NAME
        write_private(cert, cert_pem)
        write_private(key, key_pem)
        context.load_cert_chain(str(cert), str(key))


def ensure_self_signed(cert_dir: Path, *, host: str = "localhost") -> tuple[Path, Path]:
    """(cert, key) in `cert_dir`: reused while valid, else a new self-signed pair."""
    _ensure_directory(cert_dir)
    cert_path, key_path = cert_dir / CERT_NAME, cert_dir / KEY_NAME
    for path in (cert_path, key_path):
        if path.is_symlink():
            raise CertError(
                f"--cert-dir: {path} is a symbolic link; remove it (kubesched writes its "
                "own pair there) or pass --tls-cert-file/--tls-private-key-file"
            )
    if _still_valid(cert_path, key_path):
        return cert_path, key_path
    cert_pem, key_pem = self_signed_pem(host=host)
    _replace(key_path, key_pem)
    _replace(cert_path, cert_pem)
    return cert_path, key_path


def _ensure_directory(cert_dir: Path) -> None:
    if cert_dir.exists() and not cert_dir.is_dir():
        raise CertError(f"--cert-dir={cert_dir} is not a directory; pass a directory")
    try:
        cert_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise CertError(
            f"--cert-dir={cert_dir}: cannot create it ({exc.strerror}); pass a writable directory"
        ) from exc


def _still_valid(cert_path: Path, key_path: Path) -> bool:
    """Both files are regular, the certificate parses and has not expired, the key loads."""
    try:
        if not (stat.S_ISREG(cert_path.lstat().st_mode) and stat.S_ISREG(key_path.lstat().st_mode)):
            return False
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        serialization.load_pem_private_key(key_path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError):
        return False
    return cert.not_valid_after_utc > dt.datetime.now(dt.UTC) + dt.timedelta(minutes=5)


def write_private(path: Path, data: bytes) -> None:
    """Create `path` (it must not exist, links are not followed) with mode 0600."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def _replace(path: Path, data: bytes) -> None:
    """Write a fresh file beside `path` and rename it over `path` (a link there is replaced,
    never followed)."""
    temp = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    try:
        write_private(temp, data)
        temp.replace(path)
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise CertError(
            f"--cert-dir: cannot write {path} ({exc.strerror}); pass a writable directory"
        ) from exc


def self_signed_pem(*, host: str = "localhost") -> tuple[bytes, bytes]:
    """A new self-signed (certificate, key) pair in PEM, valid for `host`, localhost and
    127.0.0.1 for a year."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{host}@kubesched")])
    now = dt.datetime.now(dt.UTC)
    sans: list[x509.GeneralName] = [x509.DNSName(host), x509.DNSName("localhost")]
    sans.append(x509.IPAddress(ipaddress.ip_address("127.0.0.1")))
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + VALIDITY)
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return cert.public_bytes(serialization.Encoding.PEM), key_pem
